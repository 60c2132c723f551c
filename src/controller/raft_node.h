// RaftNode: one controller's Raft server — libraft (canonical/raft 0.15) driven through a
// raft_io that Ferry writes on its runtime: storage on the node's FileSystem (raft_storage.h),
// messages through a RaftTransport, ticks from its Timers, time() from its Clock and random() from
// its seeded Random. So a 3-controller quorum runs in the simulator deterministically and in
// production over TCP with the same code.
//
//   RaftNode node(rt, options, transport, [&](std::uint64_t index, Bytes command) { ... });
//   FERRY_TRY(node.start());                    // loads or bootstraps, starts ticking
//   auto index = co_await node.propose(bytes);   // on the leader: committed and applied here
//   node.receive(frame_body);                    // what the transport delivered
//
// How it keeps libraft 0.15 safe (its known issues: docs/controller.md, "The Raft engine"):
//  * One step at a time. libraft is entered for one input at a time (a tick, a message, a
//    proposal). What it wrote (term, vote, entries, truncation) is synced before anything it
//    asked to send leaves and before the next input enters: a node never answers, votes or acks
//    on state that is not durable, and libraft never sees its term change under a pending write
//    (the fixes libraft made after 0.15 for failed and in-flight appends are not needed).
//  * Appends never fail. A storage error closes libraft and starts it again a second later from
//    the files (on_reset), as a restarted process would; the node rejoins as a follower.
//  * A new leader commits a barrier before it serves (is_ready()): 0.15 may count replicas of
//    old-term entries (Raft's "Figure 8"); once an entry of its own term is committed, that is
//    safe, and the controller decides only on state read after it.
//  * No snapshots and a fixed membership (the peers given at start): the paths where 0.15 mishandles
//    a new term while installing a snapshot or rolls back a configuration are never taken.
//  * libraft's own tracer (stderr, the real clock) is replaced by a silent one.
//
// Bounds: at most kInputsMax inputs wait while a step syncs (more messages and proposals are
// refused: messages dropped and counted, Raft retries; proposals fail busy); ticks coalesce into
// one waiting tick.
//
// Lifetime: construct, start() once, use on the node's loop; stop() (also the destructor) closes
// libraft synchronously: pending proposals fail with Errc::cancelled.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "controller/raft_c.h"
#include "controller/raft_codec.h"
#include "controller/raft_storage.h"
#include "runtime/log_limiter.h"
#include "runtime/runtime.h"

namespace ferry::controller {

struct RaftPeer {
  raft_id id = 0;       // 1, 2, 3, ...
  std::string address;  // where its controller listens ("ip:port")
};

struct RaftOptions {
  raft_id id = 0;
  std::vector<RaftPeer> peers;  // every voter, this node included
  std::string dir;              // raft-meta and raft-log live here
  Duration heartbeat = 100ms;   // libraft's tick and heartbeat
  Duration election_timeout = 1s;
};

// Carries a message to a peer, best effort (Raft retries what is lost).
class RaftTransport {
 public:
  virtual ~RaftTransport() = default;
  virtual void send(const RaftPeer& to, std::vector<std::uint8_t> message) = 0;
};

class RaftNode {
 public:
  // Called for each committed command, in log order, exactly once per start (a restarted node
  // applies its whole committed log again from index 1, so the state machine starts empty).
  using ApplyFn = std::function<void(std::uint64_t index, Bytes command)>;

  RaftNode(Runtime& rt, RaftOptions options, RaftTransport& transport, ApplyFn apply);
  ~RaftNode();
  RaftNode(const RaftNode&) = delete;
  RaftNode& operator=(const RaftNode&) = delete;

  // Loads the files (bootstrapping the fixed membership on a first start) and starts libraft.
  // Errors: from storage (corrupt, io_error), invalid_argument (this id not among the peers).
  Status start();
  void stop();

  // Appends `command` if this node is the leader and completes when it is committed and applied
  // here, with its log index. Errors: unsupported (not the leader: nothing was appended),
  // cancelled (leadership lost or the node stopped after appending: the command may still commit
  // under the next leader), busy (libraft refused it).
  Task<Result<std::uint64_t>> propose(std::vector<std::uint8_t> command);

  // What the transport delivered from a peer. Malformed bytes are dropped and logged.
  void receive(Bytes message);

  bool is_leader() const;
  // Leader with its barrier committed: its state machine holds every command committed before.
  bool is_ready() const { return is_leader() && ready_term_ == current_term(); }
  std::uint64_t current_term() const;
  // The leader this node knows of (0 and empty when none).
  raft_id leader_id() const;
  std::string leader_address() const;
  std::uint64_t commit_index() const;
  std::uint64_t last_applied() const { return applied_; }
  const RaftOptions& options() const { return options_; }
  // Messages dropped because the input queue was full or they did not decode.
  std::uint64_t dropped_messages() const { return dropped_; }
  // How many times storage failed; each time the node closed libraft and, a second later,
  // started it again from its files (what the failed sync covered may be lost), calling the
  // reset hook first: the state machine must start empty, the log is applied again from index 1.
  std::uint64_t storage_failures() const { return storage_failures_; }
  // How many of those restarts have happened (the state machine replays the log from then on).
  std::uint64_t restarts() const { return restarts_; }
  void on_reset(std::function<void()> fn) { reset_hook_ = std::move(fn); }

  // Called after every step in which this node became leader and committed its barrier, or
  // stopped being leader.
  void on_leadership_change(std::function<void()> fn) { leadership_hook_ = std::move(fn); }

 private:
  struct Input;
  struct Outgoing {
    raft_io_send* req = nullptr;
    raft_io_send_cb cb = nullptr;
    const RaftPeer* to = nullptr;
    Result<std::vector<std::uint8_t>> bytes{std::vector<std::uint8_t>{}};
  };
  struct PendingAppend {
    raft_io_append* req;
    raft_io_append_cb cb;
  };
  friend struct RaftIoGlue;

  void enter(Input input);
  void run(Input& input);
  void settle();
  void release_sends();
  void after_step();
  void fail(const Error& why);
  void restart();
  Status open_and_start();
  static Task<void> flush(RaftNode* self, std::shared_ptr<bool> alive);
  void arm_tick();
  const RaftPeer* peer(raft_id id) const;

  Runtime& rt_;
  RaftOptions options_;
  RaftTransport& transport_;
  ApplyFn apply_;
  std::shared_ptr<RaftStorage> storage_;
  LoadedState loaded_;

  raft raft_{};
  raft_io io_{};
  raft_fsm fsm_{};
  raft_tracer tracer_{};
  raft_io_tick_cb tick_cb_ = nullptr;
  raft_io_recv_cb recv_cb_ = nullptr;

  std::deque<Input> inputs_;
  std::vector<Outgoing> outbox_;
  std::vector<PendingAppend> appends_;
  std::uint64_t term_ = 0;  // what storage holds (or is syncing)
  bool dirty_ = false;      // storage written since the last sync began
  bool busy_ = false;       // a sync is running
  bool started_ = false;
  bool closed_ = false;
  bool failed_ = false;
  bool was_ready_ = false;
  bool tick_queued_ = false;  // a tick waits in inputs_ (ticks coalesce)
  std::uint64_t barrier_term_ = 0;  // the term whose barrier is pending or committed
  std::uint64_t ready_term_ = 0;    // the term whose barrier committed
  std::uint64_t applied_ = 0;
  std::uint64_t dropped_ = 0;
  TimerId tick_timer_{};
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  std::function<void()> leadership_hook_;
  std::function<void()> reset_hook_;
  std::uint64_t storage_failures_ = 0;
  std::uint64_t restarts_ = 0;
  std::shared_ptr<bool> restart_token_ = std::make_shared<bool>(true);  // false once destroyed
  // Kept across restart(): a storage fault that lasts fails every restart the same way.
  LogLimiter storage_failure_log_;  // by Errc
  LogLimiter restart_failure_log_;  // by Errc
  LogLimiter malformed_log_;        // messages that do not decode, by Errc
  LogLimiter unknown_sender_log_;   // messages from no peer of ours
};

}  // namespace ferry::controller
