#include "runtime/asio/pread_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "runtime/asio/errors.h"

namespace ferry::asio_rt {

namespace {

Error refused(const std::string& what, const std::string& path) {
  return Error(Errc::invalid_argument, what + " " + path + ": opened read-only");
}

class PreadFile final : public File {
 public:
  PreadFile(std::string path, int fd, std::uint64_t size) : path_(std::move(path)), fd_(fd), size_(size) {}
  ~PreadFile() override { ::close(fd_); }
  PreadFile(const PreadFile&) = delete;
  PreadFile& operator=(const PreadFile&) = delete;

  const std::string& path() const override { return path_; }
  std::uint64_t size() const override { return size_; }
  Result<std::size_t> pread(std::uint64_t offset, MutableBytes buf) const override {
    std::size_t done = 0;
    while (done < buf.size()) {
      const ssize_t n = ::pread(fd_, buf.data() + done, buf.size() - done, static_cast<off_t>(offset + done));
      if (n < 0) {
        if (errno == EINTR) continue;
        return file_error(errno, "read " + path_);
      }
      if (n == 0) break;
      done += static_cast<std::size_t>(n);
    }
    return done;
  }
  Status pwrite(std::uint64_t, Bytes) override { return refused("write", path_); }
  Status truncate(std::uint64_t) override { return refused("truncate", path_); }
  Task<Status> sync() override { co_return Status(); }
  Task<Status> allocate(std::uint64_t) override { co_return refused("allocate", path_); }
  Result<FileView> view(std::uint64_t, std::size_t) const override { return refused("view", path_); }

 private:
  std::string path_;
  int fd_;
  std::uint64_t size_;
};

}  // namespace

Result<std::unique_ptr<File>> adopt_read_only(std::string path, int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return file_error(err, "stat " + path);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error(Errc::invalid_argument, path + " is not a regular file");
  }
  return std::unique_ptr<File>(
      std::make_unique<PreadFile>(std::move(path), fd, static_cast<std::uint64_t>(st.st_size)));
}

}  // namespace ferry::asio_rt
