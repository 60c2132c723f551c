// ReadOnlyFileSystem: a FileSystem decorator that offers another one for reading only — how the
// daemons hand the node code a folder of configuration files outside its data root (the ACL
// watcher of remoting/acl/access_control.h reads plain_acl.yml from beside the .conf file).
//
// open() opens the base's file with OpenOptions::read_only (create, exclusive or truncate are
// refused with invalid_argument, before the base is asked); rename, remove and create_dirs are
// refused with invalid_argument naming the path; sync_dir() has nothing to make durable and
// succeeds. list, exists, file_size and space are the base's. Paths are checked by the base.
// The base must outlive the decorator; same threading as the base.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runtime/file_system.h"

namespace ferry {

class ReadOnlyFileSystem final : public FileSystem {
 public:
  explicit ReadOnlyFileSystem(FileSystem& base) : base_(base) {}

  Result<std::unique_ptr<File>> open(const std::string& path, OpenOptions opts) override;
  Status rename(const std::string& from, const std::string& to) override;
  Status remove(const std::string& path) override;
  Status create_dirs(const std::string& path) override;
  Result<std::vector<std::string>> list(const std::string& dir) const override { return base_.list(dir); }
  bool exists(const std::string& path) const override { return base_.exists(path); }
  Result<std::uint64_t> file_size(const std::string& path) const override { return base_.file_size(path); }
  Result<SpaceInfo> space() const override { return base_.space(); }
  Task<Status> sync_dir(const std::string& dir) override;

 private:
  FileSystem& base_;
};

}  // namespace ferry
