#include "runtime/asio/reserve.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <vector>

namespace ferry::asio_rt {

namespace {

constexpr std::uint64_t kZeroChunkBytes = 1 << 20;

// Writes zeros over [from, to), which lies beyond the file's size: the blocks now exist.
int write_zeros(int fd, std::uint64_t from, std::uint64_t to) {
  static const std::vector<char> zeros(kZeroChunkBytes, 0);
  while (from < to) {
    const std::size_t n = static_cast<std::size_t>(std::min(kZeroChunkBytes, to - from));
    const ssize_t wrote = ::pwrite(fd, zeros.data(), n, static_cast<off_t>(from));
    if (wrote < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    from += static_cast<std::uint64_t>(wrote);
  }
  return 0;
}

}  // namespace

int reserve_blocks(int fd, std::uint64_t offset, std::uint64_t len, ReserveMethod method) {
  if (len == 0) return 0;
  if (method == ReserveMethod::fallocate_or_zeros) {
    // glibc's posix_fallocate emulation would write into the whole range, racing with the loop's
    // stores into the mapping below the size; Linux fallocate is called directly.
    if (::fallocate(fd, 0, static_cast<off_t>(offset), static_cast<off_t>(len)) == 0) return 0;
    const int err = errno;
    if (err != EOPNOTSUPP && err != ENOSYS) return err;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) return errno;
  const std::uint64_t size = static_cast<std::uint64_t>(st.st_size);
  const std::uint64_t end = offset + len;
  if (size >= end) return 0;  // below the size the blocks were reserved when it grew
  return write_zeros(fd, std::max(size, offset), end);
}

}  // namespace ferry::asio_rt
