#include "store/index_file.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <limits>
#include <map>

#include "common/big_endian.h"
#include "common/java_hash.h"
#include "runtime/assert.h"

namespace ferry::store {

namespace {

void check_geometry(const IndexGeometry& g) {
  FERRY_ASSERT(g.slots > 0, "index geometry with {} slots", g.slots);
  FERRY_ASSERT(g.entries > index::kFirstEntry, "index geometry with {} entries", g.entries);
}

std::array<std::uint8_t, index::kHeaderBytes> encode_header(const IndexHeader& h) {
  std::array<std::uint8_t, index::kHeaderBytes> b{};
  store_be64(b.data() + index::kBeginTimestampPos, static_cast<std::uint64_t>(h.begin_timestamp_ms));
  store_be64(b.data() + index::kEndTimestampPos, static_cast<std::uint64_t>(h.end_timestamp_ms));
  store_be64(b.data() + index::kBeginPhyOffsetPos, static_cast<std::uint64_t>(h.begin_phy_offset.value()));
  store_be64(b.data() + index::kEndPhyOffsetPos, static_cast<std::uint64_t>(h.end_phy_offset.value()));
  store_be32(b.data() + index::kHashSlotCountPos, static_cast<std::uint32_t>(h.hash_slot_count));
  store_be32(b.data() + index::kIndexCountPos, static_cast<std::uint32_t>(h.index_count));
  return b;
}

IndexHeader decode_header(const std::uint8_t* b) {
  IndexHeader h;
  h.begin_timestamp_ms = static_cast<WallMs>(load_be64(b + index::kBeginTimestampPos));
  h.end_timestamp_ms = static_cast<WallMs>(load_be64(b + index::kEndTimestampPos));
  h.begin_phy_offset = PhysicalOffset(static_cast<std::int64_t>(load_be64(b + index::kBeginPhyOffsetPos)));
  h.end_phy_offset = PhysicalOffset(static_cast<std::int64_t>(load_be64(b + index::kEndPhyOffsetPos)));
  h.hash_slot_count = static_cast<std::int32_t>(load_be32(b + index::kHashSlotCountPos));
  h.index_count = static_cast<std::int32_t>(load_be32(b + index::kIndexCountPos));
  return h;
}

}  // namespace

IndexFile::IndexFile(std::unique_ptr<File> file, IndexGeometry geometry, IndexHeader header)
    : file_(std::move(file)), geometry_(geometry), header_(header) {}

Result<std::unique_ptr<IndexFile>> IndexFile::create(FileSystem& fs, const std::string& path,
                                                     IndexGeometry geometry) {
  check_geometry(geometry);
  OpenOptions opts;
  opts.create = true;
  opts.exclusive = true;
  auto file = fs.open(path, opts);
  if (!file.ok()) return std::move(file).error();
  Status sized = (*file)->truncate(static_cast<std::uint64_t>(geometry.file_size()));
  if (!sized.ok()) {
    // Not left behind half-made: the next attempt creates the same name exclusively.
    file->reset();
    Status removed = fs.remove(path);
    if (!removed.ok() && !removed.error().is(Errc::not_found)) return removed.error();
    return sized.error();
  }
  std::unique_ptr<IndexFile> f(new IndexFile(std::move(*file), geometry, IndexHeader{}));
  FERRY_TRY(f->write_header());
  return f;
}

Result<std::unique_ptr<IndexFile>> IndexFile::open(FileSystem& fs, const std::string& path,
                                                   IndexGeometry geometry) {
  check_geometry(geometry);
  auto file = fs.open(path, OpenOptions{});
  if (!file.ok()) return std::move(file).error();
  if ((*file)->size() != static_cast<std::uint64_t>(geometry.file_size())) {
    return Error(Errc::corrupt, fmt::format("{}: size {} bytes, expected {} ({} slots, {} entries)",
                                            path, (*file)->size(), geometry.file_size(),
                                            geometry.slots, geometry.entries));
  }
  std::array<std::uint8_t, index::kHeaderBytes> b{};
  auto got = (*file)->pread(0, b);
  if (!got.ok()) return std::move(got).error();
  IndexHeader h = decode_header(b.data());
  if (h.index_count == 0) h.index_count = index::kFirstEntry;  // created, header never written
  if (h.index_count < index::kFirstEntry || h.index_count > geometry.entries ||
      h.hash_slot_count < 0 || h.hash_slot_count > geometry.slots) {
    return Error(Errc::corrupt, fmt::format("{}: header counts out of range (indexCount {}, "
                                            "hashSlotCount {})", path, h.index_count,
                                            h.hash_slot_count));
  }
  // The header is rewritten by every put and has no checksum: a crash can garble it into values
  // that are in range but wrong. It must agree with the entries it describes: the last entry is
  // the newest put (its offset and time are the header's end), the first entry the oldest.
  if (h.index_count > index::kFirstEntry) {
    auto entry_at = [&](std::int32_t n) -> Result<std::array<std::uint8_t, index::kEntryBytes>> {
      std::array<std::uint8_t, index::kEntryBytes> e{};
      auto read = (*file)->pread(static_cast<std::uint64_t>(index::entry_pos(geometry.slots, n)), e);
      if (!read.ok()) return std::move(read).error();
      return e;
    };
    auto last = entry_at(h.index_count - 1);
    if (!last.ok()) return std::move(last).error();
    auto first = entry_at(index::kFirstEntry);
    if (!first.ok()) return std::move(first).error();
    const auto last_phy = static_cast<std::int64_t>(load_be64(last->data() + index::kEntryPhyOffsetPos));
    const auto last_diff = static_cast<std::int32_t>(load_be32(last->data() + index::kEntryTimeDiffPos));
    const auto last_prev = static_cast<std::int32_t>(load_be32(last->data() + index::kEntryPrevIndexPos));
    const auto first_phy = static_cast<std::int64_t>(load_be64(first->data() + index::kEntryPhyOffsetPos));
    std::int64_t want_diff = 0;
    if (h.index_count - 1 > index::kFirstEntry) {
      want_diff = std::clamp<std::int64_t>((h.end_timestamp_ms - h.begin_timestamp_ms) / 1000, 0,
                                           std::numeric_limits<std::int32_t>::max());
    }
    if (last_phy != h.end_phy_offset.value() || first_phy != h.begin_phy_offset.value() ||
        last_diff != want_diff || last_prev < 0 || last_prev >= h.index_count - 1) {
      return Error(Errc::corrupt,
                   fmt::format("{}: header disagrees with its entries (indexCount {}, begin/end offset "
                               "{}/{}, entries {} and {} at {}/{}, last timeDiff {} want {})",
                               path, h.index_count, h.begin_phy_offset.value(), h.end_phy_offset.value(),
                               index::kFirstEntry, h.index_count - 1, first_phy, last_phy, last_diff,
                               want_diff));
    }
  }
  return std::unique_ptr<IndexFile>(new IndexFile(std::move(*file), geometry, h));
}

Status IndexFile::write_header() {
  const auto b = encode_header(header_);
  return file_->pwrite(0, b);
}

Result<std::int32_t> IndexFile::read_i32(std::int64_t pos) const {
  std::array<std::uint8_t, 4> b{};
  auto got = file_->pread(static_cast<std::uint64_t>(pos), b);
  if (!got.ok()) return std::move(got).error();
  if (*got != b.size()) return Error(Errc::io_error, fmt::format("{}: short read at {}", path(), pos));
  return static_cast<std::int32_t>(load_be32(b.data()));
}

Result<bool> IndexFile::put(std::string_view key, PhysicalOffset offset, WallMs store_timestamp_ms) {
  FERRY_ASSERT(offset.value() >= 0, "index put of {} at negative offset {}", key, offset.value());
  if (full()) return false;
  const std::int32_t hash = index_key_hash(key);
  FERRY_ASSERT(hash >= 0, "index key hash {} of {} is negative", hash, key);
  const std::int32_t slot = hash % geometry_.slots;
  auto head = read_i32(index::slot_pos(slot));
  if (!head.ok()) return std::move(head).error();
  std::int32_t prev = *head;
  if (prev < index::kFirstEntry || prev >= header_.index_count) prev = 0;  // empty or stale

  std::int64_t diff_s = 0;
  if (header_.begin_timestamp_ms > 0) {
    diff_s = (store_timestamp_ms - header_.begin_timestamp_ms) / 1000;
    diff_s = std::clamp<std::int64_t>(diff_s, 0, std::numeric_limits<std::int32_t>::max());
  }
  const std::int32_t entry = header_.index_count;
  std::array<std::uint8_t, index::kEntryBytes> e{};
  store_be32(e.data() + index::kEntryKeyHashPos, static_cast<std::uint32_t>(hash));
  store_be64(e.data() + index::kEntryPhyOffsetPos, static_cast<std::uint64_t>(offset.value()));
  store_be32(e.data() + index::kEntryTimeDiffPos, static_cast<std::uint32_t>(diff_s));
  store_be32(e.data() + index::kEntryPrevIndexPos, static_cast<std::uint32_t>(prev));
  FERRY_TRY(file_->pwrite(static_cast<std::uint64_t>(index::entry_pos(geometry_.slots, entry)), e));
  std::array<std::uint8_t, 4> s{};
  store_be32(s.data(), static_cast<std::uint32_t>(entry));
  FERRY_TRY(file_->pwrite(static_cast<std::uint64_t>(index::slot_pos(slot)), s));

  if (header_.index_count == index::kFirstEntry) {
    header_.begin_phy_offset = offset;
    header_.begin_timestamp_ms = store_timestamp_ms;
  }
  if (prev == 0) ++header_.hash_slot_count;
  ++header_.index_count;
  header_.end_phy_offset = offset;
  header_.end_timestamp_ms = store_timestamp_ms;
  FERRY_ASSERT_LE(header_.index_count, geometry_.entries);
  FERRY_TRY(write_header());
  return true;
}

Status IndexFile::query(std::string_view key, std::size_t max_total, WallMs begin_ms,
                        WallMs end_ms, std::vector<PhysicalOffset>& out) const {
  if (out.size() >= max_total || header_.index_count == index::kFirstEntry) return {};
  const std::int32_t hash = index_key_hash(key);
  const std::int32_t slot = hash % geometry_.slots;
  auto head = read_i32(index::slot_pos(slot));
  if (!head.ok()) return std::move(head).error();
  std::int32_t entry = *head;
  // Each step moves to a strictly smaller entry number, so the walk ends within indexCount steps.
  std::int32_t bound = header_.index_count;
  while (entry >= index::kFirstEntry && entry < bound && out.size() < max_total) {
    std::array<std::uint8_t, index::kEntryBytes> e{};
    auto got = file_->pread(static_cast<std::uint64_t>(index::entry_pos(geometry_.slots, entry)), e);
    if (!got.ok()) return std::move(got).error();
    FERRY_ASSERT_EQ(*got, e.size());
    const auto entry_hash = static_cast<std::int32_t>(load_be32(e.data() + index::kEntryKeyHashPos));
    const auto phy = static_cast<std::int64_t>(load_be64(e.data() + index::kEntryPhyOffsetPos));
    const auto diff_s = static_cast<std::int32_t>(load_be32(e.data() + index::kEntryTimeDiffPos));
    const auto prev = static_cast<std::int32_t>(load_be32(e.data() + index::kEntryPrevIndexPos));
    const WallMs stored = header_.begin_timestamp_ms + static_cast<WallMs>(diff_s) * 1000;
    if (entry_hash == hash && stored >= begin_ms && stored <= end_ms && phy >= 0) {
      out.push_back(PhysicalOffset(phy));
    }
    if (stored < begin_ms) break;  // older entries only from here on
    bound = entry;
    entry = prev;
  }
  return {};
}

Result<std::int32_t> IndexFile::repair_slots() {
  std::map<std::int32_t, std::int32_t> bad;  // slot -> rebuilt head; bounded by the slot count
  for (std::int32_t slot = 0; slot < geometry_.slots; ++slot) {
    auto head = read_i32(index::slot_pos(slot));
    if (!head.ok()) return std::move(head).error();
    if (*head < 0 || *head >= header_.index_count) bad.emplace(slot, 0);
  }
  if (bad.empty()) return 0;
  for (std::int32_t entry = index::kFirstEntry; entry < header_.index_count; ++entry) {
    auto hash = read_i32(index::entry_pos(geometry_.slots, entry) +
                         static_cast<std::int64_t>(index::kEntryKeyHashPos));
    if (!hash.ok()) return std::move(hash).error();
    if (*hash < 0) continue;  // not a key hash: leave it unreachable
    auto it = bad.find(*hash % geometry_.slots);
    if (it != bad.end()) it->second = entry;  // ascending: the last one is the newest
  }
  for (const auto& [slot, head] : bad) {
    FERRY_ASSERT(head >= 0 && head < header_.index_count, "rebuilt head {} of slot {} in {}", head,
                 slot, path());
    std::array<std::uint8_t, 4> b{};
    store_be32(b.data(), static_cast<std::uint32_t>(head));
    FERRY_TRY(file_->pwrite(static_cast<std::uint64_t>(index::slot_pos(slot)), b));
  }
  return static_cast<std::int32_t>(bad.size());
}

bool IndexFile::time_overlaps(WallMs begin_ms, WallMs end_ms) const {
  const WallMs fb = header_.begin_timestamp_ms;
  const WallMs fe = header_.end_timestamp_ms;
  return (begin_ms < fb && end_ms > fe) || (begin_ms >= fb && begin_ms <= fe) ||
         (end_ms >= fb && end_ms <= fe);
}

}  // namespace ferry::store
