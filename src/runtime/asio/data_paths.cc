#include "runtime/asio/data_paths.h"

#include <string_view>
#include <utility>

#include "runtime/assert.h"

namespace ferry::asio_rt {

DataPaths::DataPaths(std::string root) : root_(std::move(root)) {
  FERRY_ASSERT(!root_.empty(), "DataPaths needs a root directory");
  while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
}

Result<std::string> DataPaths::resolve(const std::string& relative) const {
  if (!relative.empty() && relative.front() == '/') {
    return Error(Errc::invalid_argument, "path '" + relative + "' is absolute; paths are relative to the data root");
  }
  if (relative.find('\0') != std::string::npos) {
    return Error(Errc::invalid_argument, "path '" + relative + "' contains a NUL byte");
  }
  std::string out = root_;
  std::string_view rest = relative;
  while (!rest.empty()) {
    const std::size_t slash = rest.find('/');
    const std::string_view part = rest.substr(0, slash);
    rest = slash == std::string_view::npos ? std::string_view() : rest.substr(slash + 1);
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      return Error(Errc::invalid_argument, "path '" + relative + "' contains '..'");
    }
    out += '/';
    out += part;
  }
  return out;
}

std::string DataPaths::parent_of(const std::string& os_path) {
  const std::size_t slash = os_path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return os_path.substr(0, slash);
}

}  // namespace ferry::asio_rt
