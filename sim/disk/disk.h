// SimDisk: one node's disk — the namespace, the files' bytes, capacity and disk faults. It
// survives the node's crashes (that is the point); wipe() empties it.
//
// Durability (file_system.h's model, exactly): writes and truncations change the current
// contents at once and are lost on crash until a sync() that started after them completes;
// namespace operations (create, rename, remove, create_dirs) are durable when they return. A
// crash drops unsynced data per file, or, with torn_write_on_crash_ppm, keeps a random subset of
// the unsynced 512-byte sectors (optionally garbage). A process kill keeps everything (the page
// cache survives; unsynced data stays unsynced). Syncs complete in the order they were called,
// after sync_latency (+ slow_sync_latency with slow_sync_ppm), and fail with io_error with
// eio_on_sync_ppm: then, as on Linux, the writes that sync covered are marked clean without
// becoming durable (a later sync succeeds; a power loss loses them). With lying_sync set when a
// sync is called, it succeeds (whatever eio_on_sync_ppm drew) and makes nothing durable: the
// writes stay dirty until an honest sync. Reads fail with io_error with
// eio_on_read_ppm and stall the node's loop with slow_read_ppm; a file's creation fails with
// io_error (creating nothing) with eio_on_create_ppm. Capacity counts the sizes of
// linked files; a write or truncation that would exceed it fails with no_space and changes
// nothing. A removed file's space is freed at once even if it is still open.
//
// Paths given here are normalized by SimFileSystem ("a/b", "" is the root).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "runtime/file_system.h"
#include "runtime/random.h"
#include "sim/disk/inode.h"
#include "sim/ids.h"
#include "sim/options.h"

namespace ferry::sim {

class World;

class SimDisk {
 public:
  // Counters since the disk was made (crashes and wipes keep them).
  struct Stats {
    std::uint64_t writes = 0;  // write() calls that changed contents (refused ones not counted)
    std::uint64_t syncs = 0;
    std::uint64_t sync_errors = 0;
    std::uint64_t read_errors = 0;
    std::uint64_t create_errors = 0;  // creations failed by eio_on_create_ppm
    std::uint64_t slow_reads = 0;
    std::uint64_t crashes = 0;
    std::uint64_t torn_sectors_kept = 0;
    std::uint64_t lied_syncs = 0;  // syncs that reported success with lying_sync set
    std::uint64_t wipes = 0;       // wipe() calls
  };

  SimDisk(World& world, NodeId node, DiskOptions options, Random random);

  // ---- namespace (durable at once) -------------------------------------------------------
  Result<std::shared_ptr<Inode>> open(const std::string& path, OpenOptions opts);
  Status rename(const std::string& from, const std::string& to);
  Status remove(const std::string& path);
  Status create_dirs(const std::string& path);
  Result<std::vector<std::string>> list(const std::string& dir) const;
  bool exists(const std::string& path) const;
  Result<std::uint64_t> file_size(const std::string& path) const;
  SpaceInfo space() const;

  // ---- contents --------------------------------------------------------------------------
  Status write(Inode& inode, std::uint64_t offset, Bytes data);
  Status truncate(Inode& inode, std::uint64_t size);
  // Completes on the node's loop; the node must be up. See the class comment.
  Task<Status> sync(std::shared_ptr<Inode> inode);
  Task<Status> allocate(std::shared_ptr<Inode> inode, std::uint64_t size);
  Task<Status> sync_dir();

  // ---- lifecycle and faults --------------------------------------------------------------
  void crash();  // power loss: unsynced data is lost (or torn); open handles go stale
  void process_killed();  // the process died: contents kept, open handles go stale
  // A read is about to happen: may stall the node (slow_read_ppm) or fail it (eio_on_read_ppm).
  Status read_fault(const std::string& path);
  void wipe();   // everything is gone; open handles go stale
  // Bumped by crash() and wipe(); a File opened in an older generation fails with io_error.
  std::uint64_t generation() const { return generation_; }
  // Fault knobs may be changed between events (checked on change).
  void set_options(DiskOptions options);
  const DiskOptions& options() const { return options_; }
  const Stats& stats() const { return stats_; }
  // Mixes the disk's state into `trace`: every file in path order, its name, its current
  // contents and its durable image.
  void digest(TraceHash& trace) const;
  std::uint64_t used_bytes() const { return used_bytes_; }
  // Every file's path, sorted (directories are not listed). For tests that inspect a disk.
  std::vector<std::string> paths() const;
  // The current contents of the file at `path` (normalized, see file_system.h), as the process
  // would read them; nullopt when no such file. For observers and tests: no fault, no random
  // draw, nothing traced. The view is valid until the next write, truncation, crash or wipe.
  std::optional<Bytes> peek(const std::string& path) const;

 private:
  bool is_dir(const std::string& path) const { return path.empty() || dirs_.count(path) > 0; }
  bool has_children(const std::string& dir) const;
  Status reserve(const Inode& inode, std::uint64_t new_size) const;
  void resized(const Inode& inode, std::uint64_t old_size);
  void unlink(std::map<std::string, std::shared_ptr<Inode>>::iterator it);
  Task<Status> finish_at(MonoTime due, std::function<Status()> effect);

  World& world_;
  NodeId node_;
  DiskOptions options_;
  Random random_;
  std::map<std::string, std::shared_ptr<Inode>> files_;
  std::set<std::string> dirs_;  // every directory but the root ""
  std::uint64_t used_bytes_ = 0;
  std::uint64_t generation_ = 0;
  MonoTime last_sync_due_{};
  Stats stats_;
};

// The directory part of a normalized path ("" for a top-level name).
std::string parent_dir(const std::string& path);

}  // namespace ferry::sim
