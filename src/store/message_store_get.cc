// MessageStore reads: get_messages (pull) and query_by_key (QUERY_MESSAGE).
#include <fmt/format.h>

#include <algorithm>

#include "common/message_const.h"
#include "common/record_reader.h"
#include "runtime/assert.h"
#include "store/message_store.h"
#include "store/property_scan.h"

namespace ferry::store {

namespace {

// RocketMQ's isTheBatchFull (in-memory limits).
bool batch_full(const GetMessageResult& r, std::int32_t size, std::int32_t max_count,
                const StoreConfig& c) {
  const auto count = static_cast<std::int32_t>(r.messages.size());
  if (r.total_bytes == 0 || count == 0) return false;
  if (count >= max_count) return true;
  if (r.total_bytes + size > c.pull_transfer_bytes_max) return true;
  return count > c.pull_transfer_count_max - 1;
}

bool has_key(std::string_view properties, std::string_view key) {
  if (find_property(properties, prop::kUniqKey) == key) return true;
  std::string_view keys = find_property(properties, prop::kKeys).value_or("");
  while (!keys.empty()) {
    const auto space = keys.find(prop::kKeySeparator);
    if (keys.substr(0, space) == key) return true;
    if (space == std::string_view::npos) break;
    keys.remove_prefix(space + 1);
  }
  return false;
}

// The CommitLog step of an SQL92 filter: the record's properties, read in place.
bool record_selected(const SubscriptionFilter& filter, Bytes record) {
  const std::optional<std::string_view> properties = record_properties(record);
  if (!properties) return true;  // delivered: the client reports what it is
  return filter.matches_properties(*properties);
}

}  // namespace

GetMessageResult MessageStore::get_messages(const std::string& topic, QueueId queue_id,
                                            QueueOffset offset, std::int32_t max_count,
                                            const SubscriptionFilter* filter) {
  FERRY_ASSERT(max_count > 0, "get_messages with max_count {}", max_count);
  // buggify: fewer messages than are available (as the transfer byte limits cut a batch short).
  if (max_count > 1 && FERRY_BUGGIFY(rt_)) max_count = static_cast<std::int32_t>(rt_.random().between(1, max_count - 1));
  GetMessageResult r;
  const ConsumeQueue* q = find_queue(topic, queue_id);
  if (q == nullptr) {
    r.status = GetStatus::no_matched_logic_queue;
    r.next_begin_offset = QueueOffset(0);
    return r;
  }
  r.min_offset = q->min_offset();
  r.max_offset = q->max_offset();
  if (r.max_offset.value() == 0) {
    r.status = GetStatus::no_message_in_queue;
    r.next_begin_offset = QueueOffset(0);
    return r;
  }
  if (offset < r.min_offset) {
    r.status = GetStatus::offset_too_small;
    r.next_begin_offset = r.min_offset;
    return r;
  }
  if (offset == r.max_offset) {
    r.status = GetStatus::offset_overflow_one;
    r.next_begin_offset = offset;
    return r;
  }
  if (offset > r.max_offset) {
    r.status = GetStatus::offset_overflow_badly;
    r.next_begin_offset = r.max_offset;
    return r;
  }
  // The scan is bounded whatever maxMsgNums the client sends: RocketMQ scans max(16000 bytes,
  // maxMsgNums * 20) of ConsumeQueue, but a batch never holds more than pull_transfer_count_max
  // messages, so that is the most the count can widen the scan (a filter that matches nothing
  // costs at most 800 units per pull by default; the next pull goes on from next_begin_offset).
  const std::int64_t counted = std::min<std::int64_t>(max_count, config_.pull_transfer_count_max);
  const std::int64_t scan_units =
      std::max<std::int64_t>(config_.pull_filter_bytes_max, counted * cq::kUnitBytes) / static_cast<std::int64_t>(cq::kUnitBytes);
  const PhysicalOffset log_min = log_.min_offset();
  r.status = GetStatus::no_matched_message;
  QueueOffset at = offset;
  PhysicalOffset skip_below(-1);  // after a removed record: skip to the next file (-1: none)
  bool full = false;
  while (!full && at < r.max_offset && at - offset < scan_units) {
    auto units = q->read_units(at, std::min(scan_units - (at - offset), r.max_offset - at));
    if (!units.ok()) {
      if (r.messages.empty()) r.status = GetStatus::offset_found_null;
      break;
    }
    const Bytes bytes = units->bytes();
    FERRY_ASSERT(!bytes.empty() && bytes.size() % cq::kUnitBytes == 0,
                 "consume queue view of {} bytes at {}", bytes.size(), at.value());
    for (std::size_t pos = 0; pos < bytes.size(); pos += cq::kUnitBytes) {
      const cq::Unit u = cq::decode_unit(bytes.data() + pos);
      if (!u.is_message()) {  // a pre-blank, or a hole left by a damaged CommitLog range: skipped
        at += 1;
        continue;
      }
      r.last_scanned_phy_offset = u.commit_log_offset;
      if (batch_full(r, u.size, max_count, config_)) {
        full = true;
        break;
      }
      at += 1;
      if (u.commit_log_offset < skip_below) continue;
      if (filter != nullptr && !filter->matches_code(u.tags_code)) {
        continue;  // status stays no_matched_message while nothing was found
      }
      auto view = u.commit_log_offset < log_min ? Result<FileView>(Errc::not_found)
                                                : log_.view(u.commit_log_offset, u.size);
      if (!view.ok()) {
        if (r.messages.empty()) r.status = GetStatus::message_was_removing;
        skip_below = log_.next_file_start(u.commit_log_offset);
        continue;
      }
      if (filter != nullptr && filter->reads_properties() && !record_selected(*filter, view->bytes())) continue;
      r.total_bytes += u.size;
      r.messages.push_back(std::move(*view));
      r.queue_offsets.push_back(at - 1);
      r.status = GetStatus::found;
      skip_below = PhysicalOffset(-1);
    }
  }
  r.next_begin_offset = at;
  FERRY_ASSERT(r.next_begin_offset >= offset && r.next_begin_offset <= r.max_offset,
               "next offset {} outside [{}, {}]", r.next_begin_offset.value(), offset.value(),
               r.max_offset.value());
  return r;
}

Result<MessageStore::QueryResult> MessageStore::query_by_key(std::string_view topic,
                                                             std::string_view key,
                                                             std::size_t max_results,
                                                             WallMs begin_ms, WallMs end_ms) const {
  QueryResult out;
  auto found = index_.query(topic, key, max_results, begin_ms, end_ms);
  if (!found.ok()) return std::move(found).error();
  out.index_last_update_timestamp_ms = found->last_update_timestamp_ms;
  out.index_last_update_phy_offset = found->last_update_phy_offset;
  RecordDecodeOptions options;
  options.check_crc = false;
  options.size_bytes_max = static_cast<std::size_t>(config_.message_size_max_bytes);
  for (const PhysicalOffset off : found->offsets) {
    if (off < log_.min_offset() || off >= log_.max_offset()) continue;
    auto view = message_at(off);
    if (!view.ok()) continue;  // cleaned up meanwhile
    const RecordRead rec = decode_record(view->bytes(), options);
    if (rec.kind != RecordKind::message) continue;
    if (rec.fields.topic != topic || !has_key(rec.fields.properties, key)) continue;  // collision
    out.messages.push_back(std::move(*view));
  }
  return out;
}

}  // namespace ferry::store
