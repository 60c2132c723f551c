#include "runtime/asio/file_mapping.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>

#include "runtime/asio/errors.h"
#include "runtime/assert.h"

namespace ferry::asio_rt {

FileDescriptor::~FileDescriptor() {
  if (fd_ >= 0) ::close(fd_);
}

Result<std::shared_ptr<FileMapping>> FileMapping::map(int fd, std::size_t length, const std::string& path) {
  FERRY_ASSERT(length > 0, "mapping {} with length 0", path);
  void* p = ::mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) return file_error(errno, "mmap " + path + " (" + std::to_string(length) + " bytes)");
  return std::shared_ptr<FileMapping>(new FileMapping(static_cast<std::uint8_t*>(p), length));
}

FileMapping::~FileMapping() { ::munmap(data_, length_); }

std::size_t page_size() {
  static const std::size_t size = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  return size;
}

std::uint64_t round_up_to_page(std::uint64_t n) {
  const std::uint64_t p = page_size();
  return (n + p - 1) / p * p;
}

}  // namespace ferry::asio_rt
