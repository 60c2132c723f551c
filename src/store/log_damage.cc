// LogDamage (log_damage.h): searching past a bad CommitLog record, counting what follows, and
// filling a damaged range.
#include "store/log_damage.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "common/big_endian.h"
#include "common/crc.h"
#include "common/record_format.h"
#include "common/record_writer.h"
#include "runtime/assert.h"
#include "store/dispatch_rules.h"

namespace ferry::store {

namespace {

// A filler: a valid record of kDamagedRangeTopic with IPv4 zero hosts, no properties and a zero
// body of `body_bytes`.
RecordFields filler_fields(PhysicalOffset at, Bytes body) {
  RecordFields f;
  f.physical_offset = at;
  f.body = body;
  f.body_crc = body_crc(body);
  f.topic = kDamagedRangeTopic;
  return f;
}

// Whether a valid record starts at `pos` of `bytes` (a file starting at `start`).
bool valid_record_at(Bytes bytes, std::int64_t start, std::size_t pos, const RecordDecodeOptions& options) {
  if (bytes.size() - pos < record::kMinRecordBytes) return false;
  const std::uint8_t* p = bytes.data() + pos;
  if (load_be32(p + record::kMagicPos) != record::kMessageMagic) return false;
  if (static_cast<std::int64_t>(load_be64(p + record::kPhysicalOffsetPos)) != start + static_cast<std::int64_t>(pos)) {
    return false;
  }
  const RecordRead r = decode_record(bytes.subspan(pos), options);
  return r.kind == RecordKind::message && r.fields.physical_offset.value() == start + static_cast<std::int64_t>(pos);
}

// The first position at or after `from` in `bytes` where a valid record starts. memchr finds the
// magic's first byte (the common case is a tail of zeros, read at memory speed).
std::optional<std::size_t> search_file(Bytes bytes, std::int64_t start, std::size_t from,
                                       const RecordDecodeOptions& options) {
  std::array<std::uint8_t, record::kMagicBytes> magic{};
  store_be32(magic.data(), record::kMessageMagic);
  std::size_t at = from + record::kMagicPos;  // where the magic of a record at `from` would be
  while (at + magic.size() <= bytes.size()) {
    const void* hit = std::memchr(bytes.data() + at, magic[0], bytes.size() - at);
    if (hit == nullptr) return std::nullopt;
    at = static_cast<std::size_t>(static_cast<const std::uint8_t*>(hit) - bytes.data());
    if (at + magic.size() > bytes.size()) return std::nullopt;
    if (std::memcmp(bytes.data() + at, magic.data(), magic.size()) == 0) {
      const std::size_t pos = at - record::kMagicPos;
      FERRY_ASSERT(pos >= from, "magic found at {} before the search start {}", pos, from);
      if (valid_record_at(bytes, start, pos, options)) return pos;
    }
    ++at;
  }
  return std::nullopt;
}

}  // namespace

Result<std::optional<PhysicalOffset>> find_next_valid_record(const MappedFileQueue& files, PhysicalOffset from,
                                                             const RecordDecodeOptions& options) {
  MappedFile* first = files.find(from.value());
  if (first == nullptr) return std::optional<PhysicalOffset>();
  const std::size_t first_index = static_cast<std::size_t>((first->start_offset() - files.min_offset()) / files.file_size());
  for (std::size_t i = first_index; i < files.file_count(); ++i) {
    MappedFile* f = files.file_at(i);
    auto view = f->view(0, f->write_position());
    if (!view.ok()) return std::move(view).error();
    const std::size_t begin = i == first_index ? static_cast<std::size_t>(from.value() - f->start_offset()) : 0;
    if (auto pos = search_file(view->bytes(), f->start_offset(), begin, options)) {
      const PhysicalOffset at(f->start_offset() + static_cast<std::int64_t>(*pos));
      FERRY_ASSERT(at >= from, "next valid record {} found before {}", at.value(), from.value());
      return std::optional<PhysicalOffset>(at);
    }
  }
  return std::optional<PhysicalOffset>();
}

Result<GoodData> count_good_data(const MappedFileQueue& files, PhysicalOffset first, const RecordDecodeOptions& options) {
  GoodData good;
  std::optional<PhysicalOffset> at = first;
  std::int64_t last_file_counted = -1;
  while (at) {
    MappedFile* f = files.find(at->value());
    FERRY_ASSERT(f != nullptr, "counting good data at {}, outside the log", at->value());
    auto view = f->view(0, f->write_position());
    if (!view.ok()) return std::move(view).error();
    const Bytes bytes = view->bytes();
    auto pos = static_cast<std::size_t>(at->value() - f->start_offset());
    std::optional<PhysicalOffset> next;
    while (pos < bytes.size()) {
      const RecordRead r = decode_record(bytes.subspan(pos), options);
      if (r.kind == RecordKind::blank && r.size_bytes == bytes.size() - pos) {
        if (f->end_offset() < files.max_offset()) next = PhysicalOffset(f->end_offset());
        break;
      }
      if (r.kind != RecordKind::message || r.fields.physical_offset.value() != f->start_offset() + static_cast<std::int64_t>(pos)) {
        auto found = find_next_valid_record(files, PhysicalOffset(f->start_offset() + static_cast<std::int64_t>(pos) + 1), options);
        if (!found.ok()) return std::move(found).error();
        next = *found;
        if (next) ++good.damaged_ranges;
        break;
      }
      ++good.records;
      good.bytes += static_cast<std::int64_t>(r.size_bytes);
      if (last_file_counted != f->start_offset()) {
        ++good.files;
        last_file_counted = f->start_offset();
      }
      pos += r.size_bytes;
      good.last_end = PhysicalOffset(f->start_offset() + static_cast<std::int64_t>(pos));
    }
    FERRY_ASSERT(!next || *next > *at, "counting good data went back from {} to {}", at->value(), next->value());
    at = next;
  }
  return good;
}

std::int64_t filler_bytes_min() {
  auto size = record_size(filler_fields(PhysicalOffset(0), Bytes()));
  FERRY_ASSERT(size.ok(), "the filler record does not encode: {}", size.error().to_string());
  return static_cast<std::int64_t>(*size);
}

Status write_fillers(MappedFile& f, std::int64_t from_pos, std::int64_t to_pos, std::int64_t record_bytes_max) {
  const std::int64_t min = filler_bytes_min();
  FERRY_ASSERT(record_bytes_max >= 2 * min, "fillers of at most {} bytes cannot split ranges (smallest {})",
               record_bytes_max, min);
  FERRY_ASSERT(to_pos - from_pos >= min, "range [{}, {}) of {} is smaller than a filler ({} bytes)", from_pos,
               to_pos, f.path(), min);
  FERRY_ASSERT(to_pos <= f.file_size() - static_cast<std::int64_t>(record::kBlankBytes),
               "fillers up to {} of {} leave no room for its BLANK ({} bytes long)", to_pos, f.path(), f.file_size());
  std::vector<std::uint8_t> zeros;
  std::vector<std::uint8_t> out;
  std::int64_t pos = from_pos;
  while (pos < to_pos) {
    const std::int64_t left = to_pos - pos;
    const std::int64_t piece = left <= record_bytes_max ? left : std::min(record_bytes_max, left - min);
    FERRY_ASSERT(piece >= min && piece <= record_bytes_max, "filler of {} bytes at {} of {} (left {})", piece, pos,
                 f.path(), left);
    zeros.assign(static_cast<std::size_t>(piece - min), 0);
    const RecordFields fields = filler_fields(PhysicalOffset(f.start_offset() + pos), Bytes(zeros.data(), zeros.size()));
    auto size = record_size(fields);
    if (!size.ok()) return std::move(size).error();
    FERRY_ASSERT_EQ(static_cast<std::int64_t>(*size), piece);
    out.assign(*size, 0);
    const std::size_t n = encode_record(fields, MutableBytes(out.data(), out.size()));
    FERRY_ASSERT_EQ(n, *size);
    FERRY_TRY(f.file().pwrite(static_cast<std::uint64_t>(pos), Bytes(out.data(), out.size())));
    pos += piece;
  }
  FERRY_ASSERT_EQ(pos, to_pos);
  f.require_sync();
  return {};
}

Status mark_to_file_end(MappedFile& f, std::int64_t pos) {
  const std::int64_t left = f.file_size() - pos;
  FERRY_ASSERT(left >= static_cast<std::int64_t>(record::kBlankBytes), "BLANK at {} of {}: only {} bytes left", pos,
               f.path(), left);
  std::array<std::uint8_t, record::kBlankBytes> blank{};
  encode_blank(static_cast<std::size_t>(left), blank);
  FERRY_TRY(f.file().pwrite(static_cast<std::uint64_t>(pos), blank));
  f.require_sync();
  return {};
}

}  // namespace ferry::store
