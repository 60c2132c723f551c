// HaMaster: the master side of CommitLog replication (RocketMQ 4.9's HAService, HAConnection and
// GroupTransferService), on the runtime's network only.
//
//  * start(addr) listens on the HA port (the broker's listen port + 1). Each slave connection is a
//    link with a reader (the slave's offset reports, ha_format.h) and a sender: from the offset
//    the slave first reports (0 = the start of the master's last CommitLog file), the sender
//    pushes the log byte for byte, at most transfer_batch_bytes at a time and never across a
//    file end, and an empty batch as a heartbeat after heartbeat_interval of nothing to send.
//    It ships up to the store's replicable_offset(): under SYNC_FLUSH only what is durable, so a
//    power loss of the master never takes bytes a slave already holds. on_appended() (the
//    store's append listener: after a put, and under SYNC_FLUSH after a sync) wakes the senders.
//  * A link is dropped when its slave has been silent for housekeeping_interval (20 s), when it
//    needs bytes the master has already cleaned up, and when its log has diverged from this one:
//    it reports more than the master holds, or it resumes (first report) where no record of this
//    log starts — a slave cuts its log back to a record boundary before it resumes, so both mean
//    it holds bytes this master does not (an old master restarted as a slave; a master that lost
//    unsynced data it had already sent). Same-sized records at the same places can hide a
//    divergence from this check. Each drop is logged with the reason; the slave reconnects.
//  * SYNC_MASTER (wait_replicated): a put waits until some slave confirmed its end offset.
//    slave_not_available at once when no slave is connected or the most advanced confirmed
//    offset lags the put by slave_fallbehind_max_bytes or more; flush_slave_timeout after
//    slave_timeout (3 s). Both mean: stored on the master, not known to be on a slave.
//    replicated_offset() only grows (RocketMQ's push2SlaveMaxOffset).
//  * Controller mode (set_epochs()): RocketMQ 5's AutoSwitch protocol (ha_format.h). A link
//    starts with the slave's handshake (its replica id) and the master's (its epochs); the slave
//    cuts its log to where the epochs agree and acks from there. A batch never spans two epochs
//    and carries its epoch and the confirm offset. The SyncStateSet (set_sync_state_set(), as
//    the controller confirmed it) decides the confirm offset (what every member acknowledged)
//    and, under all_ack_in_sync_state_set, what a SYNC_MASTER put waits for: every member (a set
//    of the master alone: nothing). A slave whose ack reached what was last sent to it is caught
//    up (RocketMQ's lastCaughtUpTime); caught_up_outside() and lagging_members() tell the broker
//    whom to add to or drop from the set.
//
// Threading: the node's loop only. Lifetime: a component (the broker's); its loops capture
// `this` and must not outlive it (runtime/task.h). stop() closes everything; the loops end.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/offsets.h"
#include "runtime/log_limiter.h"
#include "runtime/runtime.h"
#include "runtime/wake_signal.h"
#include "store/ha/ha_config.h"
#include "store/store_results.h"

namespace ferry::store {
class MessageStore;
class EpochFile;
}

namespace ferry::store::ha {

// One connected slave, for operators (mqadmin haStatus, GET_BROKER_RUNTIME_INFO).
struct SlaveLinkState {
  std::string address;          // the slave's "ip:port" as seen by the master
  PhysicalOffset acked;         // the offset it last reported
  PhysicalOffset sent;          // the next byte the master will push to it
  MonoTime connected_at{};
  MonoTime last_report_at{};
  std::int64_t replica_id = -1;  // controller mode: from its handshake
};

class HaMaster {
 public:
  HaMaster(Runtime& rt, MessageStore& store, const HaConfig& config);
  ~HaMaster();
  HaMaster(const HaMaster&) = delete;
  HaMaster& operator=(const HaMaster&) = delete;

  // Controller mode, before start(): speak the AutoSwitch protocol with these epochs (which
  // must outlive this). Null: RocketMQ 4.9's protocol.
  void set_epochs(const EpochFile* epochs) { epochs_ = epochs; }
  bool controller_mode() const { return epochs_ != nullptr; }
  // Controller mode: this master's replica id and the SyncStateSet the controller confirmed.
  void set_sync_state_set(std::int64_t self_id, std::set<std::int64_t> members);
  const std::set<std::int64_t>& sync_state_set() const { return sync_state_set_; }
  // Controller mode: the offset every member of the SyncStateSet has acknowledged (RocketMQ's
  // confirmOffset; the log's end unless all_ack_in_sync_state_set). While a member has no link
  // the last value stays. Without controller mode: the log's end.
  PhysicalOffset confirm_offset() const;
  // Called after the confirm offset moved or the SyncStateSet changed (the broker bounds what
  // consumers see by it).
  void set_confirm_listener(std::function<void()> l) { confirm_listener_ = std::move(l); }
  // Controller mode: slaves linked now, not in the SyncStateSet, caught up with this log and past
  // the confirm offset and the last epoch's start (RocketMQ's maybeExpandInSyncStateSet).
  std::set<std::int64_t> caught_up_outside() const;
  // Controller mode: members other than this master not caught up for longer than `max_lag`
  // (haMaxTimeSlaveNotCatchup), or never caught up with this master (RocketMQ's rule; the
  // record of a replica outlives its links).
  std::set<std::int64_t> lagging_members(Duration max_lag) const;

  // Listens on `addr` (port 0 picks one) and serves slaves. Errors: address_in_use.
  Status start(const Endpoint& addr);
  // Closes the listener and every link; SYNC_MASTER waiters get flush_slave_timeout.
  void stop();
  bool running() const { return listener_ != nullptr; }
  const Endpoint& local() const;

  // The log grew to `end`: wake the senders.
  void on_appended(PhysicalOffset end);

  // SYNC_MASTER: ok once a slave confirmed `end` (controller mode under
  // all_ack_in_sync_state_set: every other member of the SyncStateSet); see the file comment
  // for the two failures.
  Task<PutStatus> wait_replicated(PhysicalOffset end);
  // RocketMQ's isSlaveOK: a slave is connected and the most advanced one lags `end` by less than
  // slave_fallbehind_max_bytes.
  bool slave_ok(PhysicalOffset end) const;

  // The largest offset any slave has confirmed (never decreases in this life).
  PhysicalOffset replicated_offset() const { return replicated_; }
  std::size_t slave_count() const { return links_.size(); }
  std::vector<SlaveLinkState> slaves() const;
  // Links dropped so far (any reason), for tests and operators.
  std::uint64_t links_dropped() const { return links_dropped_; }
  // Links dropped because the slave's log is not a prefix of this one (see the file comment).
  std::uint64_t diverged_links() const { return diverged_; }
  // "slave address: why" of the last drop, "" before any.
  const std::string& last_drop() const { return last_drop_; }

 private:
  struct Link;
  static Task<void> accept_loop(HaMaster* self);
  static Task<void> read_loop(HaMaster* self, std::shared_ptr<Link> link);
  // Controller mode: the slave's handshake, then this master's. False: the link was dropped.
  static Task<bool> handshake(HaMaster* self, std::shared_ptr<Link> link);
  // What one batch from `link->next` may hold in controller mode (the epoch's end), and its header.
  std::int64_t clip_to_epoch(PhysicalOffset from, std::int64_t n) const;
  std::vector<std::uint8_t> frame_header(PhysicalOffset at, std::int32_t size) const;
  bool satisfied(PhysicalOffset end) const;
  void refresh_confirm();
  const Link* link_of(std::int64_t replica_id) const;
  static Task<void> send_loop(HaMaster* self, std::shared_ptr<Link> link);
  static Task<void> housekeeping_loop(HaMaster* self);
  void drop(Link& link, const std::string& why);
  void on_report(Link& link, PhysicalOffset offset);
  void release_waiters();

  struct Waiter {
    PhysicalOffset end;
    Completion<bool> done;
    TimerId timer;
  };

  Runtime& rt_;
  MessageStore& store_;
  const HaConfig& config_;
  std::unique_ptr<Listener> listener_;
  Endpoint local_;
  std::map<std::uint64_t, std::shared_ptr<Link>> links_;  // by link id
  std::uint64_t next_link_id_ = 1;
  std::uint64_t links_dropped_ = 0;
  std::uint64_t diverged_ = 0;
  std::string last_drop_;
  PhysicalOffset replicated_;
  std::vector<Waiter> waiters_;  // bounded by the SYNC_MASTER puts in flight
  bool stopped_ = false;
  const EpochFile* epochs_ = nullptr;
  std::int64_t self_id_ = -1;
  std::set<std::int64_t> sync_state_set_;
  std::map<std::int64_t, MonoTime> caught_up_;  // by replica id: when its ack last caught up
  PhysicalOffset confirm_;
  std::function<void()> confirm_listener_;
  // Anyone can connect to the HA port, and a slave that keeps failing reconnects every few
  // seconds: each of these lines is limited.
  LogLimiter drop_log_;          // links dropped
  LogLimiter connect_log_;       // slaves connected (their first report)
  LogLimiter handshake_log_;     // handshakes (controller mode)
  LogLimiter accept_error_log_;  // by Errc
  LogLimiter refusal_log_;       // slaves refused for slaves_max
};

}  // namespace ferry::store::ha
