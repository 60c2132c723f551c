// SimFileSystem and SimFile: the FileSystem/File interfaces over a node's SimDisk.
//
// Paths are '/'-separated and relative to the node's data root: empty and "." components are
// ignored, ".." and absolute paths are rejected with invalid_argument. A File handle belongs to
// the life of the node that opened it: after a crash or wipe every operation on it fails with
// io_error (a new incarnation must open files again).
#pragma once

#include <memory>
#include <string>

#include "runtime/file_system.h"
#include "sim/disk/disk.h"

namespace ferry::sim {

// "a//./b/" -> "a/b"; "" and "." -> "" (the root). Errors: invalid_argument.
Result<std::string> normalize_path(const std::string& path);

class SimFile final : public File {
 public:
  // read_only (OpenOptions::read_only): pwrite, truncate and allocate are refused.
  SimFile(SimDisk& disk, std::shared_ptr<Inode> inode, std::string path, bool read_only = false);

  const std::string& path() const override { return path_; }
  std::uint64_t size() const override { return inode_->size(); }
  Result<std::size_t> pread(std::uint64_t offset, MutableBytes buf) const override;
  Status pwrite(std::uint64_t offset, Bytes data) override;
  Status truncate(std::uint64_t size) override;
  Task<Status> sync() override;
  Task<Status> allocate(std::uint64_t size) override;
  Result<FileView> view(std::uint64_t offset, std::size_t len) const override;

 private:
  Status check_live() const;
  Status check_writable() const;

  SimDisk& disk_;
  std::shared_ptr<Inode> inode_;
  std::string path_;
  std::uint64_t generation_;
  bool read_only_;
};

class SimFileSystem final : public FileSystem {
 public:
  explicit SimFileSystem(SimDisk& disk) : disk_(disk) {}

  Result<std::unique_ptr<File>> open(const std::string& path, OpenOptions opts) override;
  Status rename(const std::string& from, const std::string& to) override;
  Status remove(const std::string& path) override;
  Status create_dirs(const std::string& path) override;
  Result<std::vector<std::string>> list(const std::string& dir) const override;
  bool exists(const std::string& path) const override;
  Result<std::uint64_t> file_size(const std::string& path) const override;
  Result<SpaceInfo> space() const override { return disk_.space(); }
  Task<Status> sync_dir(const std::string& dir) override;

 private:
  SimDisk& disk_;
};

}  // namespace ferry::sim
