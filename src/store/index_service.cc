#include "store/index_service.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/sys_flag.h"
#include "runtime/assert.h"
#include "store/file_names.h"
#include "store/file_room.h"
#include "store/time_name.h"

namespace ferry::store {

IndexService::IndexService(FileSystem& fs, const Clock& clock, const std::string& store_root,
                           IndexGeometry geometry, std::size_t query_results_max)
    : fs_(fs),
      clock_(clock),
      dir_(join_path(store_root, "index")),
      geometry_(geometry),
      query_results_max_(query_results_max) {
  FERRY_ASSERT(query_results_max > 0, "index query limit must be positive");
}

Status IndexService::load() {
  FERRY_ASSERT(files_.empty(), "IndexService::load() called twice on {}", dir_);
  FERRY_TRY(fs_.create_dirs(dir_));
  auto names = fs_.list(dir_);
  if (!names.ok()) return std::move(names).error();
  for (const std::string& name : *names) {
    const auto ms = parse_time_file_name(name);
    const std::string path = join_path(dir_, name);
    if (!ms) {
      return Error(Errc::corrupt, fmt::format("{}: not an index file name (yyyyMMddHHmmssSSS)", path));
    }
    FERRY_ASSERT(*ms > last_name_ms_, "index names out of order at {}", path);
    last_name_ms_ = *ms;
    if (lost_from_) {  // newer than a lost file: lost too
      FERRY_TRY(fs_.remove(path));
      continue;
    }
    auto f = IndexFile::open(fs_, path, geometry_);
    if (!f.ok()) {
      if (!f.error().is(Errc::corrupt)) return std::move(f).error();
      // Never synced whole (a crash cut its size or header): drop it and every newer file;
      // dispatch re-indexes from the end of the last good file.
      lost_from_ = files_.empty() ? PhysicalOffset(0) : files_.back().file->header().end_phy_offset;
      lost_detail_ = f.error().detail;
      FERRY_TRY(fs_.remove(path));
      continue;
    }
    files_.push_back(Entry{std::shared_ptr<IndexFile>(std::move(*f)), false});
  }
  return {};
}

Result<IndexFile*> IndexService::writable_file() {
  if (!files_.empty() && !files_.back().file->full()) {
    files_.back().dirty = true;
    return files_.back().file.get();
  }
  FERRY_TRY(roll_over());
  return files_.back().file.get();
}

Status IndexService::roll_over() {
  const WallMs ms = std::max<WallMs>(clock_.wall_ms(), last_name_ms_ + 1);
  const std::string path = join_path(dir_, time_file_name(ms));
  FERRY_TRY(check_room_for_file(fs_, FileRoom{"index", 0}, geometry_.file_size()));
  FERRY_TRY(fs_.create_dirs(dir_));
  auto f = IndexFile::create(fs_, path, geometry_);
  if (!f.ok()) return std::move(f).error();
  last_name_ms_ = ms;
  files_.push_back(Entry{std::shared_ptr<IndexFile>(std::move(*f)), true});
  return {};
}

Status IndexService::put(std::string_view topic, std::string_view key, PhysicalOffset offset,
                         WallMs ts) {
  key_buffer_.assign(topic);
  key_buffer_.push_back('#');
  key_buffer_.append(key);
  // At most two attempts: a full file is replaced by a new, empty one.
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto f = writable_file();
    if (!f.ok()) return std::move(f).error();
    auto put = (*f)->put(key_buffer_, offset, ts);
    if (!put.ok()) return std::move(put).error();
    if (*put) return {};
  }
  FERRY_UNREACHABLE("a new index file in {} refused a key", dir_);
}

namespace {

// Calls `fn` with each non-empty space-separated key of a KEYS property, stopping at its first
// error.
template <typename Fn>
Status for_each_key(std::string_view keys, Fn&& fn) {
  while (!keys.empty()) {
    const auto space = keys.find(' ');
    const std::string_view key = keys.substr(0, space);
    if (!key.empty()) FERRY_TRY(fn(key));
    if (space == std::string_view::npos) break;
    keys.remove_prefix(space + 1);
  }
  return {};
}

}  // namespace

Status IndexService::build(const IndexRequest& r) {
  FERRY_ASSERT(!r.topic.empty(), "index request without a topic at offset {}", r.offset.value());
  FERRY_ASSERT(r.offset.value() >= 0, "index request at negative offset {}", r.offset.value());
  if (sysflag::transaction_type(r.sys_flag) == sysflag::kTransactionRollbackType) return {};
  // Replay: the newest file that holds keys ends at or past this record (a newer file may be empty:
  // one rolled over for a record that then failed).
  for (auto it = files_.rbegin(); it != files_.rend(); ++it) {
    const IndexHeader& h = it->file->header();
    if (h.index_count == index::kFirstEntry) continue;
    if (r.offset <= h.end_phy_offset) return {};
    break;
  }
  // A record goes in whole or not at all: a failed one is indexed again from its first key, and
  // the replay check above would skip a record whose first keys went in. So when its keys do not
  // fit what the newest file has left, the next file is made first (any error, no_space or EIO,
  // then leaves nothing of the record indexed). Only a record with more keys than a whole file
  // holds is split across files, and a failure can still cut it.
  std::int64_t keys = r.uniq_key.empty() ? 0 : 1;
  (void)for_each_key(r.keys, [&](std::string_view) {
    ++keys;
    return Status{};
  });
  const std::int64_t left = files_.empty() ? 0 : geometry_.entries - files_.back().file->header().index_count;
  const bool newest_empty = !files_.empty() && files_.back().file->header().index_count == index::kFirstEntry;
  if (keys > left && !newest_empty) FERRY_TRY(roll_over());
  if (!r.uniq_key.empty()) FERRY_TRY(put(r.topic, r.uniq_key, r.offset, r.store_timestamp_ms));
  return for_each_key(r.keys, [&](std::string_view key) { return put(r.topic, key, r.offset, r.store_timestamp_ms); });
}

Result<IndexQueryResult> IndexService::query(std::string_view topic, std::string_view key,
                                             std::size_t max_results, WallMs begin_ms,
                                             WallMs end_ms) const {
  IndexQueryResult result;
  const std::size_t limit = std::min(max_results, query_results_max_);
  if (files_.empty() || limit == 0) return result;
  result.last_update_timestamp_ms = files_.back().file->header().end_timestamp_ms;
  result.last_update_phy_offset = files_.back().file->header().end_phy_offset;
  std::string full_key(topic);
  full_key.push_back('#');
  full_key.append(key);
  std::vector<PhysicalOffset> found;
  for (auto it = files_.rbegin(); it != files_.rend() && result.offsets.size() < limit; ++it) {
    const IndexFile& f = *it->file;
    if (!f.time_overlaps(begin_ms, end_ms)) continue;
    found.clear();
    FERRY_TRY(f.query(full_key, limit, begin_ms, end_ms, found));
    for (const PhysicalOffset off : found) {
      if (result.offsets.size() >= limit) break;
      if (std::find(result.offsets.begin(), result.offsets.end(), off) == result.offsets.end()) {
        result.offsets.push_back(off);
      }
    }
  }
  FERRY_ASSERT_LE(result.offsets.size(), limit);
  return result;
}

Result<std::size_t> IndexService::remove_files_before(PhysicalOffset log_min) {
  std::size_t removed = 0;
  while (files_.size() > 1 && files_.front().file->header().end_phy_offset < log_min) {
    const std::string path = files_.front().file->path();
    files_.erase(files_.begin());
    FERRY_TRY(fs_.remove(path));
    ++removed;
  }
  return removed;
}

std::optional<PhysicalOffset> IndexService::reindex_from_if_removed(PhysicalOffset log_end) const {
  std::optional<PhysicalOffset> from;
  for (auto it = files_.rbegin(); it != files_.rend(); ++it) {
    const IndexHeader& h = it->file->header();
    const bool empty = h.index_count == index::kFirstEntry;
    if (!empty && h.end_phy_offset < log_end) break;
    if (!empty) from = h.begin_phy_offset;
  }
  return from;
}

Result<std::optional<PhysicalOffset>> IndexService::remove_files_from(PhysicalOffset log_end) {
  std::optional<PhysicalOffset> from;
  while (!files_.empty()) {
    const IndexHeader& h = files_.back().file->header();
    const bool empty = h.index_count == index::kFirstEntry;
    if (!empty && h.end_phy_offset < log_end) break;
    if (!empty) from = h.begin_phy_offset;
    const std::string path = files_.back().file->path();
    files_.pop_back();
    FERRY_TRY(fs_.remove(path));
  }
  return from;
}

Result<std::int32_t> IndexService::repair_newest() {
  if (files_.empty()) return 0;
  auto n = files_.back().file->repair_slots();
  if (n.ok() && *n > 0) files_.back().dirty = true;
  return n;
}

Task<Status> IndexService::flush() {
  std::vector<std::shared_ptr<IndexFile>> dirty;
  for (Entry& e : files_) {
    if (!e.dirty) continue;
    dirty.push_back(e.file);
    e.dirty = false;
  }
  for (const auto& f : dirty) {
    Status st = co_await f->flush();
    if (!st.ok()) {
      // Mark what may still be unsynced as dirty again (files still present).
      for (Entry& e : files_) {
        if (std::find(dirty.begin(), dirty.end(), e.file) != dirty.end()) e.dirty = true;
      }
      co_return st;
    }
  }
  co_return Status{};
}

}  // namespace ferry::store
