#include "remoting/rpc/rpc_peer.h"

#include <limits>

#include <exception>

#include "remoting/header_binary.h"
#include "remoting/request_code.h"
#include "remoting/response_code.h"
#include "runtime/assert.h"

namespace ferry::remoting {

namespace {
Task<void> send_detached(std::shared_ptr<Channel> ch, RemotingCommand cmd) {
  (void)co_await ch->send(std::move(cmd));
}
}  // namespace

RpcPeer::RpcPeer(Runtime& rt, RpcOptions opts) : rt_(rt), opts_(opts) {}

RpcPeer::~RpcPeer() {
  *alive_ = false;
  auto pending = std::move(pending_);
  pending_.clear();
  for (auto& [opaque, call] : pending) {
    rt_.timers().cancel(call.timer);
    call.done.on_abandon(nullptr);  // the hook refers to this peer
    call.done.complete(Error(Errc::closed, "the RPC peer was destroyed during the call"));
  }
}

void RpcPeer::register_processor(std::int32_t code, Processor p) { processors_[code] = std::move(p); }

std::int32_t RpcPeer::next_opaque() {
  // Opaques are positive and wrap; skip any still pending (bounded by pending_calls_max).
  do {
    last_opaque_ = last_opaque_ == INT32_MAX ? 1 : last_opaque_ + 1;
  } while (pending_.count(last_opaque_) != 0);
  return last_opaque_;
}

Task<Result<RemotingCommand>> RpcPeer::invoke_on(std::shared_ptr<Channel> ch, RemotingCommand request,
                                                 Duration timeout, ReplyFields fields) {
  if (pending_.size() >= opts_.pending_calls_max) {
    co_return Error(Errc::busy, "too many calls awaiting replies (" + std::to_string(pending_.size()) + ")");
  }
  const std::int32_t opaque = next_opaque();
  request.opaque = opaque;
  request.flag &= ~(kFlagResponse | kFlagOneway);
  apply_request_header(request);
  run_outgoing_hook(request);
  const std::int32_t code = request.code;
  Completion<Result<RemotingCommand>> done(rt_.executor());
  const TimerId timer = rt_.timers().schedule(timeout, [this, opaque, code, timeout, ch] {
    finish_call(opaque, Error(Errc::timed_out, "no reply to request code " + std::to_string(code) +
                                                   " from " + ch->peer_text() + " within " +
                                                   std::to_string(to_ms(timeout)) + " ms"));
  });
  pending_.emplace(opaque, PendingCall{done, timer, ch->id(), rt_.now() + timeout, fields});
  // If the awaiting frame goes away (its task was destroyed), forget the call.
  done.on_abandon([this, opaque] {
    auto it = pending_.find(opaque);
    if (it == pending_.end()) return;
    rt_.timers().cancel(it->second.timer);
    pending_.erase(it);
  });
  const std::shared_ptr<const bool> alive = alive_;
  Status sent = co_await ch->send(std::move(request));
  if (!*alive) co_return Error(Errc::closed, "the RPC peer was destroyed during the call");
  if (!sent) finish_call(opaque, sent.error());
  co_return co_await done.wait();
}

void RpcPeer::run_outgoing_hook(RemotingCommand& request) const {
  if (!outgoing_hook_) return;
  // The hook (signing) reads and edits the map. Raw fields here come from a typed header's
  // encode_binary, so they always read back.
  const Status mapped = materialize_ext_fields(request);
  FERRY_ASSERT(mapped.ok(), "raw extFields of request code {} do not read back: {}", request.code, mapped.error().detail);
  outgoing_hook_(request);
}

Task<Status> RpcPeer::invoke_oneway_on(std::shared_ptr<Channel> ch, RemotingCommand request) {
  request.opaque = next_opaque();
  request.flag = (request.flag & ~kFlagResponse) | kFlagOneway;
  apply_request_header(request);
  run_outgoing_hook(request);
  co_return co_await ch->send(std::move(request));
}

void RpcPeer::apply_request_header(RemotingCommand& request) const {
  if (!opts_.request_header) return;
  // The binary header holds the code in an int16: RocketMQ 5's codes beyond it (POP_MESSAGE is
  // 200050) go out in JSON, whatever the peer prefers (RocketMQ's encoder would cut them).
  const bool fits = request.code >= std::numeric_limits<std::int16_t>::min() &&
                    request.code <= std::numeric_limits<std::int16_t>::max();
  if (*opts_.request_header == SerializeType::rocketmq && !fits) return;
  request.serialize_type = *opts_.request_header;
}

void RpcPeer::finish_call(std::int32_t opaque, Result<RemotingCommand> outcome) {
  auto it = pending_.find(opaque);
  if (it == pending_.end()) return;
  PendingCall call = std::move(it->second);
  pending_.erase(it);
  rt_.timers().cancel(call.timer);
  if (outcome.ok() && call.fields == ReplyFields::map) {
    // Raw fields were checked when the frame was read, so they read back.
    if (Status mapped = materialize_ext_fields(*outcome); !mapped.ok()) outcome = std::move(mapped).error();
  }
  call.done.complete(std::move(outcome));
}

void RpcPeer::on_command(const std::shared_ptr<Channel>& ch, RemotingCommand cmd) {
  if (cmd.is_response()) {
    auto call = pending_.find(cmd.opaque);
    if (call == pending_.end()) {
      rt_.log().debug("reply from {} with opaque {} matches no pending call (timed out?)",
                      ch->peer_text(), cmd.opaque);
      return;
    }
    if (call->second.channel_id != ch->id()) {
      // Not this call's reply (a confused or hostile peer): drop it; at most one line per 10 s.
      ++misrouted_replies_;
      if (misrouted_log_.admit(rt_.now())) {
        rt_.log().warn("reply from {} with opaque {} dropped: that call went out on another connection ({} such "
                       "replies so far)",
                       ch->peer_text(), cmd.opaque, misrouted_replies_);
      }
      return;
    }
    // buggify: the reply arrives late, but before its call times out (a slow network or peer).
    if (FERRY_BUGGIFY(rt_)) {
      if (std::optional<Duration> delay = late_reply_delay(call->second.deadline)) {
        rt_.spawn(finish_later(this, alive_, std::move(cmd), *delay), "reply-late");
        return;
      }
    }
    finish_call(cmd.opaque, std::move(cmd));
    return;
  }
  auto found = in_flight_.find(ch->id());
  const std::size_t in_flight = found == in_flight_.end() ? 0 : found->second;
  // buggify: the request is refused as though the connection's in-flight limit were reached: a
  // oneway request is dropped, a pull answered SYSTEM_BUSY (the consumer pulls again after its
  // back-off). Other two-way requests are left alone: RocketMQ's producer and admin tools fail a
  // call on SYSTEM_BUSY rather than retry, so refusing them would test only that they fail. A
  // pull this peer has no processor for is left alone too: RocketMQ answers a request code
  // nothing serves REQUEST_CODE_NOT_SUPPORTED (the VIP port's pull), never SYSTEM_BUSY.
  const bool pull_served = cmd.code == request_code::PULL_MESSAGE &&
                           (processors_.contains(cmd.code) || static_cast<bool>(default_processor_));
  const bool refusable = cmd.is_oneway() || pull_served;
  const bool refuse = refusable && FERRY_BUGGIFY(rt_) && rt_.random().one_in(16);
  if (in_flight >= opts_.requests_in_flight_max || refuse) {
    if (observer_) {
      ServedRequest r;
      r.code = cmd.code;
      r.response_code = cmd.is_oneway() ? 0 : response_code::SYSTEM_BUSY;
      r.outcome = cmd.is_oneway() ? ServedRequest::Outcome::oneway : ServedRequest::Outcome::success;
      r.refusal = ServedRequest::Refusal::busy;
      observer_(r);
    }
    if (!cmd.is_oneway()) {
      RemotingCommand busy = make_response(cmd, response_code::SYSTEM_BUSY,
                                           "too many requests in flight on this connection");
      rt_.spawn(send_detached(ch, std::move(busy)), "reply-busy");
    }
    return;
  }
  ++in_flight_[ch->id()];
  rt_.spawn(serve(this, ch, std::move(cmd)), "serve");
}

std::string_view outcome_name(ServedRequest::Outcome o) {
  switch (o) {
    case ServedRequest::Outcome::success: return "success";
    case ServedRequest::Outcome::oneway: return "oneway";
    case ServedRequest::Outcome::process_request_failed: return "process_request_failed";
    case ServedRequest::Outcome::write_channel_failed: return "write_channel_failed";
    case ServedRequest::Outcome::cancelled: return "cancelled";
  }
  return "unknown";
}

Task<void> RpcPeer::serve(RpcPeer* self, std::shared_ptr<Channel> ch, RemotingCommand request) {
  const std::shared_ptr<const bool> alive = self->alive_token();
  const std::int32_t code = request.code;
  const bool oneway = request.is_oneway();
  const MonoTime arrived = self->rt_.now();
  ServedRequest served;
  served.code = code;
  // Tells the observer (when there is one and the peer is alive) how the request went.
  auto observe = [&](ServedRequest::Outcome outcome) {
    if (!self->observer_) return;
    served.outcome = outcome;
    served.elapsed = self->rt_.now() - arrived;
    self->observer_(served);
  };
  const RemotingCommand request_head = [&] {
    RemotingCommand h;
    h.code = request.code;
    h.opaque = request.opaque;
    h.flag = request.flag;
    h.serialize_type = request.serialize_type;
    return h;
  }();
  // buggify: a two-way request waits before it is handled (a busy processor pool).
  // Two-way requests only: their order is not promised (RocketMQ serves them from processor
  // pools, and a caller that needs order awaits each reply); oneway requests keep their order.
  if (!oneway && FERRY_BUGGIFY(self->rt_)) {
    co_await self->rt_.sleep(std::chrono::milliseconds(self->rt_.random().between(1, 100)));
    if (!*alive) co_return;
  }
  // A server builds no reply while the connection's replies back up (a peer that does not read
  // them): the requests waiting here are small, their replies need not be. Without this every
  // request read before the pause (up to requests_in_flight_pause) built its reply and held it
  // while waiting for queue space: a real broker held 1 GiB for 512 unread pulls of 2 MiB.
  if (!oneway && self->opts_.pause_reads_while_replies_back_up) {
    co_await ch->wait_for_room();
    if (!*alive) co_return;
    if (!ch->is_open()) {  // nobody to answer: serve nothing
      self->request_done(*ch);
      observe(ServedRequest::Outcome::cancelled);
      co_return;
    }
  }
  std::optional<RemotingCommand> reply;
  std::string failure;
  auto it = self->processors_.find(code);
  const Processor* processor = it != self->processors_.end() ? &it->second
                               : self->default_processor_ ? &self->default_processor_
                                                          : nullptr;
  std::optional<std::string> refused;
  if (self->guard_) {
    // The guard (ACL) reads the map; raw fields were checked when the frame was read.
    Status mapped = materialize_ext_fields(request);
    refused = mapped.ok() ? self->guard_(*ch, request) : std::optional<std::string>(mapped.error().detail);
  }
  if (refused) {
    served.refusal = ServedRequest::Refusal::guard;
    reply = make_response(request_head, response_code::SYSTEM_ERROR, std::move(*refused));
  } else if (processor == nullptr) {
    reply = make_response(request_head, response_code::REQUEST_CODE_NOT_SUPPORTED,
                          "request type " + std::to_string(code) + " not supported");
  } else {
    try {
      // Named locals, not temporaries, around co_await: GCC 12 mishandles the lifetime of
      // aggregate temporaries in a co_await full-expression (docs/runtime.md).
      RequestContext ctx{ch, std::move(request)};
      Task<std::optional<RemotingCommand>> work = (*processor)(std::move(ctx));
      reply = co_await std::move(work);
    } catch (const std::exception& e) {
      failure = e.what();
    }
    if (!failure.empty()) {
      if (auto held = self->processor_error_log_.admit(self->rt_.now(), code)) {
        self->rt_.log().error("processor for request code {} from {} failed: {}{}", code, ch->peer_text(), failure,
                              held_back_note(*held));
      }
      reply = make_response(request_head, response_code::SYSTEM_ERROR, "internal error: " + failure);
    }
  }
  if (!*alive) co_return;  // the server went away while the processor ran
  ServedRequest::Outcome outcome = oneway            ? ServedRequest::Outcome::oneway
                                   : failure.empty() ? ServedRequest::Outcome::success
                                                     : ServedRequest::Outcome::process_request_failed;
  if (reply) {
    served.response_code = reply->code;
    served.suspended = reply->suspended;
  }
  // The request counts as in flight until its reply is queued for writing: a peer that does not
  // read its replies runs into requests_in_flight_max instead of parking replies without bound.
  if (reply && !oneway && ch->is_open()) {
    // The reply always matches its request, whatever the processor left in these fields.
    reply->opaque = request_head.opaque;
    reply->flag = (reply->flag | kFlagResponse) & ~kFlagOneway;
    reply->serialize_type = request_head.serialize_type;
    Status sent = co_await ch->send(std::move(*reply));
    if (!*alive) co_return;
    if (!sent) outcome = sent.error().is(Errc::closed) ? ServedRequest::Outcome::cancelled
                                                       : ServedRequest::Outcome::write_channel_failed;
    if (!sent && !sent.error().is(Errc::closed)) {
      if (auto held = self->reply_error_log_.admit(self->rt_.now(), static_cast<std::int64_t>(sent.error().code))) {
        self->rt_.log().warn("reply to request code {} for {} not sent: {}{}", code, ch->peer_text(),
                             sent.error().to_string(), held_back_note(*held));
      }
    }
  } else if (!oneway && reply && !ch->is_open()) {
    outcome = ServedRequest::Outcome::cancelled;
  }
  self->request_done(*ch);
  observe(outcome);
}

void RpcPeer::request_done(Channel& ch) {
  auto& in_flight = in_flight_[ch.id()];
  FERRY_ASSERT(in_flight > 0, "in-flight count of channel {} underflows", ch.id());
  if (--in_flight == 0) in_flight_.erase(ch.id());
  if (opts_.pause_reads_while_replies_back_up) ch.resume_reading();
}

bool RpcPeer::holds_reading(const Channel& ch) const {
  if (!opts_.pause_reads_while_replies_back_up) return false;
  return ch.held_bytes() >= opts_.write_queue_bytes_max || requests_in_flight(ch.id()) >= opts_.requests_in_flight_pause;
}

std::optional<Duration> RpcPeer::late_reply_delay(MonoTime deadline) {
  const std::int64_t left_ms = to_ms(deadline - rt_.now());
  if (left_ms < 3) return std::nullopt;
  if (rt_.random().one_in(4)) {  // just before the timeout
    return std::chrono::milliseconds(left_ms - rt_.random().between(1, std::min<std::int64_t>(100, left_ms / 2)));
  }
  return std::chrono::milliseconds(rt_.random().between(1, std::min<std::int64_t>(200, left_ms / 2)));
}

Task<void> RpcPeer::finish_later(RpcPeer* self, std::shared_ptr<const bool> alive, RemotingCommand reply, Duration delay) {
  co_await self->rt_.sleep(delay);
  if (!*alive) co_return;
  const std::int32_t opaque = reply.opaque;
  self->finish_call(opaque, std::move(reply));
}

void RpcPeer::on_closed(const std::shared_ptr<Channel>& ch, const Error& why) {
  // Fail the calls that went out on this channel, in opaque order.
  std::vector<std::int32_t> doomed;
  for (const auto& [opaque, call] : pending_) {
    if (call.channel_id == ch->id()) doomed.push_back(opaque);
  }
  const Errc code = why.is(Errc::eof) ? Errc::reset : why.code;
  for (std::int32_t opaque : doomed) {
    finish_call(opaque, Error(code == Errc::ok ? Errc::closed : code,
                              "connection to " + ch->peer_text() + " closed: " + why.to_string()));
  }
  channel_closed(ch, why);
}

}  // namespace ferry::remoting
