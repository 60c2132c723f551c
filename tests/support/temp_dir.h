// TempDir: a fresh directory for one test's files, removed with everything in it when the object
// goes. The one temporary-directory helper of the tests (and of `mqbench`'s data root).
//
// Unique per process and per instance: mkdtemp creates "<parent>/ferry-<what>-XXXXXX" under a
// name no directory had a moment before, so test binaries, parameterized instances and builds
// running at the same time never share one. The parent is $TMPDIR (else /tmp) unless the caller
// names one (a build folder, say).
//
// Kept instead of removed, and its path printed on stderr, when FERRY_KEEP_TEST_DIRS=1 is in the
// environment or after keep() (a test keeps its files for inspection when it failed).
//
// Not being able to create it is not an outcome a test handles: the constructor throws
// std::runtime_error naming the path and errno, which GoogleTest reports as the test's failure.
// A removal that fails in the destructor is printed on stderr (a destructor cannot fail a test).
//
// Not movable: fixtures hold references to it (LocalCluster) and build paths from it for the
// whole test. Tests and tools may touch real files and read the environment; components may not.
#pragma once

#include <errno.h>  // program_invocation_short_name (glibc)
#include <stdlib.h>  // mkdtemp

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

namespace ferry::testing {

class TempDir {
 public:
  // Creates "<parent>/ferry-<what>-XXXXXX". `what` defaults to the program's name (so a kept or
  // leaked directory says which test binary made it); `parent` defaults to $TMPDIR or /tmp and
  // must exist (a trailing '/' is fine). Throws std::runtime_error when mkdtemp fails.
  explicit TempDir(std::string_view what = program_invocation_short_name, std::string parent = {}) {
    if (parent.empty()) parent = default_parent();
    while (parent.size() > 1 && parent.back() == '/') parent.pop_back();
    std::string pattern = parent + "/ferry-" + std::string(what) + "-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
      throw std::runtime_error("TempDir: mkdtemp " + pattern + ": " + std::strerror(errno));
    }
    path_ = std::move(pattern);
  }
  ~TempDir() {
    if (keep_ || keep_requested_by_environment()) {
      std::fprintf(stderr, "kept %s\n", path_.c_str());
      return;
    }
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
    if (ec) std::fprintf(stderr, "TempDir: could not remove %s: %s\n", path_.c_str(), ec.message().c_str());
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  // The directory's absolute path, without a trailing '/'.
  const std::string& path() const { return path_; }
  // path() + "/" + name: a file or folder inside it (not created).
  std::string operator/(std::string_view name) const { return path_ + "/" + std::string(name); }
  // Leaves the directory (and prints its path) when the object goes.
  void keep() { keep_ = true; }

 private:
  static std::string default_parent() {
    const char* tmp = std::getenv("TMPDIR");
    return tmp != nullptr && *tmp != '\0' ? std::string(tmp) : std::string("/tmp");
  }
  static bool keep_requested_by_environment() {
    const char* keep = std::getenv("FERRY_KEEP_TEST_DIRS");
    return keep != nullptr && std::string_view(keep) == "1";
  }

  std::string path_;
  bool keep_ = false;
};

}  // namespace ferry::testing
