// RpcPeer: what a remoting server and a remoting client share — request processors by code,
// calls awaiting replies (by opaque), and the dispatch of what arrives on a Channel.
//
// Requests: each incoming request runs its processor in its own task, so a slow request (a long
// poll) never blocks the connection. The processor returns the reply, or nullopt for none; a
// oneway request's reply is dropped. An unknown code gets REQUEST_CODE_NOT_SUPPORTED (3) with a
// remark; more than requests_in_flight_max requests on one channel (each counted until its reply
// is queued for writing) get SYSTEM_BUSY (2); a
// processor that throws gets SYSTEM_ERROR (1) with the exception's text (and an error log, one
// per 10 s per request code; so is a reply that cannot be sent).
//
// Guard (set_request_guard, e.g. ACL): consulted for every request before its processor; a refusal
// is answered SYSTEM_ERROR (1) with the guard's remark (a oneway request is dropped). Unset, it
// costs one branch.
//
// Calls: invoke_on() sends a request and waits for the reply with the same opaque that arrives on
// the channel the call went out on (a reply with that opaque on another channel is not this call's
// reply: it is dropped and counted, with a warn line at most every 10 s). The outgoing hook (set_outgoing_hook, e.g. signing)
// sees every request invoke_on()/invoke_oneway_on() sends, last, after its fields are set. A timeout,
// or the close of the channel the call went out on, fails exactly the calls it concerns with an
// error value (timed_out / reset or closed), and a late reply is dropped with a debug log.
// Destroying the peer fails its pending calls with Errc::closed.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "remoting/remoting_command.h"
#include "remoting/rpc/channel.h"
#include "remoting/rpc/rpc_options.h"
#include "runtime/log_limiter.h"
#include "runtime/runtime.h"

namespace ferry::remoting {

struct RequestContext {
  std::shared_ptr<Channel> channel;  // where the request came from (to reply later or call back)
  RemotingCommand request;
};

// Returns the reply to send (make_response(request, code) plus fields/body), or nullopt.
using Processor = std::function<Task<std::optional<RemotingCommand>>(RequestContext)>;
// nullopt: serve the request; otherwise the remark of the SYSTEM_ERROR that refuses it.
using RequestGuard = std::function<std::optional<std::string>(const Channel&, const RemotingCommand&)>;
// Changes a request just before it is sent (adds a signature, say).
using OutgoingHook = std::function<void(RemotingCommand&)>;

// One request this peer served, as its request observer hears of it (metrics: RocketMQ 5's
// rocketmq_rpc_latency and its labels).
struct ServedRequest {
  enum class Outcome : std::uint8_t {
    success,                 // the reply was queued for writing
    oneway,                  // a oneway request: served, nothing to answer
    process_request_failed,  // the processor threw (answered SYSTEM_ERROR)
    write_channel_failed,    // the reply could not be queued (the channel failed)
    cancelled,               // the channel closed before the request was served or answered
  };
  std::int32_t code = 0;           // the request code
  std::int32_t response_code = 0;  // the reply's code (0 when there was none)
  Duration elapsed{};              // from the request's arrival to its reply queued (or dropped)
  Outcome outcome = Outcome::success;
  bool suspended = false;          // the processor held the request (RemotingCommand::suspended)
  // Refused before any processor saw it: the connection's requests_in_flight_max (answered
  // SYSTEM_BUSY, a oneway dropped), or the request guard (ACL; answered SYSTEM_ERROR).
  enum class Refusal : std::uint8_t { none, busy, guard };
  Refusal refusal = Refusal::none;
};
std::string_view outcome_name(ServedRequest::Outcome o);  // RocketMQ's label values
// Hears of every request served (not those of a destroyed peer). Must not throw.
using RequestObserver = std::function<void(const ServedRequest&)>;

class RpcPeer : public Channel::Handler {
 public:
  RpcPeer(Runtime& rt, RpcOptions opts);
  ~RpcPeer() override;
  RpcPeer(const RpcPeer&) = delete;
  RpcPeer& operator=(const RpcPeer&) = delete;

  // Registers the processor for a request code (replacing any previous one).
  void register_processor(std::int32_t code, Processor p);
  // Used for codes with no processor instead of the REQUEST_CODE_NOT_SUPPORTED reply.
  void set_default_processor(Processor p) { default_processor_ = std::move(p); }
  void set_request_guard(RequestGuard g) { guard_ = std::move(g); }
  void set_outgoing_hook(OutgoingHook h) { outgoing_hook_ = std::move(h); }
  void set_request_observer(RequestObserver o) { observer_ = std::move(o); }
  // Replies dropped because they came on a channel other than their call's.
  std::uint64_t misrouted_replies() const { return misrouted_replies_; }

  // How a call wants its reply's extFields: as the map, or (with RpcOptions::raw_ext_fields_replies)
  // raw as they came in a binary header, for a caller that decodes its typed header from them.
  enum class ReplyFields : std::uint8_t { map, raw };

  // Sends `request` on `ch` (its opaque is replaced by a fresh one) and waits for the reply.
  // Errors: timed_out, closed/reset (the channel closed first), busy (too many pending calls),
  // invalid_argument (frame too large).
  Task<Result<RemotingCommand>> invoke_on(std::shared_ptr<Channel> ch, RemotingCommand request,
                                          Duration timeout, ReplyFields fields = ReplyFields::map);
  // Sends `request` with the oneway flag; no reply is expected.
  Task<Status> invoke_oneway_on(std::shared_ptr<Channel> ch, RemotingCommand request);

  std::size_t pending_calls() const { return pending_.size(); }
  // Requests of channel `channel_id` being served (counted until their replies are queued).
  std::size_t requests_in_flight(std::uint64_t channel_id) const {
    auto it = in_flight_.find(channel_id);
    return it == in_flight_.end() ? 0 : it->second;
  }
  Runtime& runtime() { return rt_; }
  const RpcOptions& options() const { return opts_; }

  // Channel::Handler
  void on_command(const std::shared_ptr<Channel>& ch, RemotingCommand cmd) override;
  void on_closed(const std::shared_ptr<Channel>& ch, const Error& why) override;
  // With pause_reads_while_replies_back_up: while the channel's replies back up or
  // requests_in_flight_pause of its requests are being served.
  bool holds_reading(const Channel& ch) const override;
  LogLimiter& malformed_stream_log() override { return malformed_log_; }

 protected:
  // Subclasses hear about closed channels here (after pending calls on it have failed).
  virtual void channel_closed(const std::shared_ptr<Channel>& ch, const Error& why) {
    (void)ch;
    (void)why;
  }
  std::uint64_t next_channel_id() { return ++last_channel_id_; }
  // False once the peer is destroyed: coroutines of this peer that resume after an await check
  // it before touching the peer (a client may be destroyed while its node's tasks live on).
  std::shared_ptr<const bool> alive_token() const { return alive_; }

  Runtime& rt_;
  RpcOptions opts_;

 private:
  struct PendingCall {
    Completion<Result<RemotingCommand>> done;
    TimerId timer;
    std::uint64_t channel_id;
    MonoTime deadline;  // when the timer fails the call
    ReplyFields fields = ReplyFields::map;
  };
  // Runs the request's processor and queues its reply. On a server (pause_reads_while_replies_
  // back_up) a two-way request first waits for room on the channel (Channel::wait_for_room), so
  // replies are built only as the peer reads them; one that finds the channel closed is dropped.
  static Task<void> serve(RpcPeer* self, std::shared_ptr<Channel> ch, RemotingCommand request);
  // A request of `ch` is done (replied, dropped or closed): it no longer counts as in flight.
  void request_done(Channel& ch);
  // Hands `reply` to its call after `delay` (a reply that arrives late); nothing when the peer
  // is gone or the call ended meanwhile.
  static Task<void> finish_later(RpcPeer* self, std::shared_ptr<const bool> alive, RemotingCommand reply, Duration delay);
  // A delay that ends before `deadline`: mostly short, sometimes just before the deadline.
  // nullopt when too little time is left.
  std::optional<Duration> late_reply_delay(MonoTime deadline);
  void finish_call(std::int32_t opaque, Result<RemotingCommand> outcome);
  // Sets the options' request header form, unless the code does not fit it (see the .cc).
  void apply_request_header(RemotingCommand& request) const;
  std::int32_t next_opaque();
  // The outgoing hook, when set, on `request` with its extFields as a map.
  void run_outgoing_hook(RemotingCommand& request) const;

  std::map<std::int32_t, Processor> processors_;
  Processor default_processor_;
  RequestGuard guard_;
  OutgoingHook outgoing_hook_;
  RequestObserver observer_;
  std::uint64_t misrouted_replies_ = 0;
  LogLimiter misrouted_log_;
  LogLimiter malformed_log_;       // "malformed stream" lines of all channels, by Errc
  LogLimiter processor_error_log_;  // processors that threw, by request code
  LogLimiter reply_error_log_;      // replies not sent, by Errc
  std::map<std::int32_t, PendingCall> pending_;  // by opaque
  std::map<std::uint64_t, std::size_t> in_flight_;  // requests being served, by channel id
  std::int32_t last_opaque_ = 0;
  std::uint64_t last_channel_id_ = 0;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace ferry::remoting
