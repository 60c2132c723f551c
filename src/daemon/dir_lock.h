// DirLock: an exclusive advisory lock (flock) on {dir}/lock, held for the life of the object, so
// that two daemons never share one data directory (two brokers recovering and appending to the
// same CommitLog would destroy it). The kernel drops the lock when the process dies, kill -9
// included, so a crashed broker never leaves a stale lock behind.
#pragma once

#include <string>

#include "runtime/result.h"

namespace ferry::daemon {

class DirLock {
 public:
  // Errors: busy ("{dir} is in use by another process (pid N)") when another process holds it;
  // io_error naming the file when it cannot be created.
  static Result<DirLock> acquire(const std::string& dir);

  DirLock(DirLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  DirLock& operator=(DirLock&&) = delete;
  DirLock(const DirLock&) = delete;
  ~DirLock();

 private:
  explicit DirLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace ferry::daemon
