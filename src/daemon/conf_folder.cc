#include "daemon/conf_folder.h"

namespace ferry::daemon {

std::pair<std::string, std::string> split_folder(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return {".", path};
  if (slash == 0) return {"/", path.substr(1)};
  return {path.substr(0, slash), path.substr(slash + 1)};
}

}  // namespace ferry::daemon
