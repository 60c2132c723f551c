#include "broker/runtime_info_processor.h"

#include <fmt/format.h>

#include <map>

#include "broker/ha_role.h"
#include "remoting/body/ha_runtime_info.h"
#include "remoting/body/kv_table.h"
#include "remoting/response_code.h"

namespace ferry::broker {

namespace code = remoting::response_code;

namespace {

std::string tps_text(double t10, double t60, double t600) { return fmt::format("{:.2f} {:.2f} {:.2f}", t10, t60, t600); }

// The replication keys (see the header).
void add_ha_keys(const remoting::body::HaRuntimeInfo& ha, std::map<std::string, std::string>& t) {
  if (ha.master) {
    t["masterCommitLogMaxOffset"] = std::to_string(ha.master_commit_log_max_offset.value());
    t["slaveNum"] = std::to_string(ha.ha_connection_info.size());
    t["inSyncSlaveNums"] = std::to_string(ha.in_sync_slave_nums);
    const remoting::body::HaConnectionRuntimeInfo* best = nullptr;
    for (const auto& c : ha.ha_connection_info) {
      if (best == nullptr || c.slave_ack_offset > best->slave_ack_offset) best = &c;
    }
    if (best != nullptr) {
      t["slaveAckOffset"] = std::to_string(best->slave_ack_offset.value());
      t["diff"] = std::to_string(best->diff_bytes);
      t["diffMs"] = std::to_string(best->diff_ms);
    }
    t["haLinksDropped"] = std::to_string(ha.links_dropped);
    t["haDivergedLinks"] = std::to_string(ha.diverged_links);
    t["haLastDrop"] = ha.last_drop;
    return;
  }
  const remoting::body::HaClientRuntimeInfo& c = ha.ha_client_runtime_info;
  t["masterAddr"] = c.master_addr;
  t["haConnected"] = c.connected ? "true" : "false";
  t["haReportedOffset"] = std::to_string(c.reported_offset.value());
  t["lastReadTimestamp"] = std::to_string(c.last_read_timestamp_ms);
  t["haLastDrop"] = c.last_drop;
}

std::string gib_text(std::uint64_t bytes) {
  return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / static_cast<double>(std::uint64_t{1} << 30));
}

}  // namespace

std::string runtime_text(Duration up) {
  const std::int64_t total = std::max<std::int64_t>(0, std::chrono::duration_cast<std::chrono::seconds>(up).count());
  return fmt::format("[ {} days, {} hours, {} minutes, {} seconds ]", total / 86400, total % 86400 / 3600,
                     total % 3600 / 60, total % 60);
}

Task<Reply> RuntimeInfoProcessor::process(RequestContext ctx) {
  const MonoTime now = rt_.now();
  remoting::body::KvTable kv;
  auto& t = kv.table;
  t["putTps"] = tps_text(stats_.put_tps(now, 10), stats_.put_tps(now, 60), stats_.put_tps(now, 600));
  t["getTransferedTps"] = tps_text(stats_.get_tps(now, 10), stats_.get_tps(now, 60), stats_.get_tps(now, 600));
  const BrokerStats::Totals& totals = stats_.totals();
  t["msgPutTotal"] = std::to_string(totals.put_messages);
  t["msgGetTotal"] = std::to_string(totals.get_messages);
  t["putMessageSizeTotal"] = std::to_string(totals.put_bytes);
  t["getMessageSizeTotal"] = std::to_string(totals.get_bytes);

  const PhysicalOffset min = store_.min_phy_offset();
  const PhysicalOffset max = store_.max_phy_offset();
  const PhysicalOffset flushed = store_.commit_log().flushed_offset();
  t["commitLogMinOffset"] = std::to_string(min.value());
  t["commitLogMaxOffset"] = std::to_string(max.value());
  t["remainHowManyDataToFlush"] = std::to_string(std::max<std::int64_t>(0, max - flushed));
  t["dispatchBehindBytes"] = std::to_string(std::max<std::int64_t>(0, max - store_.reput_offset()));

  Result<SpaceInfo> space = rt_.fs().space();
  if (space.ok() && space->capacity_bytes > 0) {
    const std::uint64_t used = space->capacity_bytes - std::min(space->free_bytes, space->capacity_bytes);
    t["commitLogDiskRatio"] = fmt::format("{:.4f}", static_cast<double>(used) / static_cast<double>(space->capacity_bytes));
    t["commitLogDirCapacity"] =
        fmt::format("Total : {}, Free : {}.", gib_text(space->capacity_bytes), gib_text(space->free_bytes));
  } else {
    t["commitLogDiskRatio"] = "-1";
    t["commitLogDirCapacity"] = "unknown";
  }

  // Ferry's own: whether the store takes writes, and why not (a failed sync, a full disk).
  const std::optional<std::string> refusal = store_.write_refusal();
  t["storeWritable"] = refusal ? "false" : "true";
  if (refusal) t["storeWriteRefusal"] = *refusal;
  t["flushDiskType"] = config_.flush_disk_type == store::FlushMode::sync_flush ? "SYNC_FLUSH" : "ASYNC_FLUSH";
  t["brokerRole"] = std::string(role_name(config_.broker_role));
  t["bootTimestamp"] = std::to_string(boot_wall_ms_);
  t["runtime"] = runtime_text(now - stats_.boot_time());
  t["brokerVersionDesc"] = "Ferry";
  add_ha_keys(ha_.snapshot(), t);
  if (config_.broker_role != BrokerRole::slave) t["haReplicatedOffset"] = std::to_string(ha_.replicated_offset().value());

  RemotingCommand out = reply(ctx.request, code::SUCCESS);
  out.body = kv.encode();
  co_return out;
}

}  // namespace ferry::broker
