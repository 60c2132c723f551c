#include "daemon/dir_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace ferry::daemon {

Result<DirLock> DirLock::acquire(const std::string& dir) {
  const std::string path = dir + "/lock";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return Error(Errc::io_error, fmt::format("cannot open {}: {}", path, std::strerror(errno)));
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    char pid[32] = {};
    const ssize_t n = ::pread(fd, pid, sizeof(pid) - 1, 0);
    ::close(fd);
    if (err == EWOULDBLOCK) {
      std::string holder = n > 0 ? std::string(pid, static_cast<std::size_t>(n)) : std::string("?");
      while (!holder.empty() && (holder.back() == '\n' || holder.back() == ' ')) holder.pop_back();
      return Error(Errc::busy, fmt::format("{} is in use by another process (pid {})", dir, holder));
    }
    return Error(Errc::io_error, fmt::format("cannot lock {}: {}", path, std::strerror(err)));
  }
  const std::string me = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, me.data(), me.size(), 0) != static_cast<ssize_t>(me.size())) {
    // The pid is only informative; the lock itself is held.
  }
  return DirLock(fd);
}

DirLock::~DirLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace ferry::daemon
