#include "runtime/read_only_file_system.h"

namespace ferry {

namespace {

Error refused(const std::string& what, const std::string& path) {
  return Error(Errc::invalid_argument, what + " " + path + ": read-only folder");
}

}  // namespace

Result<std::unique_ptr<File>> ReadOnlyFileSystem::open(const std::string& path, OpenOptions opts) {
  if (opts.create || opts.truncate || opts.exclusive) return refused("open for writing", path);
  opts.read_only = true;
  return base_.open(path, opts);
}

Status ReadOnlyFileSystem::rename(const std::string& from, const std::string&) { return refused("rename", from); }
Status ReadOnlyFileSystem::remove(const std::string& path) { return refused("remove", path); }
Status ReadOnlyFileSystem::create_dirs(const std::string& path) { return refused("create", path); }

Task<Status> ReadOnlyFileSystem::sync_dir(const std::string&) { co_return Status(); }

}  // namespace ferry
