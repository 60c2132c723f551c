#include "store/mapped_file.h"

#include <algorithm>
#include <vector>

#include "runtime/assert.h"

namespace ferry::store {

MappedFile::MappedFile(std::unique_ptr<File> file, std::int64_t start_offset,
                       std::int64_t file_size_bytes)
    : file_(std::move(file)), start_offset_(start_offset), file_size_(file_size_bytes) {
  FERRY_ASSERT(file_ != nullptr, "MappedFile at {} without a file", start_offset);
  FERRY_ASSERT(file_size_bytes > 0, "MappedFile {} with size {}", file_->path(), file_size_bytes);
  FERRY_ASSERT(start_offset >= 0 && start_offset % file_size_bytes == 0,
               "MappedFile {} starts at {}, not a multiple of its size {}", file_->path(),
               start_offset, file_size_bytes);
}

Status MappedFile::append(Bytes data) {
  const auto n = static_cast<std::int64_t>(data.size());
  FERRY_ASSERT(n <= remaining(), "append of {} bytes to {} with {} bytes left", n, path(),
               remaining());
  if (n == 0) return {};
  FERRY_TRY(file_->pwrite(static_cast<std::uint64_t>(write_position_), data));
  write_position_ += n;
  FERRY_ASSERT_LE(write_position_, file_size_);
  return {};
}

Status MappedFile::read(std::int64_t pos, MutableBytes buf) const {
  const auto n = static_cast<std::int64_t>(buf.size());
  FERRY_ASSERT(pos >= 0 && pos + n <= write_position_,
               "read [{}, {}) of {} beyond its write position {}", pos, pos + n, path(),
               write_position_);
  auto got = file_->pread(static_cast<std::uint64_t>(pos), buf);
  if (!got.ok()) return std::move(got).error();
  if (static_cast<std::int64_t>(*got) != n) {
    return Error(Errc::io_error, fmt::format("short read of {}: {} of {} bytes at {}", path(),
                                             *got, n, pos));
  }
  return {};
}

Result<FileView> MappedFile::view(std::int64_t pos, std::int64_t len) const {
  FERRY_ASSERT(pos >= 0 && pos <= write_position_, "view at {} of {} beyond its write position {}",
               pos, path(), write_position_);
  FERRY_ASSERT(len >= 0, "view of negative length {} in {}", len, path());
  const std::int64_t clipped = std::min(len, write_position_ - pos);
  return file_->view(static_cast<std::uint64_t>(pos), static_cast<std::size_t>(clipped));
}

Task<Status> MappedFile::flush() {
  if (sync_failed_) co_return Error(Errc::io_error, path() + ": an earlier sync failed (its data may be lost)");
  const std::int64_t target = write_position_;
  if (target == flushed_position_ && !zeroed_unsynced_) co_return Status{};
  const bool zeroed = zeroed_unsynced_;
  zeroed_unsynced_ = false;
  Status st = co_await file_->sync();
  if (!st.ok()) {
    // Fatal for what this sync covered (see MappedFileQueue::flush): never flushed again.
    sync_failed_ = true;
    zeroed_unsynced_ = zeroed_unsynced_ || zeroed;
    co_return st;
  }
  // A truncation during the sync may have moved the write position below target.
  flushed_position_ = std::max(flushed_position_, std::min(target, write_position_));
  FERRY_ASSERT_LE(flushed_position_, write_position_);
  co_return Status{};
}

Status MappedFile::set_write_position(std::int64_t pos) {
  FERRY_ASSERT(pos >= 0 && pos <= file_size_, "write position {} outside {} of size {}", pos,
               path(), file_size_);
  // Zero what was written beyond `pos`, in bounded chunks, so stale bytes never look like data
  // to a later scan. Bytes never written are zeros already (files are created zero-filled).
  static constexpr std::int64_t kChunk = 64 * 1024;
  const std::int64_t dirty_end = write_position_;
  if (dirty_end > pos) {
    std::vector<std::uint8_t> zeros;
    for (std::int64_t at = pos; at < dirty_end; at += kChunk) {
      const std::int64_t n = std::min(kChunk, dirty_end - at);
      // Only chunks holding something are rewritten (after a load the tail is mostly zeros
      // already; rewriting it would dirty every page and make the sync below expensive).
      auto current = file_->view(static_cast<std::uint64_t>(at), static_cast<std::size_t>(n));
      if (!current.ok()) return std::move(current).error();
      const Bytes b = current->bytes();
      if (std::all_of(b.begin(), b.end(), [](std::uint8_t x) { return x == 0; })) continue;
      zeros.resize(static_cast<std::size_t>(n), 0);
      FERRY_TRY(file_->pwrite(static_cast<std::uint64_t>(at),
                              Bytes(zeros.data(), static_cast<std::size_t>(n))));
      zeroed_unsynced_ = true;
    }
  }
  write_position_ = pos;
  flushed_position_ = std::min(flushed_position_, pos);
  return {};
}

void MappedFile::assume_written(std::int64_t pos) {
  FERRY_ASSERT(pos >= 0 && pos <= file_size_, "written position {} outside {} of size {}", pos,
               path(), file_size_);
  write_position_ = pos;
  flushed_position_ = pos;
}

}  // namespace ferry::store
