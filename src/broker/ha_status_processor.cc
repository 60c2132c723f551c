#include "broker/ha_status_processor.h"

#include <algorithm>

#include "broker/ha_role.h"
#include "common/record_reader.h"
#include "remoting/response_code.h"

namespace ferry::broker {

namespace {

// Store time of the oldest message a slave lacks, from `at`, the offset it confirmed: the record
// starting there, or — when none does (a BLANK ends the file there, or the slave's report ends
// inside a record, which a batch may) — the first record of the next file, which makes the lag in
// time an under-estimate then. nullopt when there is none before the log's end.
std::optional<WallMs> first_store_time_from(const store::MessageStore& store, PhysicalOffset at) {
  at = std::max(at, store.min_phy_offset());
  const std::int64_t file_bytes = store.config().commit_log_file_size_bytes;
  FERRY_ASSERT(file_bytes > 0, "CommitLog file size {}", file_bytes);
  for (int step = 0; step < 2 && at < store.max_phy_offset(); ++step) {
    Result<FileView> record = store.message_at(at);
    if (record.ok()) {
      const RecordRead r = decode_record(record->bytes());
      if (r.kind == RecordKind::message) return r.fields.store_timestamp_ms;
      return std::nullopt;
    }
    at = PhysicalOffset((at.value() / file_bytes + 1) * file_bytes);  // past a BLANK: the next file
  }
  return std::nullopt;
}

std::int64_t ms_since(MonoTime now, MonoTime then) {
  return then == MonoTime{} ? 0 : std::max<std::int64_t>(0, to_ms(now - then));
}

}  // namespace

remoting::body::HaRuntimeInfo HaStatusProcessor::snapshot() const {
  remoting::body::HaRuntimeInfo info;
  info.broker_role = std::string(role_name(config_.broker_role));
  info.links_dropped = master_.links_dropped();
  info.diverged_links = master_.diverged_links();
  info.last_drop = master_.last_drop();
  const PhysicalOffset max = store_.max_phy_offset();
  const MonoTime now = rt_.now();
  if (config_.broker_role != BrokerRole::slave) {
    info.master = true;
    info.master_commit_log_max_offset = max;
    const WallMs wall_now = rt_.wall_ms();
    for (const store::ha::SlaveLinkState& link : master_.slaves()) {
      remoting::body::HaConnectionRuntimeInfo c;
      c.addr = link.address;
      c.slave_ack_offset = link.acked;
      c.diff_bytes = std::max<std::int64_t>(0, max - link.acked);
      c.in_sync = c.diff_bytes < config_.ha.slave_fallbehind_max_bytes;
      c.transfer_from_where = link.sent;
      if (c.diff_bytes > 0) {
        const std::optional<WallMs> oldest = first_store_time_from(store_, link.acked);
        c.diff_ms = oldest ? std::max<std::int64_t>(0, wall_now - *oldest) : 0;
      }
      c.since_last_report_ms = ms_since(now, link.last_report_at);
      if (c.in_sync) ++info.in_sync_slave_nums;
      info.ha_connection_info.push_back(std::move(c));
    }
    return info;
  }
  const store::ha::SlaveLinkStatus& st = slave_.status();
  remoting::body::HaClientRuntimeInfo& c = info.ha_client_runtime_info;
  c.master_addr = st.master.value_or("");
  c.max_offset = max;
  if (st.last_batch_at != MonoTime{}) c.last_read_timestamp_ms = rt_.wall_ms() - ms_since(now, st.last_batch_at);
  c.connected = st.connected;
  c.local_addr = st.local;
  c.reported_offset = st.reported;
  c.links = st.links;
  c.bytes = st.bytes;
  c.last_drop = st.last_drop;
  return info;
}

Task<Reply> HaStatusProcessor::process(RequestContext ctx) {
  RemotingCommand out = reply(ctx.request, remoting::response_code::SUCCESS);
  out.body = snapshot().encode();
  co_return out;
}

}  // namespace ferry::broker
