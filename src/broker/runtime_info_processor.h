// RuntimeInfoProcessor: GET_BROKER_RUNTIME_INFO (28) (RocketMQ's AdminBrokerProcessor
// .getBrokerRuntimeInfo). No header fields; the reply body is a KVTable
// ({"table":{"key":"value"}}, remoting/body/kv_table.h) with these keys (RocketMQ's names where
// RocketMQ has the key; units as RocketMQ reports them):
//
//   putTps, getTransferedTps   "T10 T60 T600": messages per second over the last 10 s, 60 s and
//                              600 s, two decimals each (BrokerStats: puts stored by sends,
//                              messages returned by pulls)
//   msgPutTotal, msgGetTotal   messages put / returned since the broker started (Ferry keys:
//                              RocketMQ reports per-day totals instead)
//   putMessageSizeTotal, getMessageSizeTotal   their record bytes since the start
//   commitLogMinOffset, commitLogMaxOffset     the CommitLog's physical offsets
//   remainHowManyDataToFlush   CommitLog bytes written but not yet synced
//   dispatchBehindBytes        CommitLog bytes not yet in the ConsumeQueues and index
//   commitLogDiskRatio         used / capacity of the store's disk, e.g. "0.4213" (the runtime's
//                              FileSystem::space(), read per request); "-1" when unknown
//   commitLogDirCapacity       "Total : 93.8 GiB, Free : 54.2 GiB." ("unknown" when unknown)
//   flushDiskType              ASYNC_FLUSH / SYNC_FLUSH; brokerRole ASYNC_MASTER / SYNC_MASTER / SLAVE
//   bootTimestamp              wall-clock ms when the broker object was built
//   runtime                    "[ 0 days, 1 hours, 2 minutes, 3 seconds ]" since then (monotonic)
//   brokerVersionDesc          "Ferry"
//
// Replication (RocketMQ 4.9 reports none; the names are those of RocketMQ 5's HARuntimeInfo /
// `mqadmin haStatus` where it has one, ha-prefixed Ferry names otherwise; the full picture is
// GET_BROKER_HA_STATUS, ha_status_processor.h). On a master (a promoted slave included):
//   masterCommitLogMaxOffset   = commitLogMaxOffset
//   slaveNum                   slaves connected now (RocketMQ's #SlaveNum)
//   inSyncSlaveNums            of those, the ones less than haSlaveFallbehindMax behind
//   slaveAckOffset, diff, diffMs   the most advanced connected slave's confirmed offset, the
//                              bytes it lacks, and how long ago the oldest of them was stored
//                              (ms); absent without a connected slave
//   haReplicatedOffset         the largest offset a slave confirmed since the start (SYNC_MASTER's)
//   haLinksDropped, haDivergedLinks, haLastDrop   slave links dropped, of those for a log that
//                              diverged, and "slave: why" of the last ("" before any)
// On a slave:
//   masterAddr                 the master's HA "ip:port" it replicates from ("" = none known)
//   haConnected                "true" while a link is up
//   haReportedOffset           the offset it last confirmed to the master
//   lastReadTimestamp          wall ms of the master's last byte (0 = none since the start)
//   haLastDrop                 why its last link ended ("" before any)
//
// Never fails: always SUCCESS.
#pragma once

#include "broker/broker_config.h"
#include "broker/broker_stats.h"
#include "broker/ha_status_processor.h"
#include "broker/replies.h"
#include "store/message_store.h"

namespace ferry::broker {

class RuntimeInfoProcessor {
 public:
  // `boot_wall_ms`: the wall clock at the time of stats.boot_time().
  RuntimeInfoProcessor(Runtime& rt, const BrokerConfig& config, store::MessageStore& store, const BrokerStats& stats,
                       const HaStatusProcessor& ha, WallMs boot_wall_ms)
      : rt_(rt), config_(config), store_(store), stats_(stats), ha_(ha), boot_wall_ms_(boot_wall_ms) {}

  Task<Reply> process(RequestContext ctx);

 private:
  Runtime& rt_;
  const BrokerConfig& config_;
  store::MessageStore& store_;
  const BrokerStats& stats_;
  const HaStatusProcessor& ha_;
  const WallMs boot_wall_ms_;
};

// "[ 0 days, 1 hours, 2 minutes, 3 seconds ]" (RocketMQ's runtime text) for a duration >= 0.
std::string runtime_text(Duration up);

}  // namespace ferry::broker
