#include "sim/disk/file_system.h"

#include <algorithm>
#include <cstring>

namespace ferry::sim {

Result<std::string> normalize_path(const std::string& path) {
  if (!path.empty() && path.front() == '/') return Error(Errc::invalid_argument, "absolute path '" + path + "'");
  std::string out;
  std::size_t pos = 0;
  while (pos <= path.size()) {
    const auto slash = std::min(path.find('/', pos), path.size());
    const std::string part = path.substr(pos, slash - pos);
    if (part == "..") return Error(Errc::invalid_argument, "'..' in path '" + path + "'");
    if (!part.empty() && part != ".") {
      if (!out.empty()) out += '/';
      out += part;
    }
    pos = slash + 1;
  }
  return out;
}

// ---- SimFile ---------------------------------------------------------------------------------

SimFile::SimFile(SimDisk& disk, std::shared_ptr<Inode> inode, std::string path, bool read_only)
    : disk_(disk), inode_(std::move(inode)), path_(std::move(path)), generation_(disk.generation()), read_only_(read_only) {}

Status SimFile::check_writable() const {
  if (read_only_) return Error(Errc::invalid_argument, "'" + path_ + "' was opened read-only");
  return {};
}

Status SimFile::check_live() const {
  if (generation_ != disk_.generation()) {
    return Error(Errc::io_error, "'" + path_ + "' was opened before the node crashed or its disk was wiped");
  }
  return {};
}

Result<std::size_t> SimFile::pread(std::uint64_t offset, MutableBytes buf) const {
  FERRY_TRY(check_live());
  FERRY_TRY(disk_.read_fault(path_));
  const std::uint64_t size = inode_->size();
  if (offset >= size) return std::size_t{0};
  const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(buf.size(), size - offset));
  std::memcpy(buf.data(), inode_->data()->data() + offset, n);
  return n;
}

Status SimFile::pwrite(std::uint64_t offset, Bytes data) {
  FERRY_TRY(check_writable());
  FERRY_TRY(check_live());
  return disk_.write(*inode_, offset, data);
}

Status SimFile::truncate(std::uint64_t size) {
  FERRY_TRY(check_writable());
  FERRY_TRY(check_live());
  return disk_.truncate(*inode_, size);
}

Task<Status> SimFile::sync() {
  if (read_only_) co_return Status();  // nothing written through it to make durable
  Status live = check_live();
  if (!live.ok()) co_return live;
  co_return co_await disk_.sync(inode_);
}

Task<Status> SimFile::allocate(std::uint64_t size) {
  if (read_only_) co_return check_writable();
  Status live = check_live();
  if (!live.ok()) co_return live;
  co_return co_await disk_.allocate(inode_, size);
}

Result<FileView> SimFile::view(std::uint64_t offset, std::size_t len) const {
  FERRY_TRY(check_live());
  FERRY_TRY(disk_.read_fault(path_));
  const auto& buffer = inode_->data();
  const std::uint64_t size = buffer->size();
  if (offset > size) return Error(Errc::invalid_argument, fmt::format("view at {} past the end {} of '{}'", offset, size, path_));
  const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(len, size - offset));
  return FileView(std::shared_ptr<const void>(buffer), Bytes(buffer->data() + offset, n));
}

// ---- SimFileSystem ---------------------------------------------------------------------------

Result<std::unique_ptr<File>> SimFileSystem::open(const std::string& path, OpenOptions opts) {
  auto norm = normalize_path(path);
  if (!norm.ok()) return std::move(norm).error();
  if (opts.read_only && (opts.create || opts.exclusive || opts.truncate)) {
    return Error(Errc::invalid_argument, "open '" + path + "': read_only with create, exclusive or truncate");
  }
  auto inode = disk_.open(*norm, opts);
  if (!inode.ok()) return std::move(inode).error();
  return std::unique_ptr<File>(std::make_unique<SimFile>(disk_, std::move(*inode), *norm, opts.read_only));
}

Status SimFileSystem::rename(const std::string& from, const std::string& to) {
  auto a = normalize_path(from);
  if (!a.ok()) return std::move(a).error();
  auto b = normalize_path(to);
  if (!b.ok()) return std::move(b).error();
  return disk_.rename(*a, *b);
}

Status SimFileSystem::remove(const std::string& path) {
  auto norm = normalize_path(path);
  if (!norm.ok()) return std::move(norm).error();
  return disk_.remove(*norm);
}

Status SimFileSystem::create_dirs(const std::string& path) {
  auto norm = normalize_path(path);
  if (!norm.ok()) return std::move(norm).error();
  return disk_.create_dirs(*norm);
}

Result<std::vector<std::string>> SimFileSystem::list(const std::string& dir) const {
  auto norm = normalize_path(dir);
  if (!norm.ok()) return std::move(norm).error();
  return disk_.list(*norm);
}

bool SimFileSystem::exists(const std::string& path) const {
  auto norm = normalize_path(path);
  return norm.ok() && disk_.exists(*norm);
}

Result<std::uint64_t> SimFileSystem::file_size(const std::string& path) const {
  auto norm = normalize_path(path);
  if (!norm.ok()) return std::move(norm).error();
  return disk_.file_size(*norm);
}

namespace {
// A coroutine of its own so that nothing refers to the caller's string after the call.
Task<Status> sync_dir_task(SimDisk& disk, Result<std::string> dir) {
  if (!dir.ok()) co_return std::move(dir).error();
  if (!disk.exists(*dir)) co_return Error(Errc::not_found, *dir);
  co_return co_await disk.sync_dir();
}
}  // namespace

Task<Status> SimFileSystem::sync_dir(const std::string& dir) { return sync_dir_task(disk_, normalize_path(dir)); }

}  // namespace ferry::sim
