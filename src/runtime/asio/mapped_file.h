// MappedFile: the production File, an open descriptor plus a MAP_SHARED mapping.
//
//  * pread copies out of the mapping; pwrite copies into it. A write past the end first extends
//    the file over reserved blocks (reserve.h: fallocate, or zeros written where the file system
//    lacks it; never sparse, so a full disk is a no_space value, not a SIGBUS on the first touch
//    of a page) and,
//    if the file outgrows the mapping, maps it again with room to grow (capacity doubles).
//    Writes are visible to every reader at once and durable only after a later sync().
//  * sync() runs msync(MS_SYNC) over the mapped size and fdatasync on the I/O thread, then
//    completes on the loop. allocate() reserves blocks (reserve.h) on the I/O thread, then (on the loop)
//    reads the new size back and remaps if needed.
//  * view() returns a FileView that shares ownership of the mapping it points into.
//  * Destroying the File releases the descriptor and the mapping; I/O jobs still running and
//    live views keep what they use until they finish.
//
// Not safe against a file changed behind our back (another process truncating it makes touching
// the mapping raise SIGBUS), nor against a sparse hole met on a full disk: files written here are
// never sparse, because every extension allocates its blocks.
// Loop thread only, except for the I/O-thread jobs described above. The File must outlive the
// sync() and allocate() tasks awaiting on it (they finish on the loop and update the File).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "runtime/asio/file_mapping.h"
#include "runtime/asio/io_thread.h"
#include "runtime/file_system.h"

namespace ferry::asio_rt {

class MappedFile final : public File {
 public:
  // Takes ownership of `fd` (open read-write). Errors: io_error when it cannot be mapped.
  static Result<std::unique_ptr<File>> adopt(std::string path, int fd, DiskThreads threads);

  const std::string& path() const override { return path_; }
  std::uint64_t size() const override { return size_; }

  Result<std::size_t> pread(std::uint64_t offset, MutableBytes buf) const override;
  Status pwrite(std::uint64_t offset, Bytes data) override;
  Status truncate(std::uint64_t size) override;
  Task<Status> sync() override;
  Task<Status> allocate(std::uint64_t size) override;
  Result<FileView> view(std::uint64_t offset, std::size_t len) const override;

 private:
  MappedFile(std::string path, std::shared_ptr<FileDescriptor> fd, std::uint64_t size, DiskThreads threads);
  // Extends the file to `new_size` (> size_) with allocated, zeroed blocks.
  Status extend(std::uint64_t new_size);
  // Makes the mapping cover at least `size` bytes (a no-op when it already does).
  Status cover(std::uint64_t size);
  // Page warming, bounded: the I/O thread faults the next kWarmWindowBytes of the allocated range
  // past `pos` into the page cache, unless a warm is in flight or that range is warm already.
  void warm_ahead(std::uint64_t pos);

  // What the allocate thread has warmed: [.., warmed) of the range allocate() reserved (atomics:
  // the I/O thread writes them, the loop reads them).
  struct Warmth {
    std::atomic<std::uint64_t> warmed{0};
    std::atomic<bool> busy{false};
  };

  std::string path_;
  std::shared_ptr<FileDescriptor> fd_;
  std::shared_ptr<FileMapping> map_;  // covers [0, size_); null only while size_ == 0 and unmapped
  std::uint64_t size_;
  DiskThreads threads_;
  std::uint64_t warm_limit_ = 0;  // the end of what allocate() reserved: warming stops there
  std::shared_ptr<Warmth> warmth_ = std::make_shared<Warmth>();
};

}  // namespace ferry::asio_rt
