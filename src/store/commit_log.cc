#include "store/commit_log.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "common/record_format.h"
#include "common/record_writer.h"
#include "runtime/assert.h"
#include "store/dispatch_rules.h"
#include "store/file_names.h"
#include "store/log_damage.h"

namespace ferry::store {

namespace {
constexpr auto kBlank = static_cast<std::int64_t>(record::kBlankBytes);

// The record format's CRC covers the body only. A crash that loses a sector of an unsynced
// record (disks tear writes at sector granularity; the sector then reads as zeros) inside its
// PROPERTIES leaves lengths and body CRC intact. Such a record is recognised by a sector-aligned
// run of zeros in the properties reaching the end of that sector or of the record: encoded
// properties are text ("key\x01value\x02...") and never hold NUL runs in practice. A lost
// sector anywhere else zeroes a length (caught by the length checks), the TOTALSIZE at the
// record's start (reads as unwritten), or body bytes (caught by the CRC unless they were zeros
// already, which changes nothing). Returns a description when torn.
//
// The lost part need not start at a sector boundary: a slave appends what replication brings, cut
// anywhere, so a sync may make a record's first bytes durable and the crash lose the rest of the
// sector (it reads as the zeros the file was made of). Any lost suffix shows as properties ending
// in a zero byte, which text never does.
constexpr std::int64_t kTornSectorBytes = 512;  // the finest sector size (4 KiB is a multiple)

std::optional<std::string> torn_properties(Bytes record, std::int64_t record_offset,
                                           std::string_view properties) {
  if (properties.empty()) return std::nullopt;
  const auto* base = record.data();
  const auto* props = reinterpret_cast<const std::uint8_t*>(properties.data());
  FERRY_ASSERT(props >= base && props + properties.size() <= base + record.size(),
               "properties of the record at {} lie outside it", record_offset);
  const std::int64_t props_begin = record_offset + (props - base);
  const std::int64_t props_end = props_begin + static_cast<std::int64_t>(properties.size());
  if (properties.back() == '\0') {
    const auto last_text = properties.find_last_not_of('\0');
    const std::int64_t zeros_from = props_begin + (last_text == std::string_view::npos ? 0 : static_cast<std::int64_t>(last_text) + 1);
    return fmt::format("properties [{}, {}) of the record at {} end in zeros from {}: the end of an unsynced write "
                       "was lost", props_begin, props_end, record_offset, zeros_from);
  }
  std::int64_t b = props_begin + (kTornSectorBytes - props_begin % kTornSectorBytes) % kTornSectorBytes;
  for (; b < props_end; b += kTornSectorBytes) {
    const std::int64_t e = std::min(b + kTornSectorBytes, props_end);
    const auto* p = props + (b - props_begin);
    if (std::all_of(p, p + (e - b), [](std::uint8_t x) { return x == 0; })) {
      return fmt::format("properties [{}, {}) of the record at {} are zeros from the sector "
                         "boundary {}: a lost sector", props_begin, props_end, record_offset, b);
    }
  }
  return std::nullopt;
}

// A new CommitLog file must leave room for one ConsumeQueue file and one index file besides
// itself. A record the CommitLog takes but no ConsumeQueue or index file can index is stored yet
// invisible to consumers, and stops every write until space returns (the indexing-failure path
// of message_store.h); a send refused up front is retried by its producer on another broker. So
// the log stops first, while the files indexing its last records need can still be made (the
// ConsumeQueue and index files themselves keep no reserve: they only index what is stored).
FileRoom commit_log_room(const StoreConfig& config) {
  const std::int64_t queue_file = config.consume_queue_units_per_file * static_cast<std::int64_t>(cq::kUnitBytes);
  return FileRoom{"CommitLog", queue_file + config.index_geometry.file_size()};
}

}  // namespace

CommitLog::CommitLog(FileSystem& fs, const StoreConfig& config)
    : config_(config),
      files_(fs, join_path(config.root, "commitlog"), config.commit_log_file_size_bytes, commit_log_room(config)) {
  FERRY_ASSERT(config.message_size_max_bytes >= static_cast<std::int64_t>(record::kMinRecordBytes),
               "message_size_max_bytes {} is below the smallest record", config.message_size_max_bytes);
  FERRY_ASSERT(config.commit_log_file_size_bytes >= config.message_size_max_bytes + kBlank,
               "a CommitLog file of {} bytes cannot hold a {}-byte message and its BLANK marker",
               config.commit_log_file_size_bytes, config.message_size_max_bytes);
}

Status CommitLog::load() { return files_.load(); }

RecordDecodeOptions CommitLog::recovery_options() const {
  RecordDecodeOptions options;
  options.check_crc = true;
  options.size_bytes_max = static_cast<std::size_t>(config_.message_size_max_bytes);
  return options;
}

Result<RecoveryReport> CommitLog::recover(std::size_t first_file_index, PhysicalOffset durable_below) {
  RecoveryReport report;
  if (files_.empty()) return report;
  const std::size_t first = std::min(first_file_index, files_.file_count() - 1);
  std::int64_t end = files_.file_at(first)->start_offset();
  const RecordDecodeOptions options = recovery_options();
  bool stopped = false;
  for (std::size_t i = first; i < files_.file_count() && !stopped; ++i) {
    MappedFile* f = files_.file_at(i);
    FERRY_ASSERT_EQ(f->start_offset(), end);
    auto view = f->view(0, f->file_size());
    if (!view.ok()) return std::move(view).error();
    std::int64_t pos = 0;
    while (true) {
      if (pos == f->file_size()) break;  // exactly full (cannot happen with BLANK, but harmless)
      const Bytes bytes = view->bytes();
      const RecordRead r = decode_record(bytes.subspan(static_cast<std::size_t>(pos)), options);
      std::string bad;  // why the record at `pos` is not valid; empty when it is
      if (r.kind == RecordKind::blank) {
        if (static_cast<std::int64_t>(r.size_bytes) == f->file_size() - pos) {
          end = f->end_offset();
          break;
        }
        bad = fmt::format("{} at {}: BLANK claims {} bytes but {} are left", f->path(), pos, r.size_bytes,
                          f->file_size() - pos);
      } else if (r.kind == RecordKind::message && r.fields.physical_offset.value() != f->start_offset() + pos) {
        bad = fmt::format("{} at {}: a stale record claiming offset {}", f->path(), pos, r.fields.physical_offset.value());
      } else if (r.kind == RecordKind::message) {
        if (auto torn = torn_properties(bytes.subspan(static_cast<std::size_t>(pos), r.size_bytes),
                                        f->start_offset() + pos, r.fields.properties)) {
          bad = fmt::format("{} at {}: torn record: {}", f->path(), pos, *torn);
        }
      } else if (r.kind == RecordKind::unwritten) {
        bad = "unwritten";
      } else {
        bad = fmt::format("{} at {}: {} record: {}", f->path(), pos, record_kind_name(r.kind), r.detail);
      }
      if (bad.empty()) {
        pos += static_cast<std::int64_t>(r.size_bytes);
        end = f->start_offset() + pos;
        if (!is_damage_filler(r.fields.topic)) ++report.records;
        continue;
      }
      auto skip_to = judge_bad_record(PhysicalOffset(f->start_offset() + pos), bad, durable_below, report);
      if (!skip_to.ok()) return std::move(skip_to).error();
      if (!*skip_to) {
        stopped = true;
        break;
      }
      // Skipped: the range now reads as fillers (or a BLANK); read it again from `pos`.
      view = f->view(0, f->file_size());
      if (!view.ok()) return std::move(view).error();
    }
  }
  report.end = PhysicalOffset(end);
  // Everything after `end` up to the first zero bytes was written but is not valid.
  MappedFile* tail = files_.find(end);
  if (tail != nullptr) {
    auto rest = tail->view(end - tail->start_offset(), tail->file_size());
    if (!rest.ok()) return std::move(rest).error();
    std::int64_t dirty = 0;
    const Bytes b = rest->bytes();
    for (std::size_t k = 0; k < b.size(); ++k) {
      if (b[k] != 0) dirty = static_cast<std::int64_t>(k) + 1;
    }
    report.dropped_bytes = dirty;
  }
  for (std::size_t k = 0; k < files_.file_count(); ++k) {
    if (files_.file_at(k)->start_offset() >= end) ++report.files_removed;
  }
  FERRY_TRY(files_.truncate(end));
  FERRY_ASSERT_EQ(files_.max_offset(), files_.empty() ? 0 : end);
  return report;
}

Result<std::optional<PhysicalOffset>> CommitLog::judge_bad_record(PhysicalOffset bad, const std::string& why,
                                                                  PhysicalOffset durable_below,
                                                                  RecoveryReport& report) {
  using Skip = std::optional<PhysicalOffset>;
  report.reason = why;
  // Past what is known synced, damage is what a crash leaves: unsynced writes may be lost, torn
  // or kept in any order, so valid records after a bad one prove nothing.
  if (bad >= durable_below) return Skip();
  auto next = find_next_valid_record(files_, bad + 1, recovery_options());
  if (!next.ok()) return std::move(next).error();
  if (!*next) return Skip();  // nothing valid after it: a torn tail
  const PhysicalOffset good = **next;
  auto later = count_good_data(files_, good, recovery_options());
  if (!later.ok()) return std::move(later).error();
  FERRY_ASSERT(later->records > 0, "a valid record at {} but none counted from it", good.value());
  MappedFile* f = files_.find(bad.value());
  FERRY_ASSERT(f != nullptr, "bad record at {} outside the log", bad.value());
  switch (config_.recover_mode) {
    case RecoverMode::abort:
      return Error(Errc::corrupt,
                   fmt::format("CommitLog corrupt in the middle: {} at offset {} (file position {}): {}; {} valid "
                               "record(s), {} bytes, follow it (the next at offset {}, the last ending at {}, in {} "
                               "file(s)). Refusing to start: restart with --recover=truncate to discard them, or "
                               "--recover=skip to keep them and lose only the damaged range (broker.conf recoverMode; "
                               "see docs/operations.md, Recovery)",
                               f->path(), bad.value(), bad.value() - f->start_offset(), why, later->records,
                               later->bytes, good.value(), later->last_end.value(), later->files));
    case RecoverMode::truncate:
      report.discarded_records = later->records;
      report.discarded_bytes = later->bytes;
      return Skip();
    case RecoverMode::skip: {
      FERRY_TRY(skip_damaged_range(bad, good, why, report));
      return Skip(report.skipped.back().to);
    }
  }
  FERRY_ASSERT(false, "recover mode {} unknown", static_cast<int>(config_.recover_mode));
  return Skip();
}

Status CommitLog::skip_damaged_range(PhysicalOffset bad, PhysicalOffset good, const std::string& why,
                                     RecoveryReport& report) {
  if (report.skipped.size() >= kDamagedRangesMax) {
    return Error(Errc::corrupt, fmt::format("CommitLog damaged in more than {} places (the last at offset {}: {}); "
                                            "not repairing a disk in this state: restore the store from a replica",
                                            kDamagedRangesMax, bad.value(), why));
  }
  if (config_.message_size_max_bytes < 2 * filler_bytes_min()) {
    return Error(Errc::invalid_argument,
                 fmt::format("recover mode skip needs maxMessageSize of at least {} bytes to mark the damaged range "
                             "at offset {} ({}); it is {}", 2 * filler_bytes_min(), bad.value(), why,
                             config_.message_size_max_bytes));
  }
  MappedFile* f = files_.find(bad.value());
  FERRY_ASSERT(f != nullptr, "damaged range at {} outside the log", bad.value());
  const std::int64_t pos = bad.value() - f->start_offset();
  PhysicalOffset to = good;
  std::string note;
  if (!f->contains(good.value())) {
    // The good data is in a later file: the rest of this one is damaged.
    FERRY_TRY(mark_to_file_end(*f, pos));
    to = PhysicalOffset(f->end_offset());
  } else {
    // A range too small for a filler takes the valid records after it along (records are at
    // least kMinRecordBytes, so this adds one or two).
    const RecordDecodeOptions options = recovery_options();
    std::int64_t taken = 0;
    while (to - bad < filler_bytes_min()) {
      auto v = view_to_file_end(to);
      if (!v.ok()) return std::move(v).error();
      const RecordRead r = decode_record(v->bytes(), options);
      if (r.kind != RecordKind::message) break;
      to += static_cast<std::int64_t>(r.size_bytes);
      ++taken;
    }
    if (taken > 0) {
      note = fmt::format(" (and {} valid record(s) after it: the damage alone was too small to mark)", taken);
    }
    if (to - bad >= filler_bytes_min() && to.value() <= f->end_offset() - kBlank) {
      FERRY_TRY(write_fillers(*f, pos, to.value() - f->start_offset(), config_.message_size_max_bytes));
    } else {
      FERRY_TRY(mark_to_file_end(*f, pos));
      to = PhysicalOffset(f->end_offset());
    }
  }
  FERRY_ASSERT(to > bad, "damaged range [{}, {}) is empty", bad.value(), to.value());
  report.skipped.push_back(DamagedRange{bad, to, why + note});
  return {};
}

Status CommitLog::append_raw(PhysicalOffset at, Bytes data) {
  const std::int64_t size = files_.file_size();
  if (files_.empty()) {
    if (at.value() < 0 || at.value() % size != 0) {
      return Error(Errc::invalid_argument,
                   fmt::format("replicated bytes at {} on an empty log: not the start of a {}-byte file", at.value(), size));
    }
  } else if (at.value() != files_.max_offset()) {
    return Error(Errc::invalid_argument,
                 fmt::format("replicated bytes at {}, but the log ends at {}", at.value(), files_.max_offset()));
  }
  if (data.empty()) return {};
  auto file = files_.file_for_append(at.value());
  if (!file.ok()) return std::move(file).error();
  MappedFile* f = *file;
  FERRY_ASSERT_EQ(f->start_offset() + f->write_position(), at.value());
  if (static_cast<std::int64_t>(data.size()) > f->remaining()) {
    return Error(Errc::invalid_argument,
                 fmt::format("{} replicated bytes at {} cross the end of the file ending at {}", data.size(),
                             at.value(), f->end_offset()));
  }
  return f->append(data);
}

Result<MappedFile*> CommitLog::file_with_room(std::int64_t total_bytes) {
  auto f = files_.file_for_append(0);
  if (!f.ok()) return std::move(f).error();
  if (total_bytes + kBlank <= (*f)->remaining()) return *f;
  // Close the file with the BLANK marker and roll over, once the next file is sure to be had
  // (a refused roll-over leaves the current file open for records that still fit it).
  FERRY_TRY(files_.check_room_for_next());
  FERRY_TRY(close_with_blank(**f));
  f = files_.file_for_append(0);
  if (!f.ok()) return std::move(f).error();
  FERRY_ASSERT(total_bytes + kBlank <= (*f)->remaining(), "{} bytes do not fit a new file of {}",
               total_bytes, (*f)->file_size());
  return *f;
}

Status CommitLog::close_with_blank(MappedFile& f) {
  const std::int64_t left = f.remaining();
  FERRY_ASSERT(left >= kBlank, "{} has {} bytes left, fewer than a BLANK marker", f.path(), left);
  std::array<std::uint8_t, record::kBlankBytes> blank{};
  encode_blank(static_cast<std::size_t>(left), blank);
  FERRY_TRY(f.append(blank));
  f.mark_full();
  FERRY_ASSERT(f.full(), "{} not full after its BLANK marker", f.path());
  return {};
}

Status CommitLog::roll() {
  MappedFile* f = files_.last_file();
  if (f == nullptr || f->write_position() == 0 || f->full()) return {};
  const std::int64_t end_before = files_.max_offset();
  FERRY_TRY(close_with_blank(*f));
  FERRY_ASSERT(files_.max_offset() > end_before, "rolling {} did not move the log end {}", f->path(), end_before);
  return {};
}

AppendResult CommitLog::append(std::span<RecordFields> records, WallMs store_timestamp_ms) {
  FERRY_ASSERT(!records.empty(), "append of no records");
  AppendResult result;
  std::int64_t total = 0;
  std::vector<std::size_t>& sizes = sizes_;
  sizes.clear();
  for (RecordFields& r : records) {
    auto size = record_size(r);
    if (!size.ok()) {
      result.status = AppendStatus::invalid_fields;
      result.detail = size.error().detail;
      return result;
    }
    if (static_cast<std::int64_t>(*size) > config_.message_size_max_bytes) {
      result.status = AppendStatus::message_illegal;
      result.detail = fmt::format("a record of {} bytes exceeds the {}-byte limit", *size,
                                  config_.message_size_max_bytes);
      return result;
    }
    sizes.push_back(*size);
    total += static_cast<std::int64_t>(*size);
  }
  if (total + kBlank > files_.file_size()) {
    result.status = AppendStatus::message_illegal;
    result.detail = fmt::format("a batch of {} bytes does not fit a {}-byte CommitLog file", total,
                                files_.file_size());
    return result;
  }
  auto file = file_with_room(total);
  if (!file.ok()) {
    // A refused roll-over's detail is the operator's line ("disk full: the next CommitLog file
    // needs N bytes, M free"); other errors carry their code.
    result.status = file.error().is(Errc::no_space) ? AppendStatus::no_space : AppendStatus::io_error;
    result.detail = file.error().is(Errc::no_space) ? file.error().detail : file.error().to_string();
    return result;
  }
  MappedFile* f = *file;
  const std::int64_t start = f->start_offset() + f->write_position();
  buffer_.resize(static_cast<std::size_t>(total));
  std::size_t at = 0;
  for (std::size_t i = 0; i < records.size(); ++i) {
    records[i].physical_offset = PhysicalOffset(start + static_cast<std::int64_t>(at));
    records[i].store_timestamp_ms = store_timestamp_ms;
    const std::size_t n = encode_record(records[i], MutableBytes(buffer_).subspan(at, sizes[i]));
    FERRY_ASSERT_EQ(n, sizes[i]);
    at += n;
  }
  FERRY_ASSERT_EQ(static_cast<std::int64_t>(at), total);
  Status st = f->append(buffer_);
  if (!st.ok()) {
    result.status = st.error().is(Errc::no_space) ? AppendStatus::no_space : AppendStatus::io_error;
    result.detail = st.error().to_string();
    return result;
  }
  result.wrote_offset = PhysicalOffset(start);
  result.wrote_bytes = total;
  FERRY_ASSERT_EQ(files_.max_offset(), start + total);
  // Track the file's age only once it is known (a file loaded from disk is walked on demand).
  auto age = newest_timestamp_.find(f->start_offset());
  if (age != newest_timestamp_.end()) {
    age->second = std::max(age->second, store_timestamp_ms);
  } else if (start == f->start_offset()) {
    newest_timestamp_.emplace(f->start_offset(), store_timestamp_ms);
  }
  return result;
}

Result<WallMs> CommitLog::newest_store_timestamp(std::size_t file_index) {
  MappedFile* f = files_.file_at(file_index);
  auto cached = newest_timestamp_.find(f->start_offset());
  if (cached != newest_timestamp_.end()) return cached->second;
  auto view = f->view(0, f->write_position());
  if (!view.ok()) return std::move(view).error();
  RecordDecodeOptions options;
  options.check_crc = false;  // recovery checked what it kept; only the timestamps matter here
  options.size_bytes_max = static_cast<std::size_t>(config_.message_size_max_bytes);
  const Bytes bytes = view->bytes();
  WallMs newest = 0;
  std::size_t pos = 0;
  std::int64_t records = 0;
  while (pos < bytes.size()) {
    const RecordRead r = decode_record(bytes.subspan(pos), options);
    if (r.kind != RecordKind::message) break;  // BLANK, or the end of the written records
    FERRY_ASSERT(r.size_bytes > 0, "zero-sized record at {} of {}", pos, f->path());
    newest = std::max(newest, r.fields.store_timestamp_ms);
    pos += r.size_bytes;
    ++records;
  }
  FERRY_ASSERT_LE(pos, bytes.size());
  // Cache only a file that no longer grows; the last file is walked again next time (it is
  // never removed, so cleanup does not ask for it).
  if (file_index + 1 < files_.file_count()) newest_timestamp_.emplace(f->start_offset(), newest);
  return newest;
}

Result<std::size_t> CommitLog::remove_expired(WallMs now_ms, Duration reserved, bool at_once,
                                              std::size_t files_max) {
  FERRY_ASSERT(reserved >= Duration::zero(), "negative retention {} ns", reserved.count());
  std::size_t removed = 0;
  while (files_.file_count() > 1 && removed < files_max) {
    if (!at_once) {
      auto newest = newest_store_timestamp(0);
      if (!newest.ok()) return std::move(newest).error();
      if (now_ms < *newest + to_ms(reserved)) break;
    }
    const std::int64_t start = files_.min_offset();
    auto n = files_.remove_files_before(files_.first_file()->end_offset());
    if (!n.ok()) return std::move(n).error();
    FERRY_ASSERT_EQ(*n, std::size_t{1});
    newest_timestamp_.erase(start);
    ++removed;
  }
  FERRY_ASSERT_LE(removed, files_max);
  return removed;
}

Result<FileView> CommitLog::view(PhysicalOffset offset, std::int32_t size) const {
  FERRY_ASSERT(size > 0, "view of {} bytes at {}", size, offset.value());
  MappedFile* f = files_.find(offset.value());
  if (f == nullptr || offset.value() - f->start_offset() + size > f->write_position()) {
    return Error(Errc::not_found, fmt::format("no CommitLog data at [{}, {})", offset.value(),
                                              offset.value() + size));
  }
  return f->view(offset.value() - f->start_offset(), size);
}

Result<FileView> CommitLog::view_to_file_end(PhysicalOffset offset) const {
  MappedFile* f = files_.find(offset.value());
  if (f == nullptr || offset.value() - f->start_offset() > f->write_position()) {
    return Error(Errc::not_found, fmt::format("no CommitLog file holds offset {}", offset.value()));
  }
  return f->view(offset.value() - f->start_offset(), f->file_size());
}

PhysicalOffset CommitLog::next_file_start(PhysicalOffset offset) const {
  const std::int64_t size = files_.file_size();
  return PhysicalOffset(offset.value() - offset.value() % size + size);
}

Result<WallMs> CommitLog::store_timestamp(PhysicalOffset offset, std::int32_t size) const {
  auto v = view(offset, size);
  if (!v.ok()) return std::move(v).error();
  RecordDecodeOptions options;
  options.check_crc = false;
  options.size_bytes_max = static_cast<std::size_t>(config_.message_size_max_bytes);
  const RecordRead r = decode_record(v->bytes(), options);
  if (r.kind != RecordKind::message) {
    return Error(Errc::corrupt, fmt::format("record at {}: {} ({})", offset.value(),
                                            record_kind_name(r.kind), r.detail));
  }
  return r.fields.store_timestamp_ms;
}

}  // namespace ferry::store
