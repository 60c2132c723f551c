#include "tools/daemon/read_only_dir.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace ferry::tools {

namespace {

Error refused(const std::string& what, const std::string& path) {
  return Error(Errc::invalid_argument, what + " " + path + ": read-only configuration folder");
}

Error os_error(const std::string& what, const std::string& path, int err) {
  const Errc code = err == ENOENT ? Errc::not_found : Errc::io_error;
  return Error(code, what + " " + path + ": " + std::strerror(err));
}

class ReadOnlyFile final : public File {
 public:
  ReadOnlyFile(std::string path, int fd, std::uint64_t size) : path_(std::move(path)), fd_(fd), size_(size) {}
  ~ReadOnlyFile() override { ::close(fd_); }
  const std::string& path() const override { return path_; }
  std::uint64_t size() const override { return size_; }
  Result<std::size_t> pread(std::uint64_t offset, MutableBytes buf) const override {
    std::size_t done = 0;
    while (done < buf.size()) {
      const ssize_t n = ::pread(fd_, buf.data() + done, buf.size() - done, static_cast<off_t>(offset + done));
      if (n < 0) {
        if (errno == EINTR) continue;
        return os_error("read", path_, errno);
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

ReadOnlyDir::ReadOnlyDir(std::string folder) : folder_(std::move(folder)) {}

Result<std::string> ReadOnlyDir::resolve(const std::string& path) const {
  const std::filesystem::path p(path);
  if (p.is_absolute()) return Error(Errc::invalid_argument, "absolute path " + path);
  for (const auto& part : p) {
    if (part == "..") return Error(Errc::invalid_argument, "path " + path + " leaves " + folder_);
  }
  return (std::filesystem::path(folder_) / p).string();
}

Result<std::unique_ptr<File>> ReadOnlyDir::open(const std::string& path, OpenOptions opts) {
  if (opts.create || opts.truncate || opts.exclusive) return refused("open for writing", path);
  auto os = resolve(path);
  if (!os) return std::move(os).error();
  const int fd = ::open(os->c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return os_error("open", *os, errno);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int err = errno;
    ::close(fd);
    return os_error("stat", *os, err);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error(Errc::invalid_argument, *os + " is not a regular file");
  }
  return std::unique_ptr<File>(std::make_unique<ReadOnlyFile>(*os, fd, static_cast<std::uint64_t>(st.st_size)));
}

Status ReadOnlyDir::rename(const std::string& from, const std::string&) { return refused("rename", from); }
Status ReadOnlyDir::remove(const std::string& path) { return refused("remove", path); }
Status ReadOnlyDir::create_dirs(const std::string& path) { return refused("create", path); }

Result<std::vector<std::string>> ReadOnlyDir::list(const std::string& dir) const {
  auto os = resolve(dir);
  if (!os) return std::move(os).error();
  std::error_code ec;
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(*os, ec)) names.push_back(e.path().filename().string());
  if (ec) return os_error("list", *os, ec.value());
  std::sort(names.begin(), names.end());
  return names;
}

bool ReadOnlyDir::exists(const std::string& path) const {
  auto os = resolve(path);
  std::error_code ec;
  return os && std::filesystem::exists(*os, ec);
}

Result<std::uint64_t> ReadOnlyDir::file_size(const std::string& path) const {
  auto os = resolve(path);
  if (!os) return std::move(os).error();
  struct stat st {};
  if (::stat(os->c_str(), &st) != 0) return os_error("stat", *os, errno);
  return static_cast<std::uint64_t>(st.st_size);
}

Result<SpaceInfo> ReadOnlyDir::space() const { return Error(Errc::invalid_argument, "space of " + folder_ + ": not offered"); }

Task<Status> ReadOnlyDir::sync_dir(const std::string&) { co_return Status(); }

std::pair<std::string, std::string> split_folder(const std::string& path) {
  const auto slash = path.rfind('/');
  if (slash == std::string::npos) return {".", path};
  if (slash == 0) return {"/", path.substr(1)};
  return {path.substr(0, slash), path.substr(slash + 1)};
}

}  // namespace ferry::tools
