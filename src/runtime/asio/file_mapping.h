// The two OS resources behind a production File, each freed by its last owner:
//  * FileDescriptor: an open descriptor, closed on destruction. Shared between the File and the
//    I/O-thread jobs (sync, allocate) that are still running when the File is closed.
//  * FileMapping: one MAP_SHARED, read-write mapping of a file's first `length` bytes, unmapped
//    on destruction. The File holds its current mapping; each FileView pins the mapping it
//    points into, so a view stays readable after the File grows (and remaps), is closed, or is
//    removed. A mapping may be longer than the file: only the first size() bytes are touched.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "runtime/result.h"

namespace ferry::asio_rt {

class FileDescriptor {
 public:
  explicit FileDescriptor(int fd) : fd_(fd) {}
  ~FileDescriptor();
  FileDescriptor(const FileDescriptor&) = delete;
  FileDescriptor& operator=(const FileDescriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

class FileMapping {
 public:
  // Maps [0, length) of `fd` (length > 0). Errors: io_error / no_space naming `path`.
  static Result<std::shared_ptr<FileMapping>> map(int fd, std::size_t length, const std::string& path);
  ~FileMapping();
  FileMapping(const FileMapping&) = delete;
  FileMapping& operator=(const FileMapping&) = delete;

  std::uint8_t* data() const { return data_; }
  std::size_t length() const { return length_; }

 private:
  FileMapping(std::uint8_t* data, std::size_t length) : data_(data), length_(length) {}
  std::uint8_t* data_;
  std::size_t length_;
};

std::size_t page_size();
// `n` rounded up to a multiple of the page size.
std::uint64_t round_up_to_page(std::uint64_t n);

}  // namespace ferry::asio_rt
