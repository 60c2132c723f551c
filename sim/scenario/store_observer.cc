#include "sim/scenario/store_observer.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/crc.h"
#include "common/record_reader.h"
#include "runtime/assert.h"
#include "sim/disk/disk.h"
#include "sim/disk/file_system.h"
#include "sim/node.h"

namespace ferry::sim::scenario {

namespace {

// What a node's disk holds now at a CommitLog offset, read no further than `limit`.
struct RecordSeen {
  bool file = false;  // a CommitLog file holds the offset and is on the disk
  RecordKind kind = RecordKind::unwritten;
  std::int64_t size = 0;
  std::uint32_t crc = 0;
  std::string detail;  // when not a message: what was there
};

RecordSeen record_at(const store::CommitLog& log, const SimDisk& disk, std::int64_t at, std::int64_t limit,
                     std::size_t size_max) {
  RecordSeen seen;
  const store::MappedFile* f = log.files().find(at);
  if (f == nullptr) {
    seen.detail = fmt::format("no CommitLog file holds offset {}", at);
    return seen;
  }
  auto path = normalize_path(f->path());
  const std::optional<Bytes> bytes = path.ok() ? disk.peek(*path) : std::nullopt;
  if (!bytes) {
    seen.detail = fmt::format("the file {} is not on the disk", f->path());
    return seen;
  }
  seen.file = true;
  const std::int64_t pos = at - f->start_offset();
  if (pos >= f->write_position() && f->full()) {
    seen.kind = RecordKind::blank;  // the rest of a file closed early (mark_full after a BLANK)
    return seen;
  }
  const std::int64_t end =
      std::min({f->write_position(), static_cast<std::int64_t>(bytes->size()), limit - f->start_offset()});
  if (pos >= end) {
    seen.detail = fmt::format("nothing written at {} (the file's data ends at {})", at, f->start_offset() + end);
    return seen;
  }
  const Bytes rest = bytes->subspan(static_cast<std::size_t>(pos), static_cast<std::size_t>(end - pos));
  RecordDecodeOptions options;
  options.check_crc = false;  // the CRC of the whole record is compared instead
  options.size_bytes_max = size_max;  // the store's: a record cut short reads as torn, not corrupt
  const RecordRead r = decode_record(rest, options);
  seen.kind = r.kind;
  if (r.kind == RecordKind::message) {
    seen.size = static_cast<std::int64_t>(r.size_bytes);
    seen.crc = crc32_update(0, rest.first(r.size_bytes));
  } else {
    seen.detail = fmt::format("{} ({})", record_kind_name(r.kind), r.detail);
  }
  return seen;
}

// The detail of the latest crash Event of `node` after `since` (the fault that ended the life).
std::string crash_detail(const sim::History& h, const std::string& node, MonoTime since) {
  for (auto it = h.events.rbegin(); it != h.events.rend() && it->at >= since; ++it) {
    if (it->kind == sim::EventKind::crash && it->target == node) return it->detail;
  }
  return "";
}

}  // namespace

void StoreObserver::look(MonoTime now) {
  for (std::size_t i = 0; i < cluster_.broker_count(); ++i) {
    // Once the store has opened (recovered), even when the broker then failed to start (a config
    // file a power loss took): the log is what recovery left.
    broker::Broker* b = cluster_.broker(i);
    if (b == nullptr || !b->store().opened()) continue;
    const std::uint64_t life = cluster_.world().node(cluster_.broker_node(i)).starts();
    NodeLog& log = logs_[cluster_.broker_label(i)];
    if (log.life != life) judge_restart(now, i, log, life);
    follow(i, log);
    log.last_look = now;
  }
}

void StoreObserver::follow(std::size_t broker, NodeLog& log) {
  const store::CommitLog& cl = cluster_.broker(broker)->store().commit_log();
  const SimDisk& disk = cluster_.world().node(cluster_.broker_node(broker)).disk();
  const std::int64_t min = cl.min_offset().value(), end = cl.max_offset().value();
  const auto size_max = static_cast<std::size_t>(cluster_.broker(broker)->store().config().message_size_max_bytes);
  while (!log.records.empty() && log.records.front().offset < min) log.records.pop_front();  // cleaned up
  const store::MessageStore::Cuts& cuts = cluster_.broker(broker)->store().cuts();
  if (cuts.count != log.cuts_seen) {  // cut back on purpose (controller mode): forget what lay past it
    const PhysicalOffset cut = cuts.count == log.cuts_seen + 1 ? cuts.last : cuts.lowest_since_open.value_or(cuts.last);
    log.cuts_seen = cuts.count;
    while (!log.records.empty() && log.records.back().offset >= cut.value()) log.records.pop_back();
    log.scanned_to = std::min(log.scanned_to, cut);
    log.synced_seen = std::min(log.synced_seen, cut);
  }
  std::int64_t at = std::max(log.scanned_to.value(), min);
  while (at < end) {
    const RecordSeen seen = record_at(cl, disk, at, end, size_max);
    if (seen.kind == RecordKind::blank) {
      at = cl.next_file_start(PhysicalOffset(at)).value();
      continue;
    }
    if (!seen.file || seen.kind != RecordKind::message) break;  // half a record (a slave's), or unreadable
    FERRY_ASSERT(log.records.empty() || log.records.back().offset < at, "a digest at {} after one at {}", at,
                 log.records.back().offset);
    log.records.push_back(RecordDigest{at, static_cast<std::int32_t>(seen.size), seen.crc});
    if (log.records.size() > kDigestsPerNodeMax) log.records.pop_front();
    at += seen.size;
  }
  log.scanned_to = PhysicalOffset(at);
  log.max_seen = PhysicalOffset(end);
  const PhysicalOffset flushed = cl.flushed_offset();
  if (log.loaded_flushed && flushed > *log.loaded_flushed) log.loaded_flushed.reset();  // a sync of this life
  if (!log.loaded_flushed) log.synced_seen = std::max(log.synced_seen, flushed);
}

void StoreObserver::judge_restart(MonoTime now, std::size_t broker, NodeLog& log, std::uint64_t life) {
  const std::string& node = cluster_.broker_label(broker);
  const store::MessageStore& st = cluster_.broker(broker)->store();
  const SimDisk& disk = cluster_.world().node(cluster_.broker_node(broker)).disk();
  FERRY_ASSERT(life > log.life, "{} went from life {} back to {}", node, log.life, life);
  const bool first_life = log.life == 0;
  sim::StoreRestartRecord r;
  r.at = now;
  r.broker = node;
  r.before_max = log.max_seen;
  r.before_synced = log.synced_seen;
  r.recovered_end = st.recovery().commit_log.end;
  r.lives_missed = first_life ? 0 : static_cast<std::int64_t>(life - log.life - 1);
  r.wiped = !first_life && disk.stats().wipes != log.wipes;
  const std::string crash = crash_detail(*history_, node, log.last_look);
  log.life = life;
  log.wipes = disk.stats().wipes;
  if (first_life || r.wiped) {
    log.records.clear();
  } else {
    log.records.resize(compare_prefix(broker, log, r));
  }
  if (r.wiped) r.detail = fmt::format("the disk was wiped while the node was down ({}): a new life", crash);
  if (!first_life && !r.wiped && !r.first_mismatch) {
    r.detail = crash;
    if (r.lives_missed > 0) r.detail += fmt::format(" ({} lives missed: only the synced prefix compared)", r.lives_missed);
  }
  // What was synced before and recovered stays synced; see NodeLog::loaded_flushed.
  const bool carried = !first_life && !r.wiped;
  const PhysicalOffset synced_floor = carried ? std::min(r.recovered_end, r.before_synced) : PhysicalOffset(0);
  const PhysicalOffset recovered_end = r.recovered_end;  // what the store's load takes as flushed
  if (!first_life) history_->store_restarts.push_back(std::move(r));
  // The new life goes on from the verified prefix; what lay past it was the old life's.
  const store::CommitLog& cl = st.commit_log();
  log.scanned_to = log.records.empty() ? cl.min_offset() : PhysicalOffset(log.records.back().offset + log.records.back().size);
  log.max_seen = PhysicalOffset(0);
  log.synced_seen = synced_floor;
  log.loaded_flushed.reset();
  log.cuts_seen = st.cuts().count;
  if (carried && st.config().flush_mode == store::FlushMode::async_flush) log.loaded_flushed = recovered_end;
}

std::size_t StoreObserver::compare_prefix(std::size_t broker, const NodeLog& log, sim::StoreRestartRecord& r) const {
  const store::MessageStore& st = cluster_.broker(broker)->store();
  const store::CommitLog& cl = st.commit_log();
  const SimDisk& disk = cluster_.world().node(cluster_.broker_node(broker)).disk();
  const auto size_max = static_cast<std::size_t>(st.config().message_size_max_bytes);
  // Records of a missed life may lie over the old unsynced tail: compare only the synced part.
  const bool missed = r.lives_missed > 0;
  std::int64_t below = missed ? std::min(r.recovered_end, r.before_synced).value() : r.recovered_end.value();
  // A cut the new life made before this look (a rejoining replica, controller mode) replaced
  // what lay past it on purpose.
  if (st.cuts().lowest_since_open) below = std::min(below, st.cuts().lowest_since_open->value());
  const std::int64_t min = cl.min_offset().value();
  std::size_t i = 0;
  for (; i < log.records.size(); ++i) {
    const RecordDigest& d = log.records[i];
    if (missed ? d.offset + d.size > below : d.offset >= below) break;
    if (d.offset < min) continue;  // cleaned up since (follow() drops it)
    // Read no further than the recovered end: a record recovery cut through reads as torn.
    const RecordSeen there = record_at(cl, disk, d.offset, r.recovered_end.value(), size_max);
    ++r.records_compared;
    r.bytes_compared += d.size;
    if (there.file && there.kind == RecordKind::message && there.size == d.size && there.crc == d.crc) continue;
    r.first_mismatch = PhysicalOffset(d.offset);
    r.detail = there.kind == RecordKind::message
                   ? fmt::format("a record of {} bytes (CRC {:08x}) was seen there, the recovered log holds one of {} bytes (CRC {:08x})",
                                 d.size, d.crc, there.size, there.crc)
                   : fmt::format("a record of {} bytes (CRC {:08x}) was seen there, the recovered log holds {}", d.size, d.crc,
                                 there.detail);
    break;
  }
  return i;
}

}  // namespace ferry::sim::scenario
