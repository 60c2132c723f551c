// OneNode: the store's unit tests on the simulator — a sim::World with one bare node ("store")
// that the test drives by hand, plus direct access to that node's disk.
//
// Options (one_node_options): a fixed seed; syncs, allocations and directory syncs that complete
// at the virtual time they start (sync_latency 0: a test that counts or fails syncs needs no
// time to pass); the node's wall clock starting at kOneNodeEpochWallMs. Nothing runs until
// run() or run_for() is called; put/get and other synchronous store calls may be made between.
//
// Disk access bypasses the file system and the durability model: bytes() edits the current
// contents in place (neither dirty nor durable), so it is for tests that never power the node
// off. The disk follows sim/disk/disk.h, not a test double: a failed sync marks what it covered
// clean without making it durable (Linux), and open() needs the parent directory to exist.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "runtime/log.h"
#include "runtime/runtime.h"
#include "sim/disk/disk.h"
#include "sim/node.h"
#include "sim/world.h"

namespace ferry::store::testing {

// 2023-11-14T22:13:20Z: the node's wall clock at virtual time 0.
inline constexpr WallMs kOneNodeEpochWallMs = 1'700'000'000'000;

inline sim::WorldOptions one_node_options() {
  sim::WorldOptions o;
  o.seed = 42;
  o.clock.epoch_wall_ms = kOneNodeEpochWallMs;
  o.disk.sync_latency = Duration::zero();
  return o;
}

class OneNode {
 public:
  // Node start lines and the store's info lines are shown only with FERRY_LOG=info or lower.
  explicit OneNode(sim::WorldOptions options = one_node_options())
      : quiet_(quiet_logs()), world_(options), id_(world_.add_node("store")) {}

  // ---- the node's runtime ----------------------------------------------------------------
  Runtime& runtime() { return node(); }
  FileSystem& fs() { return node().fs(); }
  Clock& clock() { return node().clock(); }
  Executor& executor() { return node().executor(); }
  WallMs wall_ms() { return node().wall_ms(); }
  sim::World& world() { return world_; }
  sim::SimNode& node() { return world_.node(id_); }
  sim::SimDisk& disk() { return node().disk(); }

  // ---- driving ---------------------------------------------------------------------------
  // Spawns `task` on the node and runs the world until it finishes (at most an hour of virtual
  // time); returns its value. Work it leaves behind (spawned tasks, timers) runs only on the
  // next run()/run_for(). A task that does not finish fails the test: the exception names the
  // run report (deadlock, time limit, destroyed), and GoogleTest reports it.
  template <typename T>
  T run(Task<T> task) {
    auto r = world_.run_task(id_, std::move(task), std::chrono::hours(1));
    if (!r.ok()) throw std::runtime_error("OneNode::run: the task did not finish: " + r.report.message);
    if constexpr (!std::is_void_v<T>) return std::move(*r.value);
  }
  // Runs every event due within `d`; virtual time (and the wall clock) then advance by exactly d.
  void run_for(Duration d) { world_.run_for(d); }
  // Sets the node's wall clock to `ms` now (a jump either way; the monotonic clock is untouched).
  void set_wall_ms(WallMs ms) { world_.jump_wall_clock(id_, ms - wall_ms()); }
  // The process dies (World::kill): the node's tasks are destroyed without being resumed and the
  // node stays down; files keep what was written. Lets a test destroy a started component after
  // the tasks that point at it.
  void kill() { world_.kill(id_); }

  // ---- the disk --------------------------------------------------------------------------
  // The current contents of `path` (no "./" or "//": a normalized path), editable in place.
  // Valid until the file is removed or grows (a file that grows while views pin it gets a new
  // buffer). Throws (failing the test) if there is no such file.
  std::vector<std::uint8_t>& bytes(const std::string& path) { return *inode(path).data(); }
  // Creates `path` (and its directories) holding `contents`, replacing any file there.
  void create_file(const std::string& path, const std::vector<std::uint8_t>& contents) {
    check(disk().create_dirs(sim::parent_dir(path)), "create_dirs for " + path);
    auto made = disk().open(path, OpenOptions{.create = true, .truncate = true});
    if (!made.ok()) throw std::runtime_error("OneNode::create_file: " + made.error().to_string());
    check(disk().write(**made, 0, Bytes(contents.data(), contents.size())), "write " + path);
  }
  // Sets the size of `path` (zero fill when growing), as a truncation would.
  void resize_file(const std::string& path, std::uint64_t size) {
    check(disk().truncate(inode(path), size), "truncate " + path);
  }
  void remove_file(const std::string& path) { check(disk().remove(path), "remove " + path); }
  // Every file's path, sorted.
  std::vector<std::string> paths() { return disk().paths(); }
  const sim::SimDisk::Stats& disk_stats() { return disk().stats(); }
  std::uint64_t used_bytes() { return disk().used_bytes(); }
  void set_capacity_bytes(std::uint64_t capacity_bytes) {
    sim::DiskOptions o = disk().options();
    o.capacity_bytes = capacity_bytes;
    disk().set_options(o);
  }
  // From now on every file creation fails with io_error (creating nothing), or none does.
  void set_creates_fail(bool fail) {
    sim::DiskOptions o = disk().options();
    o.eio_on_create_ppm = fail ? 1'000'000 : 0;
    disk().set_options(o);
  }
  // From now on every sync fails with io_error (and loses what it covered), or none does.
  void set_syncs_fail(bool fail) {
    sim::DiskOptions o = disk().options();
    o.eio_on_sync_ppm = fail ? 1'000'000 : 0;
    disk().set_options(o);
  }

 private:
  static bool quiet_logs() {
    if (std::getenv("FERRY_LOG") != nullptr) return false;
    set_default_log_level(spdlog::level::warn);
    return true;
  }
  static void check(const Status& st, const std::string& what) {
    if (!st.ok()) throw std::runtime_error("OneNode: " + what + ": " + st.error().to_string());
  }
  sim::Inode& inode(const std::string& path) {
    auto found = disk().open(path, OpenOptions{});
    if (!found.ok()) throw std::runtime_error("OneNode: no file '" + path + "': " + found.error().to_string());
    return **found;  // the disk's map keeps the inode alive while the file is linked
  }

  bool quiet_;  // set before the world logs anything
  sim::World world_;
  sim::NodeId id_;
};

}  // namespace ferry::store::testing
