// A MessageStore on one simulated node: open / start / crash / restart / run tasks, for the
// store's simulator tests (durability, faults, virtual time, small disks).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "sim/disk/disk.h"
#include "sim/node.h"
#include "sim/world.h"
#include "tests/support/sim_trace_log.h"
#include "store/message_store.h"

namespace ferry::store::testing {

inline Task<Status> open_store_task(MessageStore* store) { co_return co_await store->open(); }
inline Task<Status> shutdown_store_task(MessageStore* store) { co_return co_await store->shutdown(); }
inline Task<PutStatus> wait_durable_task(MessageStore* store, PhysicalOffset end) {
  co_return co_await store->wait_durable(end);
}
inline Task<void> sync_and_forget_task(MessageStore* store, PhysicalOffset end) {
  (void)co_await store->wait_durable(end);
}

class SimStore {
 public:
  SimStore(sim::WorldOptions options, StoreConfig config)
      : world_(options), id_(world_.add_node("broker")), config_(std::move(config)) {}
  ~SimStore() { ferry::testing::record_trace(world_); }

  sim::World& world() { return world_; }
  sim::SimNode& node() { return world_.node(id_); }
  sim::SimDisk& disk() { return world_.node(id_).disk(); }
  MessageStore& store() { return *store_; }
  StoreConfig& config() { return config_; }

  // Creates and opens a store (the previous one must be gone); optionally start()s it.
  // Returns the open() status ("" when ok) so callers can ASSERT on it.
  std::string open(bool start = true) {
    store_ = std::make_unique<MessageStore>(node(), config_);
    auto opened = world_.run_task(id_, open_store_task(store_.get()), std::chrono::seconds(60));
    if (!opened.ok()) return "open did not finish: " + opened.report.message;
    if (!opened.value->ok()) return opened.value->error().to_string();
    if (start) store_->start();
    return "";
  }
  // Crash: the node's tasks die first (nothing resumes a destroyed frame), then the store.
  // A power loss by default (unsynced writes lost or torn); a process kill keeps the page cache.
  void crash(sim::CrashKind kind = sim::CrashKind::power_loss) {
    world_.crash(id_, kind);
    store_.reset();
    world_.start(id_);
  }
  // Graceful stop, then the node restarts (unsynced data survives a graceful stop).
  std::string shutdown() {
    auto r = world_.run_task(id_, shutdown_store_task(store_.get()), std::chrono::seconds(60));
    if (!r.ok()) return "shutdown did not finish: " + r.report.message;
    if (!r.value->ok()) return r.value->error().to_string();
    world_.power_off(id_);  // a stopped process (its tasks are done; nothing unsynced is left)
    store_.reset();
    world_.start(id_);
    return "";
  }
  // SYNC_FLUSH wait for one put; the status, or flush_disk_timeout if the run did not finish.
  PutStatus sync(PhysicalOffset end) {
    auto r = world_.run_task(id_, wait_durable_task(store_.get(), end), std::chrono::seconds(30));
    return r.ok() ? *r.value : PutStatus::flush_disk_timeout;
  }
  void run_for(Duration d) { world_.run_for(d); }

 private:
  sim::World world_;
  sim::NodeId id_;
  StoreConfig config_;
  std::unique_ptr<MessageStore> store_;
};

}  // namespace ferry::store::testing
