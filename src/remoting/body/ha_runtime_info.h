// GET_BROKER_HA_STATUS (907) reply body: RocketMQ 5's HARuntimeInfo (remoting/protocol/body/
// HARuntimeInfo.java) with the fields Ferry knows, plus a few of Ferry's own. A master fills
// `master`, masterCommitLogMaxOffset, inSyncSlaveNums and haConnectionInfo (one entry per
// connected slave); a slave fills haClientRuntimeInfo.
//
//   {"master":true,"masterCommitLogMaxOffset":4096,"inSyncSlaveNums":1,
//    "haConnectionInfo":[{"addr":"10.0.0.2:40112","slaveAckOffset":4096,"diff":0,"inSync":true,
//                         "transferFromWhere":4096,"diffMs":0,"sinceLastReportMs":1200}],
//    "haClientRuntimeInfo":{"masterAddr":"","maxOffset":0,"lastReadTimestamp":0},
//    "brokerRole":"SYNC_MASTER","linksDropped":0,"divergedLinks":0,"lastDrop":""}
//
// RocketMQ's fields Ferry does not measure (transferredByteInSecond, lastWriteTimestamp,
// masterFlushOffset) are not written; a fastjson reader takes them as 0. Readers here take every
// Ferry field as optional, so a RocketMQ 5 broker's body decodes too.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <rapidjson/document.h>

#include "common/offsets.h"
#include "remoting/json/json_reader.h"
#include "remoting/json/json_writer.h"
#include "runtime/bytes.h"
#include "runtime/result.h"

namespace ferry::remoting::body {

// One slave connected to a master (RocketMQ's HAConnectionRuntimeInfo).
struct HaConnectionRuntimeInfo {
  std::string addr;                 // the slave's end of the HA link, "ip:port"
  PhysicalOffset slave_ack_offset;  // slaveAckOffset: what the slave last confirmed
  std::int64_t diff_bytes = 0;      // diff: masterCommitLogMaxOffset - slaveAckOffset
  bool in_sync = false;             // inSync: diff below haSlaveFallbehindMax (counts for SYNC_MASTER)
  PhysicalOffset transfer_from_where;  // transferFromWhere: the next byte the master pushes
  // Ferry: how long ago the oldest message the slave lacks was stored, by the master's clock
  // (0 when the slave holds everything): how much traffic a loss of the master would take.
  std::int64_t diff_ms = 0;
  std::int64_t since_last_report_ms = 0;  // Ferry: since the slave last reported its offset

  static HaConnectionRuntimeInfo read(const rapidjson::Value& v, std::string path, json::JsonErrors& errors);
  void write(json::Writer& w) const;
  bool operator==(const HaConnectionRuntimeInfo&) const = default;
};

// A slave's link to its master (RocketMQ's HAClientRuntimeInfo).
struct HaClientRuntimeInfo {
  std::string master_addr;        // masterAddr: the master's HA "ip:port" in use ("" = none known)
  PhysicalOffset max_offset;      // maxOffset: this slave's CommitLog max offset
  std::int64_t last_read_timestamp_ms = 0;  // lastReadTimestamp: wall ms of the master's last byte (0 = never)
  bool connected = false;         // Ferry: a link is up now
  std::string local_addr;         // Ferry: this end of the link (the master lists it as addr)
  PhysicalOffset reported_offset; // Ferry: the offset last confirmed to the master
  std::uint64_t links = 0;        // Ferry: links made since the broker started
  std::uint64_t bytes = 0;        // Ferry: bytes received since the broker started
  std::string last_drop;          // Ferry: why the last link ended ("" = none yet)

  static HaClientRuntimeInfo read(const rapidjson::Value& v, std::string path, json::JsonErrors& errors);
  void write(json::Writer& w) const;
  bool operator==(const HaClientRuntimeInfo&) const = default;
};

struct HaRuntimeInfo {
  bool master = false;
  PhysicalOffset master_commit_log_max_offset;  // masterCommitLogMaxOffset (a master's)
  std::int32_t in_sync_slave_nums = 0;          // inSyncSlaveNums
  std::vector<HaConnectionRuntimeInfo> ha_connection_info;
  HaClientRuntimeInfo ha_client_runtime_info;
  std::string broker_role;          // Ferry: ASYNC_MASTER / SYNC_MASTER / SLAVE
  std::uint64_t links_dropped = 0;  // Ferry: slave links the master dropped since it started
  std::uint64_t diverged_links = 0; // Ferry: of those, dropped because the slave's log diverged
  std::string last_drop;            // Ferry: "slave address: why" of the master's last drop

  // Errors: Errc::corrupt for malformed JSON, Errc::invalid_argument naming the field's path.
  static Result<HaRuntimeInfo> decode(Bytes body);
  std::vector<std::uint8_t> encode() const;
  bool operator==(const HaRuntimeInfo&) const = default;
};

}  // namespace ferry::remoting::body
