// Inode: one simulated file's bytes, as the process sees them and as they would survive a crash.
//
//  * data():   the current contents, shared with FileViews. Writes change it in place; when it
//              must grow past its capacity while views pin it, a new buffer is made (copy on
//              grow) and the old one lives on in the views (which then miss later writes).
//  * durable:  what a crash falls back to.
//  * dirty:    512-byte sectors written since they were last made durable, each with the
//              version of its last change. Truncation is tracked by a low-water size instead.
//
// A sync is two steps: snapshot() at the call (what was written before it), apply() when it
// completes. Snapshots apply in the order taken (SimDisk keeps syncs FIFO), so a later
// completion never rolls durable contents back.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "runtime/network.h"  // Bytes
#include "runtime/random.h"
#include "sim/options.h"

namespace ferry::sim {

class Inode {
 public:
  struct Snapshot {
    std::uint64_t version = 0;
    std::uint64_t size = 0;
    std::uint64_t low_water = 0;  // the smallest size since the previous snapshot
    std::vector<std::pair<std::uint64_t, std::vector<std::uint8_t>>> sectors;  // (index, bytes)
  };

  Inode() : data_(std::make_shared<std::vector<std::uint8_t>>()) {}

  std::uint64_t size() const { return data_->size(); }
  const std::shared_ptr<std::vector<std::uint8_t>>& data() const { return data_; }
  std::uint64_t durable_size() const { return durable_.size(); }
  const std::vector<std::uint8_t>& durable() const { return durable_; }
  std::size_t dirty_sectors() const { return dirty_.size(); }
  // Whether a directory entry names this inode (its size counts against the disk's capacity).
  bool linked() const { return linked_; }
  void set_linked(bool linked) { linked_ = linked; }

  // Copies `bytes` to `offset`, growing with zeros as needed. The caller checked capacity.
  void write(std::uint64_t offset, Bytes bytes);
  // Sets the size (zero fill when growing).
  void resize(std::uint64_t size);

  Snapshot snapshot();
  void apply(const Snapshot& snap);
  // A sync failed (Linux semantics): the sectors the snapshot covered count as clean although they
  // never reached the durable image. The current contents keep them; a crash loses them.
  void drop(const Snapshot& snap);

  // Falls back to the durable contents. When `torn`, each dirty sector survives with
  // keep_ppm (and then, with corrupt_ppm, holds garbage where it differs from the durable
  // image). Returns the number of sectors kept.
  std::uint64_t crash(bool torn, std::uint32_t keep_ppm, std::uint32_t corrupt_ppm, Random& random);

  // Both images become empty (wiped disk).
  void clear();

 private:
  void grow_buffer(std::uint64_t size);

  std::shared_ptr<std::vector<std::uint8_t>> data_;
  std::vector<std::uint8_t> durable_;
  std::map<std::uint64_t, std::uint64_t> dirty_;  // sector index -> version of last write
  std::uint64_t version_ = 0;
  std::uint64_t low_water_ = 0;
  bool linked_ = true;
};

}  // namespace ferry::sim
