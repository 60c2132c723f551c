// The folder of a daemon's configuration, offered to the node code read-only: the ACL watcher
// (remoting/acl/access_control.h) reads plain_acl.yml every 5 s from beside the .conf file,
// outside the node's data root. A FileSystem over the folder (AsioRuntime::folder: reads with
// pread, so an operator may rewrite the file meanwhile) behind a ReadOnlyFileSystem that refuses
// every change.
#pragma once

#include <memory>
#include <string>
#include <utility>

#include "runtime/asio/asio_runtime.h"
#include "runtime/read_only_file_system.h"

namespace ferry::daemon {

// Splits "dir/name" into the folder ("." when there is none, "/" for the root) and the file name.
std::pair<std::string, std::string> split_folder(const std::string& path);

class ConfFolder {
 public:
  // The folder holding `file` (split_folder). `rt` must outlive this object; loop thread only.
  ConfFolder(AsioRuntime& rt, const std::string& file)
      : folder_(rt.folder(split_folder(file).first)), read_only_(*folder_) {}

  // Paths relative to the folder; every change is refused (invalid_argument).
  FileSystem& files() { return read_only_; }

 private:
  std::unique_ptr<FileSystem> folder_;
  ReadOnlyFileSystem read_only_;
};

}  // namespace ferry::daemon
