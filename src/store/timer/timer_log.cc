#include "store/timer/timer_log.h"

#include <fmt/format.h>

#include <array>

#include "common/big_endian.h"
#include "common/crc.h"
#include "runtime/assert.h"

namespace ferry::store::timer {

namespace {

constexpr std::size_t kCrcAt = 36;

std::uint32_t entry_crc(const std::uint8_t* p) { return crc32_update(0, Bytes(p, kCrcAt)); }

}  // namespace

void encode_entry(const Entry& e, std::uint8_t* out) {
  store_be64(out, static_cast<std::uint64_t>(e.slot_ms));
  store_be64(out + 8, static_cast<std::uint64_t>(e.deliver_ms));
  store_be64(out + 16, static_cast<std::uint64_t>(e.log_offset));
  store_be64(out + 24, static_cast<std::uint64_t>(e.prev));
  store_be32(out + 32, static_cast<std::uint32_t>(e.size));
  store_be32(out + kCrcAt, entry_crc(out));
}

Result<Entry> decode_entry(const std::uint8_t* in, std::int64_t pos) {
  const std::uint32_t stored = load_be32(in + kCrcAt);
  const std::uint32_t computed = entry_crc(in);
  if (stored != computed) {
    return Error(Errc::corrupt, fmt::format("timer log entry at {}: CRC {:08x}, computed {:08x}", pos, stored, computed));
  }
  Entry e;
  e.slot_ms = static_cast<std::int64_t>(load_be64(in));
  e.deliver_ms = static_cast<std::int64_t>(load_be64(in + 8));
  e.log_offset = static_cast<std::int64_t>(load_be64(in + 16));
  e.prev = static_cast<std::int64_t>(load_be64(in + 24));
  e.size = static_cast<std::int32_t>(load_be32(in + 32));
  if (e.log_offset < 0 || e.size <= 0 || e.prev < kNoEntry || e.prev >= pos || e.deliver_ms < e.slot_ms) {
    return Error(Errc::corrupt,
                 fmt::format("timer log entry at {}: slot {} due {} log offset {} size {} prev {} is not an entry", pos,
                             e.slot_ms, e.deliver_ms, e.log_offset, e.size, e.prev));
  }
  return e;
}

TimerLog::TimerLog(FileSystem& fs, std::string dir, std::int64_t entries_per_file)
    : files_(fs, std::move(dir), entries_per_file * kEntryBytes, FileRoom{.what = "TimerLog"}) {
  FERRY_ASSERT(entries_per_file > 0, "a TimerLog file of {} entries", entries_per_file);
}

Status TimerLog::load() { return files_.load(); }

Status TimerLog::truncate(std::int64_t length) {
  FERRY_ASSERT(length >= 0 && length % kEntryBytes == 0, "TimerLog cut at {}, not an entry boundary", length);
  if (length >= files_.max_offset()) return Status();
  return files_.truncate(length);
}

Result<std::int64_t> TimerLog::append(const Entry& e) {
  std::array<std::uint8_t, kEntryBytes> buf{};
  encode_entry(e, buf.data());
  auto f = files_.file_for_append();
  if (!f) return std::move(f).error();
  const std::int64_t pos = (*f)->start_offset() + (*f)->write_position();
  if (Status s = (*f)->append(Bytes(buf.data(), buf.size())); !s.ok()) return s.error();
  return pos;
}

Result<Entry> TimerLog::read(std::int64_t pos) const {
  FERRY_ASSERT(pos % kEntryBytes == 0, "TimerLog read at {}, not an entry boundary", pos);
  if (pos < files_.min_offset() || pos + kEntryBytes > files_.max_offset()) {
    return Error(Errc::not_found, fmt::format("timer log entry at {}: outside [{}, {})", pos, files_.min_offset(),
                                              files_.max_offset()));
  }
  MappedFile* f = files_.find(pos);
  if (f == nullptr) return Error(Errc::not_found, fmt::format("timer log entry at {}: no file holds it", pos));
  std::array<std::uint8_t, kEntryBytes> buf{};
  if (Status s = f->read(pos - f->start_offset(), MutableBytes(buf.data(), buf.size())); !s.ok()) return s.error();
  return decode_entry(buf.data(), pos);
}

}  // namespace ferry::store::timer
