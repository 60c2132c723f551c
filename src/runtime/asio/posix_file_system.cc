#include "runtime/asio/posix_file_system.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <utility>

#include "runtime/asio/errors.h"
#include "runtime/asio/mapped_file.h"
#include "runtime/asio/pread_file.h"

namespace ferry::asio_rt {

Status fsync_directory(const std::string& os_path, const std::string& what) {
  const int fd = ::open(os_path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return file_error(errno, "open directory " + what);
  const int rc = ::fsync(fd);
  const int err = errno;
  ::close(fd);
  if (rc != 0) return file_error(err, "fsync directory " + what);
  return {};
}

PosixFileSystem::PosixFileSystem(std::string root, DiskThreads threads, bool sync_namespace)
    : paths_(std::move(root)), threads_(threads), sync_namespace_(sync_namespace) {}

Status PosixFileSystem::sync_parent(const std::string& os_path, const std::string& what) const {
  if (!sync_namespace_) return {};
  return fsync_directory(DataPaths::parent_of(os_path), "holding " + what);
}

Result<std::unique_ptr<File>> PosixFileSystem::open(const std::string& path, OpenOptions opts) {
  auto os_path = paths_.resolve(path);
  if (!os_path.ok()) return std::move(os_path).error();
  if (opts.read_only) {
    if (opts.create || opts.exclusive || opts.truncate) {
      return Error(Errc::invalid_argument, "open " + path + ": read_only with create, exclusive or truncate");
    }
    const int fd = ::open(os_path->c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return file_error(errno, "open " + path);
    return adopt_read_only(path, fd);
  }
  int flags = O_RDWR | O_CLOEXEC;
  if (opts.create) flags |= O_CREAT;
  if (opts.create && opts.exclusive) flags |= O_EXCL;
  if (opts.truncate) flags |= O_TRUNC;
  // Whether open() creates the file decides whether the directory needs a sync. The node is the
  // only writer under its root, so checking first is not a race.
  const bool creates = opts.create && ::access(os_path->c_str(), F_OK) != 0;
  const int fd = ::open(os_path->c_str(), flags, 0644);
  if (fd < 0) return file_error(errno, "open " + path);
  if (creates) {
    const Status synced = sync_parent(*os_path, path);
    if (!synced.ok()) {
      ::close(fd);
      return synced.error();
    }
  }
  return MappedFile::adopt(path, fd, threads_);
}

Status PosixFileSystem::rename(const std::string& from, const std::string& to) {
  auto os_from = paths_.resolve(from);
  if (!os_from.ok()) return std::move(os_from).error();
  auto os_to = paths_.resolve(to);
  if (!os_to.ok()) return std::move(os_to).error();
  if (::rename(os_from->c_str(), os_to->c_str()) != 0) return file_error(errno, "rename " + from + " to " + to);
  FERRY_TRY(sync_parent(*os_to, to));
  if (DataPaths::parent_of(*os_from) != DataPaths::parent_of(*os_to)) FERRY_TRY(sync_parent(*os_from, from));
  return {};
}

Status PosixFileSystem::remove(const std::string& path) {
  auto os_path = paths_.resolve(path);
  if (!os_path.ok()) return std::move(os_path).error();
  if (*os_path == paths_.root()) return Error(Errc::invalid_argument, "remove of the data root");
  if (std::remove(os_path->c_str()) != 0) return file_error(errno, "remove " + path);
  return sync_parent(*os_path, path);
}

Status PosixFileSystem::create_dirs(const std::string& path) {
  auto os_path = paths_.resolve(path);
  if (!os_path.ok()) return std::move(os_path).error();
  // Walk down from the root, creating what is missing (resolve() left no "." or ".." parts).
  std::size_t pos = paths_.root().size();
  while (pos < os_path->size()) {
    const std::size_t next = std::min(os_path->find('/', pos + 1), os_path->size());
    const std::string dir = os_path->substr(0, next);
    if (::mkdir(dir.c_str(), 0755) == 0) {
      FERRY_TRY(sync_parent(dir, path));
    } else {
      const int err = errno;
      struct stat st {};
      if (err != EEXIST) return file_error(err, "create directory " + path);
      if (::stat(dir.c_str(), &st) != 0) return file_error(errno, "create directory " + path);
      if (!S_ISDIR(st.st_mode)) {
        return Error(Errc::already_exists, "create directory " + path + ": a file is in the way");
      }
    }
    pos = next;
  }
  return {};
}

Result<std::vector<std::string>> PosixFileSystem::list(const std::string& dir) const {
  auto os_path = paths_.resolve(dir);
  if (!os_path.ok()) return std::move(os_path).error();
  DIR* d = ::opendir(os_path->c_str());
  if (d == nullptr) return file_error(errno, "list " + dir);
  std::vector<std::string> names;
  errno = 0;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
    errno = 0;
  }
  const int err = errno;
  ::closedir(d);
  if (err != 0) return file_error(err, "list " + dir);
  std::sort(names.begin(), names.end());  // std::string compares bytes as unsigned char
  return names;
}

bool PosixFileSystem::exists(const std::string& path) const {
  auto os_path = paths_.resolve(path);
  return os_path.ok() && ::access(os_path->c_str(), F_OK) == 0;
}

Result<std::uint64_t> PosixFileSystem::file_size(const std::string& path) const {
  auto os_path = paths_.resolve(path);
  if (!os_path.ok()) return std::move(os_path).error();
  struct stat st {};
  if (::stat(os_path->c_str(), &st) != 0) return file_error(errno, "size of " + path);
  return static_cast<std::uint64_t>(st.st_size);
}

Result<SpaceInfo> PosixFileSystem::space() const {
  struct statvfs vfs {};
  if (::statvfs(paths_.root().c_str(), &vfs) != 0) return file_error(errno, "statvfs of the data root");
  SpaceInfo info;
  info.capacity_bytes = static_cast<std::uint64_t>(vfs.f_blocks) * vfs.f_frsize;
  info.free_bytes = static_cast<std::uint64_t>(vfs.f_bavail) * vfs.f_frsize;
  return info;
}

namespace {
Task<Status> ready(Status status) { co_return status; }
}  // namespace

// Not a coroutine itself: `dir` is a reference and a lazy Task may start after it is gone, so
// everything the job needs is copied before the Task is returned.
Task<Status> PosixFileSystem::sync_dir(const std::string& dir) {
  auto os_path = paths_.resolve(dir);
  if (!os_path.ok()) return ready(std::move(os_path).error());
  std::string what = dir.empty() ? std::string("the data root") : dir;
  return threads_.sync.run([target = std::move(*os_path), what = std::move(what)]() -> Status {
    return fsync_directory(target, what);
  });
}

}  // namespace ferry::asio_rt
