#include "sim/disk/disk.h"

#include "common/crc.h"

#include <algorithm>

#include "runtime/assert.h"
#include "runtime/completion.h"
#include "sim/node.h"
#include "sim/world.h"

namespace ferry::sim {

std::string parent_dir(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

namespace {
// The first key that may lie under `dir` (all keys under it share this prefix).
std::string child_prefix(const std::string& dir) { return dir.empty() ? std::string() : dir + "/"; }
bool starts_with(const std::string& s, const std::string& prefix) {
  return s.size() >= prefix.size() && s.compare(0, prefix.size(), prefix) == 0;
}
}  // namespace

SimDisk::SimDisk(World& world, NodeId node, DiskOptions options, Random random)
    : world_(world), node_(node), options_(options), random_(random) {
  options_.check();
}

void SimDisk::set_options(DiskOptions options) {
  options.check();
  options_ = options;
}

// ---- namespace -------------------------------------------------------------------------------

Result<std::shared_ptr<Inode>> SimDisk::open(const std::string& path, OpenOptions opts) {
  if (path.empty() || is_dir(path)) return Error(Errc::invalid_argument, "'" + path + "' is a directory");
  auto it = files_.find(path);
  if (it != files_.end()) {
    if (opts.create && opts.exclusive) return Error(Errc::already_exists, path);
    if (opts.truncate) FERRY_TRY(truncate(*it->second, 0));
    return it->second;
  }
  if (!opts.create) return Error(Errc::not_found, path);
  if (!is_dir(parent_dir(path))) return Error(Errc::not_found, "no directory '" + parent_dir(path) + "'");
  if (options_.eio_on_create_ppm > 0 && random_.chance_ppm(options_.eio_on_create_ppm)) {
    ++stats_.create_errors;
    return Error(Errc::io_error, "simulated EIO creating '" + path + "'");
  }
  auto inode = std::make_shared<Inode>();
  files_.emplace(path, inode);
  return inode;
}

void SimDisk::unlink(std::map<std::string, std::shared_ptr<Inode>>::iterator it) {
  FERRY_ASSERT_GE(used_bytes_, it->second->size());
  used_bytes_ -= it->second->size();
  it->second->set_linked(false);
  files_.erase(it);
}

Status SimDisk::rename(const std::string& from, const std::string& to) {
  auto src = files_.find(from);
  if (src == files_.end()) {
    if (is_dir(from)) return Error(Errc::unsupported, "renaming directory '" + from + "' is not simulated");
    return Error(Errc::not_found, from);
  }
  if (from == to) return {};
  if (is_dir(to)) return Error(Errc::invalid_argument, "'" + to + "' is a directory");
  if (!is_dir(parent_dir(to))) return Error(Errc::not_found, "no directory '" + parent_dir(to) + "'");
  std::shared_ptr<Inode> inode = src->second;
  files_.erase(src);
  if (auto dst = files_.find(to); dst != files_.end()) unlink(dst);
  files_.emplace(to, std::move(inode));
  return {};
}

bool SimDisk::has_children(const std::string& dir) const {
  const std::string prefix = child_prefix(dir);
  auto f = files_.lower_bound(prefix);
  if (f != files_.end() && starts_with(f->first, prefix)) return true;
  auto d = dirs_.lower_bound(prefix);
  return d != dirs_.end() && starts_with(*d, prefix);
}

Status SimDisk::remove(const std::string& path) {
  if (auto it = files_.find(path); it != files_.end()) {
    unlink(it);
    return {};
  }
  if (path.empty()) return Error(Errc::invalid_argument, "cannot remove the root directory");
  if (dirs_.count(path) == 0) return Error(Errc::not_found, path);
  if (has_children(path)) return Error(Errc::invalid_argument, "directory '" + path + "' is not empty");
  dirs_.erase(path);
  return {};
}

Status SimDisk::create_dirs(const std::string& path) {
  std::size_t pos = 0;
  while (pos <= path.size() && !path.empty()) {
    const auto slash = path.find('/', pos);
    const std::string prefix = path.substr(0, slash);
    if (files_.count(prefix) > 0) return Error(Errc::already_exists, "'" + prefix + "' is a file");
    dirs_.insert(prefix);
    if (slash == std::string::npos) break;
    pos = slash + 1;
  }
  return {};
}

Result<std::vector<std::string>> SimDisk::list(const std::string& dir) const {
  if (files_.count(dir) > 0) return Error(Errc::invalid_argument, "'" + dir + "' is a file");
  if (!is_dir(dir)) return Error(Errc::not_found, dir);
  const std::string prefix = child_prefix(dir);
  std::set<std::string> names;
  auto take = [&](const std::string& key) {
    const std::string rest = key.substr(prefix.size());
    if (rest.find('/') == std::string::npos) names.insert(rest);
  };
  for (auto f = files_.lower_bound(prefix); f != files_.end() && starts_with(f->first, prefix); ++f) take(f->first);
  for (auto d = dirs_.lower_bound(prefix); d != dirs_.end() && starts_with(*d, prefix); ++d) take(*d);
  return std::vector<std::string>(names.begin(), names.end());
}

std::vector<std::string> SimDisk::paths() const {
  std::vector<std::string> out;
  out.reserve(files_.size());
  for (const auto& [path, inode] : files_) out.push_back(path);  // the map keeps them sorted
  return out;
}

bool SimDisk::exists(const std::string& path) const { return files_.count(path) > 0 || is_dir(path); }

Result<std::uint64_t> SimDisk::file_size(const std::string& path) const {
  auto it = files_.find(path);
  if (it == files_.end()) return Error(Errc::not_found, path);
  return it->second->size();
}

SpaceInfo SimDisk::space() const {
  return SpaceInfo{options_.capacity_bytes,
                   options_.capacity_bytes > used_bytes_ ? options_.capacity_bytes - used_bytes_ : 0};
}

// ---- contents --------------------------------------------------------------------------------

Status SimDisk::reserve(const Inode& inode, std::uint64_t new_size) const {
  if (!inode.linked() || new_size <= inode.size()) return {};
  const std::uint64_t growth = new_size - inode.size();
  if (used_bytes_ + growth > options_.capacity_bytes) {
    return Error(Errc::no_space, fmt::format("{} more bytes needed, {} of {} used", growth, used_bytes_,
                                             options_.capacity_bytes));
  }
  return {};
}

void SimDisk::resized(const Inode& inode, std::uint64_t old_size) {
  if (!inode.linked()) return;
  used_bytes_ = used_bytes_ - old_size + inode.size();
}

Status SimDisk::write(Inode& inode, std::uint64_t offset, Bytes data) {
  const std::uint64_t old_size = inode.size();
  FERRY_TRY(reserve(inode, std::max(old_size, offset + data.size())));
  inode.write(offset, data);
  resized(inode, old_size);
  ++stats_.writes;
  return {};
}

Status SimDisk::truncate(Inode& inode, std::uint64_t size) {
  const std::uint64_t old_size = inode.size();
  FERRY_TRY(reserve(inode, size));
  inode.resize(size);
  resized(inode, old_size);
  return {};
}

Task<Status> SimDisk::finish_at(MonoTime due, std::function<Status()> effect) {
  SimNode& node = world_.node(node_);
  Completion<Status> done(node.executor());
  world_.schedule(due, node.tag(), [done, effect = std::move(effect)] { done.complete(effect()); });
  co_return co_await done.wait();
}

Task<Status> SimDisk::sync(std::shared_ptr<Inode> inode) {
  ++stats_.syncs;
  const bool lie = options_.lying_sync;
  // A lying sync takes no snapshot: the writes stay dirty (and a truncation's low-water mark
  // stays pending) for the next honest sync.
  auto snap = lie ? nullptr : std::make_shared<Inode::Snapshot>(inode->snapshot());
  Duration latency = options_.sync_latency;
  if (random_.chance_ppm(options_.slow_sync_ppm)) latency += options_.slow_sync_latency;
  const bool fail = random_.chance_ppm(options_.eio_on_sync_ppm);
  // FIFO: a sync never completes before one called earlier, so snapshots apply in order.
  last_sync_due_ = std::max(world_.now() + latency, last_sync_due_);
  const std::uint64_t generation = generation_;
  // (The effect is a named local: GCC 12 mishandles lambda temporaries inside co_await.)
  std::function<Status()> effect = [this, inode, snap, fail, generation]() -> Status {
    if (generation != generation_) return Error(Errc::io_error, "the disk crashed during sync");
    if (snap == nullptr) {
      ++stats_.lied_syncs;
      return {};
    }
    if (fail) {
      ++stats_.sync_errors;
      inode->drop(*snap);
      return Error(Errc::io_error, fmt::format("{}: the writes it covered are lost", DiskOptions::kEioOnSyncText));
    }
    inode->apply(*snap);
    return {};
  };
  co_return co_await finish_at(last_sync_due_, std::move(effect));
}

Task<Status> SimDisk::allocate(std::shared_ptr<Inode> inode, std::uint64_t size) {
  Status reserved = reserve(*inode, size);
  if (reserved.ok() && size > inode->size()) {
    const std::uint64_t old_size = inode->size();
    inode->resize(size);
    resized(*inode, old_size);
  }
  std::function<Status()> effect = [reserved]() -> Status { return reserved; };
  co_return co_await finish_at(world_.now() + options_.sync_latency, std::move(effect));
}

Task<Status> SimDisk::sync_dir() {
  std::function<Status()> effect = [] { return Status(); };
  co_return co_await finish_at(world_.now() + options_.sync_latency, std::move(effect));
}

// ---- lifecycle -------------------------------------------------------------------------------

void SimDisk::crash() {
  ++generation_;
  ++stats_.crashes;
  used_bytes_ = 0;
  for (auto& [path, inode] : files_) {  // path order: the draws are reproducible
    const bool torn = inode->dirty_sectors() > 0 && random_.chance_ppm(options_.torn_write_on_crash_ppm);
    stats_.torn_sectors_kept +=
        inode->crash(torn, options_.torn_sector_keep_ppm, options_.corrupt_torn_sector_ppm, random_);
    used_bytes_ += inode->size();
  }
}

void SimDisk::process_killed() {
  ++generation_;
  ++stats_.crashes;
}

Status SimDisk::read_fault(const std::string& path) {
  if (options_.slow_read_ppm > 0 && random_.chance_ppm(options_.slow_read_ppm)) {
    ++stats_.slow_reads;
    world_.node(node_).stall(options_.slow_read_latency);
  }
  if (options_.eio_on_read_ppm > 0 && random_.chance_ppm(options_.eio_on_read_ppm)) {
    ++stats_.read_errors;
    return Error(Errc::io_error, "simulated EIO reading '" + path + "'");
  }
  return {};
}

void SimDisk::digest(TraceHash& trace) const {
  auto crc = [](const std::vector<std::uint8_t>& b) {
    return std::uint64_t{crc32_update(0, Bytes(b.data(), b.size()))};
  };
  trace.mix(files_.size());
  for (const auto& [path, inode] : files_) {  // path order
    trace.mix(crc32_update(0, Bytes(reinterpret_cast<const std::uint8_t*>(path.data()), path.size())));
    trace.mix(crc(*inode->data()) << 32 | inode->size());
    trace.mix(crc(inode->durable()) << 32 | inode->durable_size());
  }
}

std::optional<Bytes> SimDisk::peek(const std::string& path) const {
  auto it = files_.find(path);
  if (it == files_.end()) return std::nullopt;
  const std::vector<std::uint8_t>& data = *it->second->data();
  return Bytes(data.data(), data.size());
}

void SimDisk::wipe() {
  ++generation_;
  ++stats_.wipes;
  for (auto& [path, inode] : files_) inode->set_linked(false);
  files_.clear();
  dirs_.clear();
  used_bytes_ = 0;
}

}  // namespace ferry::sim
