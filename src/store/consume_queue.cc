#include "store/consume_queue.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "runtime/assert.h"
#include "store/file_names.h"

namespace ferry::store {

namespace {
constexpr auto kUnit = static_cast<std::int64_t>(cq::kUnitBytes);
}

ConsumeQueue::ConsumeQueue(FileSystem& fs, const std::string& store_root, std::string topic,
                           QueueId queue_id, std::int64_t units_per_file)
    : topic_(std::move(topic)),
      queue_id_(queue_id),
      units_per_file_(units_per_file),
      files_(fs, directory(store_root, topic_, queue_id), units_per_file * kUnit,
             FileRoom{fmt::format("ConsumeQueue {}:{}", topic_, queue_id.value()), 0}) {
  FERRY_ASSERT(units_per_file > 0, "ConsumeQueue {}:{} with {} units per file", topic_,
               queue_id.value(), units_per_file);
  FERRY_ASSERT(queue_id.value() >= 0, "ConsumeQueue {} with negative queue id {}", topic_,
               queue_id.value());
}

std::string ConsumeQueue::directory(const std::string& store_root, const std::string& topic,
                                    QueueId queue_id) {
  return join_path(join_path(join_path(store_root, "consumequeue"), topic),
                   std::to_string(queue_id.value()));
}

QueueOffset ConsumeQueue::max_offset() const { return QueueOffset(files_.max_offset() / kUnit); }

QueueOffset ConsumeQueue::flushed_offset() const {
  return QueueOffset(files_.flushed_offset() / kUnit);
}

Status ConsumeQueue::load_and_recover(bool scan_all) {
  FERRY_TRY(files_.load());
  if (files_.empty()) {
    min_offset_ = QueueOffset(0);
    return {};
  }
  // After a clean stop scan the last three files (RocketMQ's recover()): earlier ones are full
  // and synced.
  const std::size_t count = files_.file_count();
  const std::size_t first = (scan_all || count <= 3) ? 0 : count - 3;
  std::int64_t end = files_.file_at(first)->start_offset();
  bool stop = false;
  for (std::size_t i = first; i < count && !stop; ++i) {
    MappedFile* f = files_.file_at(i);
    auto view = f->view(0, f->file_size());
    if (!view.ok()) return std::move(view).error();
    const Bytes bytes = view->bytes();
    FERRY_ASSERT_EQ(static_cast<std::int64_t>(bytes.size()), f->file_size());
    for (std::int64_t pos = 0; pos + kUnit <= f->file_size(); pos += kUnit) {
      const cq::Unit u = cq::decode_unit(bytes.data() + pos);
      if (!u.is_message() && !u.is_pre_blank()) {
        stop = true;
        break;
      }
      end = f->start_offset() + pos + kUnit;
    }
  }
  FERRY_TRY(files_.truncate(end));
  // The first message unit of the first file is the minimum.
  min_offset_ = QueueOffset(files_.min_offset() / kUnit);
  while (min_offset_ < max_offset()) {
    auto u = read_any(min_offset_);
    if (!u.ok()) return std::move(u).error();
    if (!u->is_pre_blank()) break;
    min_offset_ += 1;
  }
  return {};
}

std::optional<PhysicalOffset> ConsumeQueue::last_record_end() const {
  if (max_offset() <= min_offset_) return std::nullopt;
  auto u = read_any(max_offset() - 1);
  if (!u.ok() || !u->is_message()) return std::nullopt;
  return u->end();
}

Result<cq::Unit> ConsumeQueue::read_any(QueueOffset at) const {
  FERRY_ASSERT(at.value() >= 0 && at < max_offset(), "read of unit {} of {}:{} beyond max {}",
               at.value(), topic_, queue_id_.value(), max_offset().value());
  const std::int64_t byte = unit_bytes_at(at);
  MappedFile* f = files_.find(byte);
  if (f == nullptr) {
    return Error(Errc::not_found, fmt::format("consume queue {}:{} has no file for offset {}",
                                              topic_, queue_id_.value(), at.value()));
  }
  std::array<std::uint8_t, cq::kUnitBytes> buf{};
  FERRY_TRY(f->read(byte - f->start_offset(), buf));
  return cq::decode_unit(buf.data());
}

Result<cq::Unit> ConsumeQueue::read(QueueOffset at) const {
  FERRY_ASSERT(at >= min_offset_, "read of unit {} of {}:{} below min {}", at.value(), topic_,
               queue_id_.value(), min_offset_.value());
  return read_any(at);
}

Result<FileView> ConsumeQueue::read_units(QueueOffset from, std::int64_t max_units) const {
  FERRY_ASSERT(max_units > 0, "read_units of {} units", max_units);
  FERRY_ASSERT(from >= min_offset_ && from < max_offset(),
               "read_units at {} of {}:{} outside [{}, {})", from.value(), topic_,
               queue_id_.value(), min_offset_.value(), max_offset().value());
  const std::int64_t byte = unit_bytes_at(from);
  MappedFile* f = files_.find(byte);
  if (f == nullptr) {
    return Error(Errc::not_found, fmt::format("consume queue {}:{} has no file for offset {}",
                                              topic_, queue_id_.value(), from.value()));
  }
  return f->view(byte - f->start_offset(), max_units * kUnit);
}

Status ConsumeQueue::write_unit(const cq::Unit& unit) {
  auto f = files_.file_for_append();
  if (!f.ok()) return std::move(f).error();
  std::array<std::uint8_t, cq::kUnitBytes> buf{};
  cq::encode_unit(unit, buf.data());
  return (*f)->append(buf);
}

Result<bool> ConsumeQueue::append(QueueOffset at, const cq::Unit& unit) {
  FERRY_ASSERT(unit.is_message(), "appending a non-message unit (offset {}, size {}) to {}:{}",
               unit.commit_log_offset.value(), unit.size, topic_, queue_id_.value());
  FERRY_ASSERT(at.value() >= 0, "append at negative queue offset {}", at.value());
  QueueOffset max = max_offset();
  if (files_.empty()) {
    // A queue starting past 0: its first file begins at the file boundary below `at`.
    const std::int64_t byte = unit_bytes_at(at);
    const std::int64_t file_start = byte - byte % files_.file_size();
    auto f = files_.file_for_append(file_start);
    if (!f.ok()) return std::move(f).error();
    for (std::int64_t pos = file_start; pos < byte; pos += kUnit) FERRY_TRY(write_unit(cq::pre_blank_unit()));
    FERRY_TRY(write_unit(unit));
    min_offset_ = at;
    return true;
  }
  if (at < max) {
    auto existing = read_any(at);
    if (!existing.ok()) return std::move(existing).error();
    if (*existing == unit) {
      // A replay after a crash. load() counted this unit durable, but it may be only in the page
      // cache (a killed process left it dirty; a failed fsync marked it clean unwritten), and the
      // checkpoint written after this replay will vouch for it: write the same bytes again and
      // mark the file for sync, so the queue flush that precedes that checkpoint makes them
      // durable (as the CommitLog's rewrite_for_sync does for the log).
      FERRY_TRY(rewrite_unit(at, unit));
      return false;
    }
    // A unit that disagrees with the log was torn by a crash (its sectors are lost or kept
    // independently, e.g. the tagsCode half of a unit straddling a sector boundary): the log is
    // the truth, so the queue is cut here and rebuilt by the dispatch that is replaying it.
    FERRY_TRY(files_.truncate(unit_bytes_at(at)));
    if (files_.empty()) return append(at, unit);
    max = max_offset();
  }
  FERRY_ASSERT(at == max, "gap in {}:{}: append at {} but max offset is {}", topic_,
               queue_id_.value(), at.value(), max.value());
  FERRY_TRY(write_unit(unit));
  FERRY_ASSERT(max_offset() == at + 1, "{}:{} max offset {} after append at {}", topic_,
               queue_id_.value(), max_offset().value(), at.value());
  return true;
}

Status ConsumeQueue::rewrite_unit(QueueOffset at, const cq::Unit& unit) {
  const std::int64_t byte = unit_bytes_at(at);
  MappedFile* f = files_.find(byte);
  FERRY_ASSERT(f != nullptr, "{}:{} has no file for unit {} it holds", topic_, queue_id_.value(), at.value());
  std::array<std::uint8_t, cq::kUnitBytes> buf{};
  cq::encode_unit(unit, buf.data());
  FERRY_TRY(f->file().pwrite(static_cast<std::uint64_t>(byte - f->start_offset()), buf));
  f->require_sync();
  return {};
}

Result<std::int64_t> ConsumeQueue::mark_holes(std::span<const LogRange> ranges) {
  if (ranges.empty()) return std::int64_t{0};
  std::int64_t marked = 0;
  QueueOffset at = max_offset();
  const QueueOffset first = std::max(min_offset_, QueueOffset(files_.min_offset() / kUnit));
  while (at > first) {
    at = at - 1;
    auto u = read_any(at);
    if (!u.ok()) return std::move(u).error();
    if (!u->is_message()) continue;
    if (u->commit_log_offset < ranges.front().from) break;
    const bool inside = std::any_of(ranges.begin(), ranges.end(), [&](const LogRange& r) {
      return u->commit_log_offset >= r.from && u->commit_log_offset < r.to;
    });
    if (!inside) continue;
    FERRY_TRY(rewrite_unit(at, cq::hole_unit()));
    ++marked;
  }
  return marked;
}

Status ConsumeQueue::append_holes(QueueOffset to) {
  FERRY_ASSERT(!files_.empty(), "holes appended to the empty queue {}:{}", topic_, queue_id_.value());
  FERRY_ASSERT(to >= max_offset(), "holes up to {} in {}:{} below its max offset {}", to.value(), topic_,
               queue_id_.value(), max_offset().value());
  while (max_offset() < to) FERRY_TRY(write_unit(cq::hole_unit()));
  FERRY_ASSERT_EQ(max_offset().value(), to.value());
  return {};
}

Status ConsumeQueue::truncate_dirty(PhysicalOffset log_end, const UnitCheck& matches_log) {
  QueueOffset keep = max_offset();
  while (keep > min_offset_) {
    auto u = read_any(keep - 1);
    if (!u.ok()) return std::move(u).error();
    // Compared without computing end(): a garbage offset may be near INT64_MAX.
    const bool within = u->is_message() && u->commit_log_offset <= log_end &&
                        u->size <= log_end.value() - u->commit_log_offset.value();
    if (within && (!matches_log || matches_log(keep - 1, *u))) break;
    if (cq::is_hole(*u)) break;  // a message recovery lost on purpose: its offset stays taken
    keep = keep - 1;
  }
  if (keep == max_offset()) return {};
  FERRY_TRY(files_.truncate(unit_bytes_at(keep)));
  if (files_.empty()) min_offset_ = QueueOffset(0);
  min_offset_ = std::min(min_offset_, max_offset());
  FERRY_ASSERT_LE(min_offset_.value(), max_offset().value());
  return {};
}

Status ConsumeQueue::correct_min_offset(PhysicalOffset log_min) {
  QueueOffset at = std::max(min_offset_, QueueOffset(files_.min_offset() / kUnit));
  while (at < max_offset()) {
    auto u = read_any(at);
    if (!u.ok()) return std::move(u).error();
    if (u->is_message() && u->commit_log_offset >= log_min) break;
    at += 1;
  }
  min_offset_ = at;
  return {};
}

Result<std::size_t> ConsumeQueue::remove_files_before(PhysicalOffset log_min) {
  std::size_t removed = 0;
  while (files_.file_count() > 1) {
    MappedFile* first = files_.first_file();
    FERRY_ASSERT(first->full(), "non-last consume queue file {} is not full", first->path());
    // The file's last message unit (holes and pre-blanks point nowhere).
    std::optional<cq::Unit> last;
    for (std::int64_t b = first->end_offset() - kUnit; b >= first->start_offset() && !last; b -= kUnit) {
      auto u = read_any(QueueOffset(b / kUnit));
      if (!u.ok()) return std::move(u).error();
      if (u->is_message()) last = *u;
    }
    if (last && last->end() > log_min) break;
    auto n = files_.remove_files_before(first->end_offset());
    if (!n.ok()) return std::move(n).error();
    FERRY_ASSERT_EQ(*n, std::size_t{1});
    ++removed;
  }
  if (removed > 0) FERRY_TRY(correct_min_offset(log_min));
  return removed;
}

Result<std::optional<PhysicalOffset>> ConsumeQueue::last_message_end() const {
  const QueueOffset first(files_.min_offset() / kUnit);
  for (QueueOffset at = max_offset(); at > first;) {
    at = at - 1;
    auto u = read_any(at);
    if (!u.ok()) return std::move(u).error();
    if (u->is_message()) return std::optional<PhysicalOffset>(u->end());
  }
  return std::optional<PhysicalOffset>();
}

std::vector<std::string> ConsumeQueue::removal_order() const {
  std::vector<std::string> paths;
  paths.reserve(files_.file_count() + 1);
  for (std::size_t i = files_.file_count(); i > 0; --i) paths.push_back(files_.file_at(i - 1)->path());
  paths.push_back(files_.dir());
  return paths;
}

Status ConsumeQueue::remove_all() {
  FERRY_TRY(files_.remove_all());  // newest first: what a crash leaves is a contiguous prefix
  FERRY_ASSERT(files_.empty(), "{}:{} still has {} file(s) after remove_all", topic_, queue_id_.value(),
               files_.file_count());
  min_offset_ = QueueOffset(0);
  return {};
}

Result<QueueOffset> ConsumeQueue::offset_by_time(WallMs ts, const StoreTimeLookup& lookup) const {
  QueueOffset lo = min_offset_;
  QueueOffset hi = max_offset();
  // Invariant: every unit before lo is older than ts; every unit at or after hi is not.
  while (lo < hi) {
    const QueueOffset mid = lo + (hi - lo) / 2;
    auto u = read_any(mid);
    if (!u.ok()) return std::move(u).error();
    if (!u->is_message()) {  // a pre-blank: nothing before the queue's start is newer
      lo = mid + 1;
      continue;
    }
    auto stored = lookup(u->commit_log_offset, u->size);
    if (!stored.ok()) return std::move(stored).error();
    if (*stored < ts) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  FERRY_ASSERT(lo >= min_offset_ && lo <= max_offset(), "search result {} outside [{}, {}]",
               lo.value(), min_offset_.value(), max_offset().value());
  return lo;
}

}  // namespace ferry::store
