// HaSlave: the slave side of CommitLog replication (RocketMQ 4.9's HAClient), on the runtime's
// network only.
//
//  * run() keeps one link to the master's HA address (set_master(); from the NameServer's
//    registration reply or haMasterAddress). On connect it reports its max CommitLog offset, then
//    again after every applied batch and at least every heartbeat_interval (5 s).
//  * Each batch is appended byte for byte (MessageStore::append_replicated), which indexes it
//    under the slave's own flush mode. Under SYNC_FLUSH the slave reports only what is durable, so
//    a SYNC_MASTER acknowledgement means the bytes are on the slave's disk.
//  * The link is dropped — and made again from the slave's own log end — when a batch does not
//    start at the slave's log end (on a non-empty log), when its length is impossible, when the
//    append fails, after housekeeping_interval (20 s) without a byte from the master, or when the
//    master address changes. A new link follows kRelinkPause (1 s), or reconnect_interval (5 s)
//    after a failed connect. Each drop is logged with the reason.
//  * A store whose CommitLog sync failed refuses writes until the process restarts: replication
//    pauses with it (logged once).
//  * Controller mode (set_epochs()): RocketMQ 5's AutoSwitch protocol (ha_format.h). After
//    connecting it sends its handshake (replica id), reads the master's epochs, and cuts its log
//    (MessageStore::truncate_to) and epochs to the last offset both agree on
//    (EpochCache::consistent_point) before its first ack: an old master comes back holding only
//    what its group agreed on. A log without epochs (older than controller mode) keeps what lies
//    before the master's first epoch. Sharing no epoch with the master ends the link (the store
//    must be wiped). A batch of a new epoch appends that epoch (durably) before its bytes; the
//    master's confirm offset is kept (confirm_offset()).
//
// Threading: the node's loop only. Lifetime: a component (the broker's); run() captures `this`.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/offsets.h"
#include "runtime/log_limiter.h"
#include "runtime/runtime.h"
#include "runtime/wake_signal.h"
#include "store/ha/ha_config.h"

namespace ferry::store {
class MessageStore;
class EpochFile;
}

namespace ferry::store::ha {

struct SlaveLinkStatus {
  std::optional<std::string> master;  // the HA address in use
  bool connected = false;
  std::string local;                  // this end of the current (or last) link, "ip:port": the
                                      // address the master lists the slave under
  PhysicalOffset reported;            // the offset last reported to the master
  MonoTime last_batch_at{};           // when the master last sent a byte (data or heartbeat)
  std::uint64_t batches = 0;          // data batches applied in this life
  std::uint64_t bytes = 0;            // their bytes
  std::uint64_t links = 0;            // links made in this life
  std::string last_drop;              // why the last link ended ("" = none yet)
  std::uint64_t truncations = 0;      // controller mode: handshakes that cut the log
  PhysicalOffset truncated_to;        // where the last one cut it
};

class HaSlave {
 public:
  // The pause before linking again after a link ended (not after a failed connect).
  static constexpr Duration kRelinkPause = std::chrono::seconds(1);

  HaSlave(Runtime& rt, MessageStore& store, const HaConfig& config);
  ~HaSlave();
  HaSlave(const HaSlave&) = delete;
  HaSlave& operator=(const HaSlave&) = delete;

  // Controller mode, before run(): this replica's id and epochs (which must outlive this).
  void set_epochs(EpochFile* epochs, std::int64_t replica_id) {
    epochs_ = epochs;
    replica_id_ = replica_id;
  }
  // Controller mode: the confirm offset the master last sent, at most this log's end.
  PhysicalOffset confirm_offset() const { return confirm_; }
  // Called after the confirm offset changed (the broker bounds what consumers see by it).
  void set_confirm_listener(std::function<void()> l) { confirm_listener_ = std::move(l); }

  // The master's HA "ip:port", or nullopt (no link). A different address drops the current link.
  void set_master(std::optional<std::string> ha_address);
  const std::optional<std::string>& master() const { return master_; }

  // Replicates until stop(); spawn once.
  Task<void> run();
  // Drops the link and ends run() (a slave promoted to master).
  void stop();
  bool stopped() const { return stopped_; }

  const SlaveLinkStatus& status() const { return status_; }

 private:
  struct Session;
  Task<void> serve(std::shared_ptr<Session> s);
  static Task<void> report_loop(HaSlave* self, std::shared_ptr<Session> s);
  void end(Session& s, const std::string& why);
  // Controller mode: the handshakes and the cut; false when the link ended.
  Task<bool> handshake(std::shared_ptr<Session> s);
  // Reads a batch's bytes and appends them; false when the link ended.
  Task<bool> receive(std::shared_ptr<Session> s, PhysicalOffset at, std::int32_t size, std::vector<std::uint8_t>& data);
  Task<void> serve_epochs(std::shared_ptr<Session> s);
  PhysicalOffset confirmed_offset() const;

  Runtime& rt_;
  MessageStore& store_;
  const HaConfig& config_;
  std::optional<std::string> master_;
  WakeSignal wake_;  // run() waits here for a master address, or a reconnect pause to end
  std::shared_ptr<Session> session_;
  SlaveLinkStatus status_;
  bool stopped_ = false;
  bool connect_failure_logged_ = false;
  bool sync_failure_logged_ = false;
  EpochFile* epochs_ = nullptr;
  std::int64_t replica_id_ = -1;
  PhysicalOffset confirm_;
  std::function<void()> confirm_listener_;
  // A link that keeps failing reconnects every reconnect_interval: its lines are limited.
  LogLimiter end_log_;        // links ended
  LogLimiter connect_log_;    // links made
  LogLimiter handshake_log_;  // handshakes done (controller mode)
  LogLimiter error_log_;      // tails not cut (by Errc), bad master addresses (-1)
};

}  // namespace ferry::store::ha
