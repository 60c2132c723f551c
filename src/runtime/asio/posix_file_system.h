// PosixFileSystem: the production FileSystem over a node's data root directory.
//
//  * open() opens read-write (O_CLOEXEC) and hands the descriptor to a MappedFile; with
//    OpenOptions::read_only, read-only to a PreadFile (pread_file.h: never mapped).
//  * Namespace operations are durable when they return, as file_system.h promises: after a file
//    is created, renamed or removed, or a directory is created, the parent directory is fsync'd
//    before returning. That fsync runs on the loop thread (a metadata-only flush, usually well
//    under a millisecond); set `sync_namespace` to false to leave it to sync_dir().
//  * sync_dir() fsyncs a directory on the I/O thread and completes on the loop.
//  * list() returns entry names sorted bytewise; space() is statvfs of the data root.
// Every error is a Result naming the operation and the relative path.
// Loop thread only.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runtime/asio/data_paths.h"
#include "runtime/asio/io_thread.h"
#include "runtime/file_system.h"

namespace ferry::asio_rt {

class PosixFileSystem final : public FileSystem {
 public:
  // `root` must exist. `threads` run sync() / sync_dir() and allocate() jobs.
  PosixFileSystem(std::string root, DiskThreads threads, bool sync_namespace = true);

  Result<std::unique_ptr<File>> open(const std::string& path, OpenOptions opts) override;
  Status rename(const std::string& from, const std::string& to) override;
  Status remove(const std::string& path) override;
  Status create_dirs(const std::string& path) override;
  Result<std::vector<std::string>> list(const std::string& dir) const override;
  bool exists(const std::string& path) const override;
  Result<std::uint64_t> file_size(const std::string& path) const override;
  Result<SpaceInfo> space() const override;
  Task<Status> sync_dir(const std::string& dir) override;

  const std::string& root() const { return paths_.root(); }

 private:
  // fsyncs the directory holding `os_path`, when namespace syncing is on.
  Status sync_parent(const std::string& os_path, const std::string& what) const;

  DataPaths paths_;
  DiskThreads threads_;
  bool sync_namespace_;
};

// fsync of a directory given by its OS path (blocking).
Status fsync_directory(const std::string& os_path, const std::string& what);

}  // namespace ferry::asio_rt
