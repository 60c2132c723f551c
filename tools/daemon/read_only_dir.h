// ReadOnlyDir: a FileSystem over one folder of configuration files, for reading only — how the
// daemons hand the node code a file that lives beside their .conf file, outside the node's data
// root (plain_acl.yml, read by remoting/acl/access_control.h every 5 s).
//
// open() opens read-only (create/truncate/exclusive are refused with invalid_argument); a File
// reads with pread(2) and refuses every change (pwrite, truncate, allocate: invalid_argument; sync:
// nothing to do); view() is not offered (invalid_argument). rename, remove and create_dirs are
// refused; list, exists and file_size work. Paths are relative to the folder; ".." and absolute
// paths are refused. Reads block the calling thread: use it for small files only.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runtime/file_system.h"

namespace ferry::tools {

class ReadOnlyDir final : public FileSystem {
 public:
  explicit ReadOnlyDir(std::string folder);

  Result<std::unique_ptr<File>> open(const std::string& path, OpenOptions opts) override;
  Status rename(const std::string& from, const std::string& to) override;
  Status remove(const std::string& path) override;
  Status create_dirs(const std::string& path) override;
  Result<std::vector<std::string>> list(const std::string& dir) const override;
  bool exists(const std::string& path) const override;
  Result<std::uint64_t> file_size(const std::string& path) const override;
  Result<SpaceInfo> space() const override;
  Task<Status> sync_dir(const std::string& dir) override;

  const std::string& folder() const { return folder_; }

 private:
  Result<std::string> resolve(const std::string& path) const;
  std::string folder_;
};

// Splits "dir/name" into the folder ("." when there is none) and the file name.
std::pair<std::string, std::string> split_folder(const std::string& path);

}  // namespace ferry::tools
