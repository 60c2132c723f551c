#include "controller/raft_node.h"

#include <climits>
#include <cstring>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "runtime/assert.h"
#include "runtime/completion.h"

namespace ferry::controller {
namespace {

constexpr std::size_t kInputsMax = 4096;
constexpr Duration kRestartDelay = 1s;

void silent_trace(raft_tracer*, const char*, int, const char*) {}

// A raft_buffer holding a copy of `b` in raft_malloc'd memory (libraft frees it).
raft_buffer raft_copy(Bytes b) {
  raft_buffer out{};
  out.len = b.size();
  out.base = raft_malloc(b.empty() ? 1 : b.size());
  FERRY_ASSERT(out.base != nullptr, "raft_malloc of {} bytes", b.size());
  if (!b.empty()) std::memcpy(out.base, b.data(), b.size());
  return out;
}

using RaftBarrierReq = struct raft_barrier;

struct ApplyCall {
  struct raft_apply req{};
  raft_buffer buf{};
  Completion<Result<std::uint64_t>> done;
  explicit ApplyCall(Completion<Result<std::uint64_t>> d) : done(std::move(d)) {}
};

void apply_done(struct raft_apply* req, int status, void* /*result*/) {
  auto* call = static_cast<ApplyCall*>(req->data);
  if (status == 0) {
    call->done.complete(Result<std::uint64_t>(req->index));
  } else {
    call->done.complete(Error(Errc::cancelled, fmt::format("the proposal's outcome is unknown: {}",
                                                          raft_strerror(status))));
  }
  delete call;
}

}  // namespace

struct RaftNode::Input {
  enum class Kind : std::uint8_t { tick, message, call } kind = Kind::tick;
  DecodedRaftMessage message;
  std::function<void()> call;
};

// The raft_io and raft_fsm callbacks: each finds its RaftNode through io->impl / fsm->data.
struct RaftIoGlue {
  static RaftNode& node(raft_io* io) { return *static_cast<RaftNode*>(io->impl); }

  static int init(raft_io*, raft_id, const char*) { return 0; }

  static void close(raft_io* io, raft_io_close_cb cb) {
    RaftNode& n = node(io);
    n.closed_ = true;
    n.rt_.timers().cancel(n.tick_timer_);
    // Every pending request completes once, before the close callback frees the log. Appends
    // complete with 0 (libraft 0.15 mishandles a failed append), sends as cancelled.
    auto appends = std::move(n.appends_);
    for (auto& a : appends) a.cb(a.req, 0);
    auto outbox = std::move(n.outbox_);
    for (auto& o : outbox) {
      if (o.cb != nullptr) o.cb(o.req, RAFT_CANCELED);
    }
    n.inputs_.clear();  // undelivered messages free their memory
    if (cb != nullptr) cb(io);
  }

  static int load(raft_io* io, raft_term* term, raft_id* voted_for, raft_snapshot** snapshot,
                  raft_index* start_index, raft_entry* entries[], size_t* n_entries) {
    RaftNode& n = node(io);
    LoadedState& s = n.loaded_;
    *term = s.term;
    *voted_for = s.voted_for;
    *snapshot = nullptr;
    *start_index = 1;
    *entries = nullptr;
    *n_entries = s.entries.size();
    if (!s.entries.empty()) {
      auto* out = static_cast<raft_entry*>(raft_calloc(s.entries.size(), sizeof(raft_entry)));
      FERRY_ASSERT(out != nullptr, "raft_calloc of {} entries", s.entries.size());
      for (std::size_t i = 0; i < s.entries.size(); ++i) {
        out[i].term = s.entries[i].term;
        out[i].type = s.entries[i].type;
        out[i].buf = raft_copy(s.entries[i].data);
        out[i].batch = out[i].buf.base;  // one batch per entry
      }
      *entries = out;
    }
    n.term_ = s.term;
    s.entries.clear();
    return 0;
  }

  static int start(raft_io* io, unsigned msecs, raft_io_tick_cb tick, raft_io_recv_cb recv) {
    RaftNode& n = node(io);
    FERRY_ASSERT(std::chrono::milliseconds(msecs) == n.options_.heartbeat, "tick of {} ms", msecs);
    n.tick_cb_ = tick;
    n.recv_cb_ = recv;
    n.arm_tick();
    return 0;
  }

  static int bootstrap(raft_io*, const raft_configuration*) { return RAFT_CANTBOOTSTRAP; }
  static int recover(raft_io*, const raft_configuration*) { return RAFT_INVALID; }

  static int set_term(raft_io* io, raft_term term) {
    RaftNode& n = node(io);
    n.term_ = term;
    Status s = n.storage_->write_meta(term, 0);
    if (!s.ok()) n.fail(s.error());
    n.dirty_ = true;
    return 0;
  }

  static int set_vote(raft_io* io, raft_id server_id) {
    RaftNode& n = node(io);
    Status s = n.storage_->write_meta(n.term_, server_id);
    if (!s.ok()) n.fail(s.error());
    n.dirty_ = true;
    return 0;
  }

  static int send(raft_io* io, raft_io_send* req, const raft_message* message, raft_io_send_cb cb) {
    RaftNode& n = node(io);
    // Encoded now (the message struct is ours only during this call); released after the step's
    // writes are durable. Always 0: a failure is reported through the callback.
    RaftNode::Outgoing o;
    o.req = req;
    o.cb = cb;
    o.to = n.peer(message->server_id);
    o.bytes = encode_raft_message(n.options_.id, *message);
    n.outbox_.push_back(std::move(o));
    return 0;
  }

  static int append(raft_io* io, raft_io_append* req, const raft_entry entries[], unsigned n_entries,
                    raft_io_append_cb cb) {
    RaftNode& n = node(io);
    for (unsigned i = 0; i < n_entries && !n.failed_; ++i) {
      const raft_entry& e = entries[i];
      Status s = n.storage_->append(n.storage_->last_index() + 1, e.term, e.type, entry_bytes(e));
      if (!s.ok()) n.fail(s.error());
    }
    n.appends_.push_back(PendingAppendOf(req, cb));
    n.dirty_ = true;
    return 0;
  }

  static RaftNode::PendingAppend PendingAppendOf(raft_io_append* req, raft_io_append_cb cb) {
    return RaftNode::PendingAppend{req, cb};
  }

  static int truncate(raft_io* io, raft_index index) {
    RaftNode& n = node(io);
    if (index <= n.storage_->last_index()) {
      Status s = n.storage_->truncate_from(index);
      if (!s.ok()) n.fail(s.error());
      n.dirty_ = true;
    }
    return 0;
  }

  static int snapshot_put(raft_io*, unsigned, raft_io_snapshot_put*, const raft_snapshot*,
                          raft_io_snapshot_put_cb) {
    return RAFT_INVALID;  // snapshots are off (threshold UINT_MAX)
  }
  static int snapshot_get(raft_io*, raft_io_snapshot_get*, raft_io_snapshot_get_cb) {
    return RAFT_NOTFOUND;
  }

  static raft_time now_ms(raft_io* io) {
    const auto since = node(io).rt_.clock().now().time_since_epoch();
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(since).count();
    return ms < 0 ? 0 : static_cast<raft_time>(ms);
  }

  static int random(raft_io* io, int min, int max) {
    return static_cast<int>(node(io).rt_.random().between(min, max));
  }

  static int async_work(raft_io* io, raft_io_async_work* req, raft_io_async_work_cb cb) {
    // Not used by libraft with a version-1 state machine; run inline, report in a later step.
    const int rv = req->work(req);
    node(io).rt_.executor().post([req, cb, rv] { cb(req, rv); });
    return 0;
  }

  static int fsm_apply(raft_fsm* fsm, const raft_buffer* buf, void** result) {
    auto* n = static_cast<RaftNode*>(fsm->data);
    ++n->applied_;
    n->apply_(raft_last_applied(&n->raft_) + 1, Bytes(static_cast<const std::uint8_t*>(buf->base), buf->len));
    *result = nullptr;
    return 0;
  }
  static int fsm_snapshot(raft_fsm*, raft_buffer**, unsigned*) { return RAFT_INVALID; }
  static int fsm_restore(raft_fsm*, raft_buffer*) { return RAFT_INVALID; }
};

RaftNode::RaftNode(Runtime& rt, RaftOptions options, RaftTransport& transport, ApplyFn apply)
    : rt_(rt), options_(std::move(options)), transport_(transport), apply_(std::move(apply)) {}

RaftNode::~RaftNode() {
  *restart_token_ = false;
  stop();
}

const RaftPeer* RaftNode::peer(raft_id id) const {
  for (const RaftPeer& p : options_.peers) {
    if (p.id == id) return &p;
  }
  return nullptr;
}

Status RaftNode::start() {
  FERRY_ASSERT(!started_, "RaftNode {} started twice", options_.id);
  return open_and_start();
}

Status RaftNode::open_and_start() {
  const RaftPeer* self = peer(options_.id);
  if (self == nullptr) {
    return Error(Errc::invalid_argument, fmt::format("controller id {} is not among its peers", options_.id));
  }
  auto storage = RaftStorage::open(rt_.fs(), options_.dir);
  if (!storage) return storage.error();
  storage_ = std::move(*storage);
  auto loaded = storage_->load();
  if (!loaded) return loaded.error();
  loaded_ = std::move(*loaded);
  if (loaded_.dropped_tail_bytes > 0) {
    rt_.log().warn("raft: dropped a torn tail of {} bytes from {}/raft-log (never acknowledged)",
                   loaded_.dropped_tail_bytes, options_.dir);
  }
  if (loaded_.term == 0 && loaded_.entries.empty()) {
    // First start: the fixed membership is entry 1, term 1 (what raft_bootstrap would write).
    raft_configuration conf;
    raft_configuration_init(&conf);
    for (const RaftPeer& p : options_.peers) {
      FERRY_ASSERT_EQ(raft_configuration_add(&conf, p.id, p.address.c_str(), RAFT_VOTER), 0);
    }
    raft_buffer encoded{};
    FERRY_ASSERT_EQ(raft_configuration_encode(&conf, &encoded), 0);
    raft_configuration_close(&conf);
    // libraft pads the encoding to 8 bytes without zeroing the padding: zero it (format:
    // version, count, then per server id, address and NUL, role).
    std::size_t content = 1 + 8;
    for (const RaftPeer& p : options_.peers) content += 8 + p.address.size() + 1 + 1;
    FERRY_ASSERT(content <= encoded.len, "configuration of {} bytes encoded in {}", content, encoded.len);
    std::memset(static_cast<std::uint8_t*>(encoded.base) + content, 0, encoded.len - content);
    const Bytes bytes(static_cast<const std::uint8_t*>(encoded.base), encoded.len);
    Status meta = storage_->write_meta(1, 0);
    Status entry = storage_->append(1, 1, RAFT_CHANGE, bytes);
    loaded_.term = 1;
    loaded_.entries.push_back(StoredEntry{1, RAFT_CHANGE, std::vector<std::uint8_t>(bytes.begin(), bytes.end())});
    raft_free(encoded.base);
    FERRY_TRY(meta);
    FERRY_TRY(entry);
    dirty_ = true;
  }

  io_.version = 2;
  io_.impl = this;
  io_.init = RaftIoGlue::init;
  io_.close = RaftIoGlue::close;
  io_.load = RaftIoGlue::load;
  io_.start = RaftIoGlue::start;
  io_.bootstrap = RaftIoGlue::bootstrap;
  io_.recover = RaftIoGlue::recover;
  io_.set_term = RaftIoGlue::set_term;
  io_.set_vote = RaftIoGlue::set_vote;
  io_.send = RaftIoGlue::send;
  io_.append = RaftIoGlue::append;
  io_.truncate = RaftIoGlue::truncate;
  io_.snapshot_put = RaftIoGlue::snapshot_put;
  io_.snapshot_get = RaftIoGlue::snapshot_get;
  io_.time = RaftIoGlue::now_ms;
  io_.random = RaftIoGlue::random;
  io_.async_work = RaftIoGlue::async_work;
  fsm_.version = 1;
  fsm_.data = this;
  fsm_.apply = RaftIoGlue::fsm_apply;
  fsm_.snapshot = RaftIoGlue::fsm_snapshot;
  fsm_.restore = RaftIoGlue::fsm_restore;

  const int init = raft_init(&raft_, &io_, &fsm_, options_.id, self->address.c_str());
  if (init != 0) return Error(Errc::invalid_argument, fmt::format("raft_init: {}", raft_strerror(init)));
  started_ = true;
  closed_ = false;
  tracer_.impl = nullptr;
  tracer_.enabled = false;
  tracer_.emit = silent_trace;
  raft_.tracer = &tracer_;
  raft_set_heartbeat_timeout(&raft_, static_cast<unsigned>(
      std::chrono::duration_cast<std::chrono::milliseconds>(options_.heartbeat).count()));
  raft_set_election_timeout(&raft_, static_cast<unsigned>(
      std::chrono::duration_cast<std::chrono::milliseconds>(options_.election_timeout).count()));
  raft_set_snapshot_threshold(&raft_, UINT_MAX);
  raft_set_pre_vote(&raft_, true);
  const int rv = raft_start(&raft_);
  if (rv != 0) {
    stop();
    return Error(Errc::corrupt, fmt::format("raft_start: {}", raft_strerror(rv)));
  }
  settle();
  return {};
}

void RaftNode::stop() {
  if (!started_ || closed_) return;
  *alive_ = false;
  raft_close(&raft_, [](raft*) {});  // the io completes everything synchronously (RaftIoGlue::close)
  FERRY_ASSERT(closed_, "raft_close of controller {} did not close its io", options_.id);
}

void RaftNode::fail(const Error& why) {
  if (failed_) return;
  failed_ = true;
  ++storage_failures_;
  if (auto held = storage_failure_log_.admit(rt_.now(), static_cast<std::int64_t>(why.code))) {
    rt_.log().error("raft: controller {} restarts its raft in {} ms: its log storage failed: {}{}",
                    options_.id, std::chrono::duration_cast<std::chrono::milliseconds>(kRestartDelay).count(),
                    why.to_string(), held_back_note(*held));
  }
  // What the failed sync covered may be lost, so nothing in memory can be trusted: close libraft
  // (after this step), then start it again from the files, as a restarted process would.
  rt_.executor().post([this, alive = alive_] {
    if (!*alive) return;
    stop();
    rt_.timers().schedule(kRestartDelay, [this, token = restart_token_] {
      if (!*token) return;
      restart();
    });
  });
}

void RaftNode::restart() {
  FERRY_ASSERT(closed_, "restart of controller {} while its raft runs", options_.id);
  ++restarts_;
  raft_ = raft{};
  io_ = raft_io{};
  fsm_ = raft_fsm{};
  tick_cb_ = nullptr;
  recv_cb_ = nullptr;
  storage_.reset();
  loaded_ = LoadedState{};
  inputs_.clear();
  outbox_.clear();
  appends_.clear();
  term_ = 0;
  dirty_ = busy_ = started_ = closed_ = failed_ = tick_queued_ = false;
  barrier_term_ = ready_term_ = 0;
  applied_ = 0;
  alive_ = std::make_shared<bool>(true);
  if (was_ready_) {
    was_ready_ = false;
    if (leadership_hook_) leadership_hook_();
  }
  if (reset_hook_) reset_hook_();
  Status s = open_and_start();
  if (!s.ok()) {
    if (auto held = restart_failure_log_.admit(rt_.now(), static_cast<std::int64_t>(s.error().code))) {
      rt_.log().error("raft: controller {} could not restart its raft: {}{}", options_.id, s.error().to_string(),
                      held_back_note(*held));
    }
    failed_ = true;
    closed_ = true;
    rt_.timers().schedule(kRestartDelay, [this, token = restart_token_] {
      if (*token) restart();
    });
  }
}

void RaftNode::arm_tick() {
  tick_timer_ = rt_.timers().schedule(options_.heartbeat, [this, alive = alive_] {
    if (!*alive || closed_) return;
    arm_tick();
    if (tick_queued_) return;  // ticks coalesce while a step syncs: one waiting tick is enough
    Input in;
    in.kind = Input::Kind::tick;
    tick_queued_ = true;
    enter(std::move(in));
  });
}

void RaftNode::receive(Bytes message) {
  if (!started_ || closed_) return;
  auto decoded = decode_raft_message(message);
  if (!decoded) {
    ++dropped_;
    if (auto held = malformed_log_.admit(rt_.now(), static_cast<std::int64_t>(decoded.error().code))) {
      rt_.log().warn("raft: dropped a malformed message of {} bytes: {}{}", message.size(),
                     decoded.error().to_string(), held_back_note(*held));
    }
    return;
  }
  if (peer(decoded->sender()) == nullptr || decoded->sender() == options_.id) {
    ++dropped_;
    if (auto held = unknown_sender_log_.admit(rt_.now())) {
      rt_.log().warn("raft: dropped a message from unknown controller {}{}", decoded->sender(), held_back_note(*held));
    }
    return;
  }
  Input in;
  in.kind = Input::Kind::message;
  in.message = std::move(*decoded);
  enter(std::move(in));
}

Task<Result<std::uint64_t>> RaftNode::propose(std::vector<std::uint8_t> command) {
  if (!started_ || closed_) co_return Error(Errc::unsupported, "the controller's raft is stopped");
  Completion<Result<std::uint64_t>> done(rt_.executor());
  Input in;
  in.kind = Input::Kind::call;
  in.call = [this, command = std::move(command), done] {
    if (raft_state(&raft_) != RAFT_LEADER) {
      done.complete(Error(Errc::unsupported, "not the controller leader"));
      return;
    }
    auto* call = new ApplyCall(done);
    call->req.data = call;
    call->buf = raft_copy(command);
    const int rv = raft_apply(&raft_, &call->req, &call->buf, 1, apply_done);
    if (rv != 0) {
      raft_free(call->buf.base);
      done.complete(Error(rv == RAFT_NOTLEADER ? Errc::unsupported : Errc::busy,
                          fmt::format("raft_apply: {}", raft_strerror(rv))));
      delete call;
    }
  };
  if (inputs_.size() >= kInputsMax) co_return Error(Errc::busy, "the controller's raft input queue is full");
  enter(std::move(in));
  co_return co_await done.wait();
}

void RaftNode::enter(Input input) {
  if (closed_ || failed_) return;
  if (busy_ || !inputs_.empty()) {
    if (inputs_.size() >= kInputsMax && input.kind == Input::Kind::message) {
      ++dropped_;
      return;
    }
    inputs_.push_back(std::move(input));
    return;
  }
  run(input);
  settle();
}

void RaftNode::run(Input& input) {
  switch (input.kind) {
    case Input::Kind::tick:
      tick_queued_ = false;
      tick_cb_(&io_);
      break;
    case Input::Kind::message: {
      raft_message& m = input.message.message();
      const RaftPeer* from = peer(m.server_id);
      m.server_address = from->address.c_str();
      recv_cb_(&io_, &m);
      input.message.delivered();
      break;
    }
    case Input::Kind::call:
      input.call();
      break;
  }
  after_step();
}

void RaftNode::after_step() {
  if (closed_) return;
  const bool leader = raft_state(&raft_) == RAFT_LEADER;
  const std::uint64_t term = raft_.current_term;
  if (leader && barrier_term_ != term) {
    // A barrier of the new term: once it is applied, every earlier entry is committed safely.
    barrier_term_ = term;
    auto* req = new RaftBarrierReq{};
    struct Ctx {
      RaftNode* node;
      std::shared_ptr<bool> alive;
      std::uint64_t term;
    };
    req->data = new Ctx{this, alive_, term};
    const int rv = raft_barrier(&raft_, req, [](RaftBarrierReq* r, int status) {
      auto* ctx = static_cast<Ctx*>(r->data);
      if (status == 0 && *ctx->alive) ctx->node->ready_term_ = ctx->term;
      delete ctx;
      delete r;
    });
    if (rv != 0) {
      delete static_cast<Ctx*>(req->data);
      delete req;
      barrier_term_ = 0;  // try again after the next step
    }
  }
  const bool ready = is_ready();
  if (ready != was_ready_) {
    was_ready_ = ready;
    rt_.log().info("raft: controller {} {} (term {})", options_.id,
                   ready ? "leads and serves" : "no longer leads", term);
    if (leadership_hook_) leadership_hook_();
  }
}

void RaftNode::settle() {
  while (!closed_ && !failed_) {
    if (dirty_) {
      dirty_ = false;
      busy_ = true;
      rt_.spawn(flush(this, alive_), "raft-sync");
      return;
    }
    release_sends();
    if (busy_ || inputs_.empty()) return;
    Input next = std::move(inputs_.front());
    inputs_.pop_front();
    run(next);
  }
}

void RaftNode::release_sends() {
  auto outbox = std::move(outbox_);
  outbox_.clear();
  for (Outgoing& o : outbox) {
    int status = 0;
    if (o.to == nullptr || !o.bytes.ok()) {
      status = RAFT_NOCONNECTION;
      if (!o.bytes.ok()) rt_.log().warn("raft: not sent: {}", o.bytes.error().to_string());
    } else {
      transport_.send(*o.to, std::move(*o.bytes));
    }
    if (o.cb != nullptr) o.cb(o.req, status);
  }
}

Task<void> RaftNode::flush(RaftNode* self, std::shared_ptr<bool> alive) {
  std::shared_ptr<RaftStorage> storage = self->storage_;
  Status synced = co_await storage->sync();
  if (!*alive) co_return;
  self->busy_ = false;
  if (!synced.ok()) {
    self->fail(synced.error());
    co_return;
  }
  // The writes of the step are durable: complete its appends (in order), then let its sends go.
  auto appends = std::move(self->appends_);
  self->appends_.clear();
  for (auto& a : appends) a.cb(a.req, 0);
  self->after_step();
  self->settle();
}

bool RaftNode::is_leader() const { return started_ && !closed_ && raft_state(const_cast<raft*>(&raft_)) == RAFT_LEADER; }

std::uint64_t RaftNode::current_term() const { return started_ ? raft_.current_term : 0; }

std::uint64_t RaftNode::commit_index() const { return started_ ? raft_.commit_index : 0; }

raft_id RaftNode::leader_id() const {
  if (!started_ || closed_) return 0;
  raft_id id = 0;
  const char* address = nullptr;
  raft_leader(const_cast<raft*>(&raft_), &id, &address);
  return id;
}

std::string RaftNode::leader_address() const {
  const RaftPeer* p = peer(leader_id());
  return p == nullptr ? std::string{} : p->address;
}

}  // namespace ferry::controller
