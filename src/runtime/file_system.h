// FileSystem and File: a node's disk.
//
// Durability model (both runtimes):
//  * pwrite/truncate change the file's contents at once for every reader of this node, but are
//    NOT durable: a crash may lose them, wholly or in part (sector-sized pieces), until a sync()
//    that started after them has completed successfully.
//  * sync() makes durable everything written to this file before the call.
//  * Namespace operations (create, rename, remove, create_dirs) are durable when they return
//    (production: the runtime syncs the directory on its I/O thread before completing rename via
//    sync_dir; simulation: at once). rename() atomically replaces the target.
//  * Reads and writes are synchronous memory operations (production files are mmap'd; the
//    simulator keeps them in memory). sync() and allocate() are asynchronous (production: on the
//    dedicated I/O thread) and complete on the node's loop.
//
// Paths are '/'-separated and relative to the node's data root; ".." is rejected.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/bytes.h"
#include "runtime/result.h"
#include "runtime/task.h"

namespace ferry {

// A read-only view of a file range that pins its memory until the view is destroyed: the bytes
// stay valid (and mapped) even if the file is closed, removed or grown meanwhile. Writes into
// the viewed range are visible through the view (it is not a snapshot). Truncating a file below
// a live view is a bug in the caller.
class FileView {
 public:
  FileView() = default;
  FileView(std::shared_ptr<const void> pin, Bytes bytes) : pin_(std::move(pin)), bytes_(bytes) {}
  Bytes bytes() const { return bytes_; }
  std::size_t size() const { return bytes_.size(); }
  bool empty() const { return bytes_.empty(); }
  // Equal when they show the same bytes (wherever those are).
  bool operator==(const FileView& o) const {
    return bytes_.size() == o.bytes_.size() && std::equal(bytes_.begin(), bytes_.end(), o.bytes_.begin());
  }

 private:
  std::shared_ptr<const void> pin_;
  Bytes bytes_;
};

class File {
 public:
  virtual ~File() = default;

  virtual const std::string& path() const = 0;
  virtual std::uint64_t size() const = 0;

  // Reads up to buf.size() bytes at `offset`; fewer only at the end of the file.
  virtual Result<std::size_t> pread(std::uint64_t offset, MutableBytes buf) const = 0;
  // Writes all of `data` at `offset`, growing the file if needed (a gap reads as zeros).
  // Errors: no_space (nothing of this call was written), io_error.
  virtual Status pwrite(std::uint64_t offset, Bytes data) = 0;
  // Sets the size; growing fills with zeros. Errors: no_space.
  virtual Status truncate(std::uint64_t size) = 0;

  // Makes everything written before this call durable. Errors: io_error (then durability of
  // the unsynced writes is unknown; what was durable before stays durable).
  virtual Task<Status> sync() = 0;
  // Grows the file to at least `size` bytes with space reserved (zero-filled), so that later
  // writes below `size` do not fail with no_space. Errors: no_space.
  virtual Task<Status> allocate(std::uint64_t size) = 0;

  // A pinned read view of [offset, offset + len); len is clipped to the file size.
  virtual Result<FileView> view(std::uint64_t offset, std::size_t len) const = 0;
};

struct OpenOptions {
  bool create = false;     // create the file if missing
  bool exclusive = false;  // with create: fail with already_exists if it exists
  bool truncate = false;   // start empty
  // Open for reading only (create, exclusive and truncate must be false): pwrite, truncate and
  // allocate fail with invalid_argument, sync() has nothing to do. Production reads such a file
  // with pread(2), never through a mapping, so another program may rewrite it meanwhile (a
  // configuration file an operator edits); view() is then refused (invalid_argument).
  bool read_only = false;
};

struct SpaceInfo {
  std::uint64_t capacity_bytes = 0;
  std::uint64_t free_bytes = 0;
};

class FileSystem {
 public:
  virtual ~FileSystem() = default;

  // Errors: not_found (no create), already_exists (exclusive), invalid_argument (bad path),
  // io_error.
  virtual Result<std::unique_ptr<File>> open(const std::string& path, OpenOptions opts) = 0;
  // Atomically replaces `to` with `from`. Errors: not_found.
  virtual Status rename(const std::string& from, const std::string& to) = 0;
  // Removes a file or an empty directory. Errors: not_found.
  virtual Status remove(const std::string& path) = 0;
  // Creates the directory and its parents; existing ones are fine.
  virtual Status create_dirs(const std::string& path) = 0;
  // Names (not paths) of the entries in `dir`, sorted bytewise. Errors: not_found.
  virtual Result<std::vector<std::string>> list(const std::string& dir) const = 0;
  virtual bool exists(const std::string& path) const = 0;
  // Size of a file without opening it. Errors: not_found.
  virtual Result<std::uint64_t> file_size(const std::string& path) const = 0;
  // Capacity and free space of the disk that holds `path`.
  virtual Result<SpaceInfo> space() const = 0;
  // Makes the directory's entries (creations, renames, removals) durable.
  virtual Task<Status> sync_dir(const std::string& dir) = 0;
};

}  // namespace ferry
