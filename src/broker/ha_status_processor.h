// HaStatusProcessor: GET_BROKER_HA_STATUS (907), RocketMQ 5's AdminBrokerProcessor
// .getBrokerHaStatus: no header fields; the reply body is an HARuntimeInfo
// (remoting/body/ha_runtime_info.h) describing this broker's replication now.
//
//  * A master (ASYNC_MASTER / SYNC_MASTER, a promoted slave included): master true,
//    masterCommitLogMaxOffset = its CommitLog max offset, one haConnectionInfo entry per
//    connected slave (HaMaster::slaves(), in link order): addr, slaveAckOffset, diff (bytes),
//    inSync (diff < haSlaveFallbehindMax: the slave counts for SYNC_MASTER, RocketMQ's
//    isInSyncSlave), transferFromWhere (the next byte pushed to it), diffMs (how long ago the
//    oldest message the slave lacks was stored, master's wall clock; 0 when it holds everything)
//    and sinceLastReportMs; inSyncSlaveNums counts the inSync entries; linksDropped,
//    divergedLinks and lastDrop are HaMaster's counters.
//  * A slave: master false, haClientRuntimeInfo from HaSlave::status(): masterAddr (the HA
//    address in use, "" before one is known), maxOffset (its CommitLog max offset),
//    lastReadTimestamp (wall ms of the master's last byte; 0 = none in this life), connected,
//    localAddr (the address the master lists it under), reportedOffset, links, bytes, lastDrop.
//
// Never fails: always SUCCESS. Reads only; safe on any broker state after construction.
#pragma once

#include "broker/broker_config.h"
#include "broker/replies.h"
#include "remoting/body/ha_runtime_info.h"
#include "store/ha/ha_master.h"
#include "store/ha/ha_slave.h"
#include "store/message_store.h"

namespace ferry::broker {

class HaStatusProcessor {
 public:
  // Every reference must outlive the processor (the Broker's members). `config` is read at each
  // request: a promotion changes the role.
  HaStatusProcessor(Runtime& rt, const BrokerConfig& config, const store::MessageStore& store,
                    const store::ha::HaMaster& master, const store::ha::HaSlave& slave)
      : rt_(rt), config_(config), store_(store), master_(master), slave_(slave) {}

  Task<Reply> process(RequestContext ctx);

  // The body of a reply now (also read by GET_BROKER_RUNTIME_INFO).
  remoting::body::HaRuntimeInfo snapshot() const;
  // The largest offset a slave confirmed since the start (HaMaster::replicated_offset()).
  PhysicalOffset replicated_offset() const { return master_.replicated_offset(); }

 private:
  Runtime& rt_;
  const BrokerConfig& config_;
  const store::MessageStore& store_;
  const store::ha::HaMaster& master_;
  const store::ha::HaSlave& slave_;
};

}  // namespace ferry::broker
