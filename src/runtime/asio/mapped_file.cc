#include "runtime/asio/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <functional>
#include <utility>

#include "runtime/asio/errors.h"
#include "runtime/asio/reserve.h"
#include "runtime/assert.h"

namespace ferry::asio_rt {

namespace {
#ifdef MADV_POPULATE_READ
constexpr int kMadvPopulateRead = MADV_POPULATE_READ;
#else
constexpr int kMadvPopulateRead = 22;  // Linux 5.14+
#endif
}  // namespace

namespace {

// Page warming runs this far ahead of the highest write, in windows of this size: an allocated
// CommitLog segment (1 GiB) is not faulted in whole, which cost a fresh broker seconds of CPU on
// the I/O thread (the kernel zero-fills each page of the unwritten extents) for pages a run may
// never reach. A window is warmed when a write comes within half a window of its end.
constexpr std::uint64_t kWarmWindowBytes = 32ull << 20;

// Smallest mapping made; mappings at least double when a file outgrows them, so appending costs
// O(log size) remaps. Address space is cheap; only the file's own pages are ever touched.
constexpr std::uint64_t kMinMappingBytes = 64 * 1024;

Result<std::uint64_t> size_of(int fd, const std::string& path) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return file_error(errno, "fstat " + path);
  return static_cast<std::uint64_t>(st.st_size);
}

}  // namespace

Result<std::unique_ptr<File>> MappedFile::adopt(std::string path, int fd, DiskThreads threads) {
  auto owned = std::make_shared<FileDescriptor>(fd);
  auto size = size_of(fd, path);
  if (!size.ok()) return std::move(size).error();
  std::unique_ptr<MappedFile> file(new MappedFile(std::move(path), std::move(owned), *size, threads));
  FERRY_TRY(file->cover(*size));
  return std::unique_ptr<File>(std::move(file));
}

MappedFile::MappedFile(std::string path, std::shared_ptr<FileDescriptor> fd, std::uint64_t size,
                       DiskThreads threads)
    : path_(std::move(path)), fd_(std::move(fd)), size_(size), threads_(threads) {}

Status MappedFile::cover(std::uint64_t size) {
  if (size == 0) return {};
  const std::uint64_t have = map_ ? map_->length() : 0;
  if (have >= size) return {};
  const std::uint64_t want = round_up_to_page(std::max({size, 2 * have, kMinMappingBytes}));
  auto mapping = FileMapping::map(fd_->get(), static_cast<std::size_t>(want), path_);
  if (!mapping.ok()) return std::move(mapping).error();
  map_ = std::move(*mapping);  // views of the old mapping keep it alive
  return {};
}

Status MappedFile::extend(std::uint64_t new_size) {
  FERRY_ASSERT_LT(size_, new_size);
  const int err = reserve_blocks(fd_->get(), size_, new_size - size_);
  if (err != 0) {
    // Undo a partial extension so that nothing of the failed call is visible.
    if (::ftruncate(fd_->get(), static_cast<off_t>(size_)) != 0) {
      return file_error(errno, "ftruncate " + path_ + " back to " + std::to_string(size_) + " bytes");
    }
    return file_error(err, "extend " + path_ + " to " + std::to_string(new_size) + " bytes");
  }
  const Status mapped = cover(new_size);
  if (!mapped.ok()) {
    if (::ftruncate(fd_->get(), static_cast<off_t>(size_)) != 0) {
      return file_error(errno, "ftruncate " + path_ + " back to " + std::to_string(size_) + " bytes");
    }
    return mapped;
  }
  size_ = new_size;
  return {};
}

Result<std::size_t> MappedFile::pread(std::uint64_t offset, MutableBytes buf) const {
  if (offset >= size_ || buf.empty()) return std::size_t{0};
  const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(buf.size(), size_ - offset));
  FERRY_ASSERT(map_ != nullptr, "{}: read [{}, {}) of size {} with no mapping", path_, offset, offset + n, size_);
  FERRY_ASSERT(offset + n <= map_->length(), "{}: read [{}, {}) outside the mapping of {} bytes", path_,
               offset, offset + n, map_->length());
  std::memcpy(buf.data(), map_->data() + offset, n);
  return n;
}

Status MappedFile::pwrite(std::uint64_t offset, Bytes data) {
  if (data.empty()) return {};
  const std::uint64_t end = offset + data.size();
  if (end < offset) {
    return Error(Errc::invalid_argument, path_ + ": write at " + std::to_string(offset) + " overflows");
  }
  if (end > size_) FERRY_TRY(extend(end));
  FERRY_ASSERT(map_ != nullptr, "{}: write [{}, {}) of size {} with no mapping", path_, offset, end, size_);
  FERRY_ASSERT(end <= map_->length(), "{}: write [{}, {}) outside the mapping of {} bytes", path_, offset, end,
               map_->length());
  std::memcpy(map_->data() + offset, data.data(), data.size());
  if (end + kWarmWindowBytes / 2 > warmth_->warmed.load(std::memory_order_relaxed)) warm_ahead(end);
  return {};
}

void MappedFile::warm_ahead(std::uint64_t pos) {
  const std::uint64_t limit = std::min<std::uint64_t>(warm_limit_, map_ ? map_->length() : 0);
  const std::uint64_t from = std::max(warmth_->warmed.load(std::memory_order_acquire), pos / 4096 * 4096);
  if (from >= limit || from >= pos + kWarmWindowBytes / 2) return;
  if (warmth_->busy.exchange(true, std::memory_order_acq_rel)) return;  // one warm at a time
  const std::uint64_t to = std::min(limit, from + kWarmWindowBytes);
  std::shared_ptr<FileMapping> map = map_;
  std::shared_ptr<Warmth> warmth = warmth_;
  const bool queued = threads_.allocate.post([map, warmth, from, to] {
    (void)::madvise(map->data() + from, static_cast<std::size_t>(to - from), kMadvPopulateRead);
    warmth->warmed.store(to, std::memory_order_release);
    warmth->busy.store(false, std::memory_order_release);
  });
  if (!queued) warmth_->busy.store(false, std::memory_order_release);
}

Status MappedFile::truncate(std::uint64_t size) {
  if (size > size_) return extend(size);
  if (size == size_) return {};
  if (::ftruncate(fd_->get(), static_cast<off_t>(size)) != 0) {
    return file_error(errno, "truncate " + path_ + " to " + std::to_string(size) + " bytes");
  }
  size_ = size;  // the mapping stays; pages past the end are never touched
  return {};
}

Task<Status> MappedFile::sync() {
  // One fdatasync covers the writes made through the mapping: on Linux a shared file mapping's
  // pages are the page cache's, and a write through it marks its page dirty (file systems with
  // page_mkwrite, ext4 and xfs among them, write-protect clean pages to notice). msync(MS_SYNC)
  // would be a second fsync of the same range, and a second device cache flush.
  std::shared_ptr<FileDescriptor> fd = fd_;
  std::string path = path_;
  // The job is named, not written inside the co_await: GCC 12 miscompiles a lambda temporary with
  // non-trivial captures converted to std::function within a co_await expression (it copies the
  // captures bitwise; ASan reports a bad free).
  std::function<Status()> job = [fd, path]() -> Status {
    if (::fdatasync(fd->get()) != 0) return file_error(errno, "fdatasync " + path);
    return {};
  };
  co_return co_await threads_.sync.run(std::move(job));
}

Task<Status> MappedFile::allocate(std::uint64_t size) {
  // Every extension made here reserves its blocks, so nothing below size_ needs allocating.
  if (size <= size_) co_return Status{};
  std::shared_ptr<FileDescriptor> fd = fd_;
  std::string path = path_;
  std::function<Status()> job = [fd, size, path]() -> Status {  // named: see sync()
    const int err = reserve_blocks(fd->get(), 0, size);
    if (err != 0) return file_error(err, "allocate " + path + " to " + std::to_string(size) + " bytes");
    return {};
  };
  const Status reserved = co_await threads_.allocate.run(std::move(job));
  // Back on the loop. Even a failed allocation may have grown the file: read the size back.
  auto actual = size_of(fd_->get(), path_);
  if (!actual.ok()) co_return std::move(actual).error();
  const Status mapped = cover(*actual);
  if (!mapped.ok()) co_return mapped;
  const std::uint64_t old_size = size_;
  size_ = *actual;
  if (reserved.ok() && size_ > old_size) {
    // Fault the start of the new range into the page cache now, on the I/O thread, so the loop's
    // first writes into it do not pay for zero-filling pages (a read populate: pages are not
    // dirtied, so no zeros are written back); writes keep the warm range ahead (pwrite). Best
    // effort: an older kernel without MADV_POPULATE_READ skips it.
    warm_limit_ = std::max(warm_limit_, size_);
    if (warmth_->warmed.load(std::memory_order_acquire) < old_size) {
      warmth_->warmed.store(old_size / 4096 * 4096, std::memory_order_release);
    }
    warm_ahead(old_size);
  }
  co_return reserved;
}

Result<FileView> MappedFile::view(std::uint64_t offset, std::size_t len) const {
  if (offset >= size_ || len == 0) return FileView();
  const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(len, size_ - offset));
  FERRY_ASSERT(map_ != nullptr, "{}: view [{}, {}) of size {} with no mapping", path_, offset, offset + n, size_);
  FERRY_ASSERT(offset + n <= map_->length(), "{}: view [{}, {}) outside the mapping of {} bytes", path_,
               offset, offset + n, map_->length());
  return FileView(std::shared_ptr<const void>(map_), Bytes(map_->data() + offset, n));
}

}  // namespace ferry::asio_rt
