// Where the shell finds a program (`command -v`), for tests that run a tool installed beside the
// build (chromium, curl): its path, or "" when it is not installed.
#pragma once

#include <cstdio>
#include <string>

namespace ferry::testing {

inline std::string command_path(const std::string& name) {
  std::FILE* p = ::popen(("command -v " + name + " 2>/dev/null").c_str(), "r");
  if (p == nullptr) return "";
  char line[4096] = {};
  const bool got = std::fgets(line, sizeof line, p) != nullptr;
  ::pclose(p);
  std::string path = got ? line : "";
  while (!path.empty() && (path.back() == '\n' || path.back() == '\r')) path.pop_back();
  return path;
}

}  // namespace ferry::testing
