// Resolving a node's relative paths against its data root.
//
// A FileSystem path is '/'-separated and relative to the data root. Empty components and "."
// are ignored; "" (or ".") names the root itself. Absolute paths and ".." components are
// rejected with invalid_argument, so no path leaves the root.
#pragma once

#include <string>

#include "runtime/result.h"

namespace ferry::asio_rt {

class DataPaths {
 public:
  explicit DataPaths(std::string root);  // the root must be absolute or relative to the cwd

  const std::string& root() const { return root_; }
  // The OS path for `relative`, or invalid_argument naming the path and the reason.
  Result<std::string> resolve(const std::string& relative) const;
  // The OS path of the directory holding `os_path` (the root for entries directly in it).
  static std::string parent_of(const std::string& os_path);

 private:
  std::string root_;
};

}  // namespace ferry::asio_rt
