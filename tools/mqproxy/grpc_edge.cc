#include "grpc_edge.h"

#include <chrono>
#include <deque>
#include <exception>
#include <memory>
#include <utility>
#include <vector>

#include "proxy/v2_status.h"

namespace ferry::mqproxy {

namespace {

std::string metadata(const grpc::CallbackServerContext& ctx, std::string_view key) {
  const auto& md = ctx.client_metadata();
  auto it = md.find(grpc::string_ref(key.data(), key.size()));
  if (it == md.end()) return {};
  return std::string(it->second.data(), it->second.size());
}

// gRPC names a peer "ipv4:1.2.3.4:5678" or "ipv6:[::1]:5678": the address after the scheme.
std::string peer_address(const std::string& peer) {
  for (std::string_view scheme : {"ipv4:", "ipv6:"}) {
    if (peer.rfind(scheme, 0) == 0) return peer.substr(scheme.size());
  }
  return peer;
}

// ---- unary calls ------------------------------------------------------------------------------

// The reactor of an admitted unary call. The loop's work holds Shared, not the reactor: the
// reactor is gone after OnDone, and Shared says whether the call is still open.
template <typename Response>
class UnaryCall final : public grpc::ServerUnaryReactor {
 public:
  struct Shared {
    std::mutex mu;
    UnaryCall* call = nullptr;  // nullptr once finished
    Response* response = nullptr;
  };

  UnaryCall(GrpcEdge& edge, Response* response) : edge_(edge), shared_(std::make_shared<Shared>()) {
    shared_->call = this;
    shared_->response = response;
  }
  const std::shared_ptr<Shared>& shared() const { return shared_; }

  // Answers with `value`, unless the call was finished already (cancelled).
  static void answer(Shared& s, Response value) {
    std::lock_guard lock(s.mu);
    if (s.call == nullptr) return;
    *s.response = std::move(value);
    std::exchange(s.call, nullptr)->Finish(grpc::Status::OK);
  }

  void OnCancel() override {
    std::lock_guard lock(shared_->mu);
    if (shared_->call == nullptr) return;
    std::exchange(shared_->call, nullptr)->Finish(grpc::Status::CANCELLED);
  }
  void OnDone() override {
    edge_.release_call();
    delete this;
  }

 private:
  GrpcEdge& edge_;
  std::shared_ptr<Shared> shared_;
};

template <typename Response>
Task<void> answer_unary(std::shared_ptr<typename UnaryCall<Response>::Shared> shared, Task<Response> work) {
  std::optional<Response> value;
  std::string failure;
  try {
    value = co_await std::move(work);
  } catch (const std::exception& e) {
    failure = e.what();
  }
  if (!value) {
    value.emplace();
    *value->mutable_status() = proxy::status(v2::INTERNAL_SERVER_ERROR, "the proxy failed: " + failure);
  }
  UnaryCall<Response>::answer(*shared, std::move(*value));
}

// The core's answers that need no waiting, as tasks like the others.
Task<v2::HeartbeatResponse> heartbeat_on_loop(proxy::MessagingCore& core, v2::HeartbeatRequest r, proxy::CallContext c) {
  co_return core.heartbeat(r, c);
}
Task<v2::NotifyClientTerminationResponse> terminate_on_loop(proxy::MessagingCore& core, v2::NotifyClientTerminationRequest r,
                                                            proxy::CallContext c) {
  co_return core.notify_client_termination(r, c);
}

// ---- ReceiveMessage: a server stream ----------------------------------------------------------

// On the loop: messages popped for a stream that broke before they were written become visible
// again after 1 s, as RocketMQ's proxy does (NACK_INVISIBLE_TIME), instead of their whole
// invisible time.
Task<void> nack_on_loop(proxy::MessagingCore& core, v2::ChangeInvisibleDurationRequest r) {
  Task<v2::ChangeInvisibleDurationResponse> changing = core.change_invisible_duration(std::move(r));
  (void)co_await std::move(changing);
}
void nack(GrpcEdge& edge, const std::string& group, const std::vector<v2::ReceiveMessageResponse>& items, std::size_t from) {
  for (std::size_t i = from; i < items.size(); ++i) {
    if (!items[i].has_message()) continue;
    const v2::Message& m = items[i].message();
    v2::ChangeInvisibleDurationRequest r;
    r.mutable_group()->set_name(group);
    *r.mutable_topic() = m.topic();
    r.set_receipt_handle(m.system_properties().receipt_handle());
    r.set_message_id(m.system_properties().message_id());
    r.mutable_invisible_duration()->set_seconds(1);
    edge.runtime().spawn(nack_on_loop(edge.core(), std::move(r)), "grpc-receive-nack");
  }
}

class ReceiveCall final : public grpc::ServerWriteReactor<v2::ReceiveMessageResponse> {
 public:
  struct Shared {
    std::mutex mu;
    ReceiveCall* call = nullptr;
    GrpcEdge* edge = nullptr;
    std::string group;  // the receive's consumer group
  };

  // `admitted`: counted in the edge's bounds (released at OnDone).
  ReceiveCall(GrpcEdge& edge, std::string client_id, bool admitted, std::string group)
      : edge_(edge), client_id_(std::move(client_id)), admitted_(admitted), shared_(std::make_shared<Shared>()) {
    shared_->call = this;
    shared_->edge = &edge;
    shared_->group = std::move(group);
  }
  const std::shared_ptr<Shared>& shared() const { return shared_; }

  // Writes the responses in order, then finishes OK. A stream finished already (cancelled): the
  // messages are handed back (on the loop).
  static void deliver(Shared& s, std::vector<v2::ReceiveMessageResponse> items) {
    std::lock_guard lock(s.mu);
    if (s.call == nullptr) {
      nack(*s.edge, s.group, items, 0);
      return;
    }
    s.call->items_ = std::move(items);
    s.call->write_next();
  }

  void OnWriteDone(bool ok) override {
    std::lock_guard lock(shared_->mu);
    writing_ = false;
    if (shared_->call == nullptr) return;
    if (!ok || cancelled_) {
      // The item that failed and those never written go back.
      const std::size_t from = ok ? next_ : next_ - 1;
      auto lost = std::make_shared<std::vector<v2::ReceiveMessageResponse>>(items_.begin() + static_cast<std::ptrdiff_t>(from), items_.end());
      GrpcEdge* edge = shared_->edge;
      edge->runtime().executor().post([edge, group = shared_->group, lost] { nack(*edge, group, *lost, 0); });
      finish(grpc::Status::CANCELLED);
      return;
    }
    write_next();
  }
  void OnCancel() override {
    std::lock_guard lock(shared_->mu);
    cancelled_ = true;
    if (shared_->call != nullptr && !writing_) finish(grpc::Status::CANCELLED);
  }
  void OnDone() override {
    if (admitted_) {
      edge_.release_receive(client_id_);
      edge_.release_call();
    }
    delete this;
  }

 private:
  // Under shared_->mu.
  void write_next() {
    if (next_ < items_.size()) {
      writing_ = true;
      StartWrite(&items_[next_++]);
      return;
    }
    finish(grpc::Status::OK);
  }
  void finish(const grpc::Status& s) {
    shared_->call = nullptr;
    Finish(s);
  }

  GrpcEdge& edge_;
  const std::string client_id_;
  const bool admitted_;
  std::shared_ptr<Shared> shared_;
  std::vector<v2::ReceiveMessageResponse> items_;
  std::size_t next_ = 0;
  bool writing_ = false;
  bool cancelled_ = false;
};

Task<void> answer_receive(std::shared_ptr<ReceiveCall::Shared> shared, Task<std::vector<v2::ReceiveMessageResponse>> work) {
  std::vector<v2::ReceiveMessageResponse> items;
  std::string failure;
  bool failed = false;
  try {
    items = co_await std::move(work);
  } catch (const std::exception& e) {
    failed = true;
    failure = e.what();
  }
  if (failed) {
    items.clear();
    v2::ReceiveMessageResponse r;
    *r.mutable_status() = proxy::status(v2::INTERNAL_SERVER_ERROR, "the proxy failed: " + failure);
    items.push_back(std::move(r));
  }
  ReceiveCall::deliver(*shared, std::move(items));
}

// ---- Telemetry: both ways ---------------------------------------------------------------------

class TelemetryCall final : public grpc::ServerBidiReactor<v2::TelemetryCommand, v2::TelemetryCommand> {
 public:
  struct Shared {
    std::mutex mu;
    TelemetryCall* call = nullptr;
  };

  // `refusal`: finish at once with it (the stream was not admitted).
  TelemetryCall(GrpcEdge& edge, proxy::CallContext context, proxy::V2Credentials who, std::optional<grpc::Status> refusal)
      : edge_(edge), context_(std::move(context)), who_(std::move(who)), admitted_(!refusal), shared_(std::make_shared<Shared>()) {
    shared_->call = this;
    if (refusal) {
      std::lock_guard lock(shared_->mu);
      finish(*refusal);
      return;
    }
    token_ = edge_.add_stream(context_.client_id, [weak = std::weak_ptr<Shared>(shared_)](v2::TelemetryCommand command) {
      std::shared_ptr<Shared> s = weak.lock();
      return s != nullptr && push(*s, std::move(command));
    });
    StartRead(&in_);
  }

  // Queues a command from the server side; false when the stream is finished or its queue full.
  static bool push(Shared& s, v2::TelemetryCommand command) {
    std::lock_guard lock(s.mu);
    TelemetryCall* c = s.call;
    if (c == nullptr || c->ending_ || c->out_.size() >= kQueuedMax) return false;
    c->out_.push_back(std::move(command));
    if (!c->writing_) c->write_front();
    return true;
  }

  void OnReadDone(bool ok) override {
    if (!ok) {  // the client closed its side (or the stream broke): end ours once written out
      std::lock_guard lock(shared_->mu);
      read_closed_ = true;
      if (shared_->call != nullptr && !writing_) finish(grpc::Status::OK);
      return;
    }
    // The next read starts once the loop has answered this command: one command at a time.
    edge_.runtime().executor().post([&edge = edge_, shared = shared_, command = in_, context = context_, who = who_] {
      if (std::optional<std::string> refused = edge.refusal(context, who, proxy::needed_v2_access(command))) {
        v2::TelemetryCommand answer;
        *answer.mutable_status() = proxy::status(v2::UNAUTHORIZED, std::move(*refused));
        after_command(*shared, std::move(answer));
        return;
      }
      edge.runtime().spawn(answer_on_loop(edge, shared, command, context), "grpc-telemetry");
    });
  }
  void OnWriteDone(bool ok) override {
    std::lock_guard lock(shared_->mu);
    writing_ = false;
    if (shared_->call == nullptr) return;
    if (!ok) {
      finish(grpc::Status::CANCELLED);
      return;
    }
    if (ending_) {
      finish(*ending_);
      return;
    }
    if (!out_.empty()) {
      write_front();
    } else if (read_closed_) {
      finish(grpc::Status::OK);
    }
  }
  void OnCancel() override {
    std::lock_guard lock(shared_->mu);
    if (shared_->call != nullptr && !writing_) finish(grpc::Status::CANCELLED);
  }
  void OnDone() override {
    if (admitted_) {
      edge_.remove_stream(context_.client_id, token_);
      edge_.release_stream();
    }
    delete this;
  }

 private:
  static constexpr std::size_t kQueuedMax = 1024;

  // On the loop: the core's answer (it may ask a broker for the group's config), then the next read.
  static Task<void> answer_on_loop(GrpcEdge& edge, std::shared_ptr<Shared> shared, v2::TelemetryCommand command,
                                   proxy::CallContext context) {
    Task<std::optional<v2::TelemetryCommand>> answering = edge.core().telemetry_with_group(std::move(command), std::move(context));
    std::optional<v2::TelemetryCommand> answer = co_await std::move(answering);
    after_command(*shared, std::move(answer));
  }
  // On the loop: the core's answer to the command read last.
  static void after_command(Shared& s, std::optional<v2::TelemetryCommand> answer) {
    std::lock_guard lock(s.mu);
    TelemetryCall* c = s.call;
    if (c == nullptr) return;
    if (answer && !answer->has_settings() && answer->status().code() != v2::OK) {
      // Refused: RocketMQ's proxy fails the stream, INVALID_ARGUMENT for a client's mistake.
      const int code = answer->status().code();
      c->ending_ = grpc::Status(code >= 40000 && code < 50000 ? grpc::StatusCode::INVALID_ARGUMENT : grpc::StatusCode::INTERNAL,
                                "process client telemetryCommand failed. " + answer->status().message());
      if (!c->writing_) c->finish(*c->ending_);
      return;
    }
    if (answer) {
      c->out_.push_back(std::move(*answer));
      if (!c->writing_) c->write_front();
    }
    c->StartRead(&c->in_);
  }
  // Under shared_->mu.
  void write_front() {
    current_ = std::move(out_.front());
    out_.pop_front();
    writing_ = true;
    StartWrite(&current_);
  }
  void finish(const grpc::Status& s) {
    shared_->call = nullptr;
    Finish(s);
  }

  GrpcEdge& edge_;
  const proxy::CallContext context_;
  const proxy::V2Credentials who_;
  const bool admitted_;
  std::shared_ptr<Shared> shared_;
  std::uint64_t token_ = 0;
  v2::TelemetryCommand in_;
  v2::TelemetryCommand current_;
  std::deque<v2::TelemetryCommand> out_;
  bool writing_ = false;
  bool read_closed_ = false;
  std::optional<grpc::Status> ending_;
};

}  // namespace

proxy::CallContext call_context(const grpc::CallbackServerContext& ctx) {
  proxy::CallContext c;
  c.client_id = metadata(ctx, "x-mq-client-id");
  c.peer = peer_address(ctx.peer());
  const auto deadline = ctx.deadline();
  const auto now = std::chrono::system_clock::now();
  if (deadline < now + std::chrono::hours(24 * 365)) {  // gRPC gives a far future for "none"
    c.remaining = std::max(Duration::zero(), std::chrono::duration_cast<Duration>(deadline - now));
  }
  return c;
}

GrpcEdge::GrpcEdge(Runtime& rt, proxy::MessagingCore& core, daemon::GrpcEdgeLimits limits, remoting::acl::AccessControl* acl)
    : rt_(rt), core_(core), limits_(std::move(limits)), acl_(acl) {}

proxy::V2Credentials call_credentials(const grpc::CallbackServerContext& ctx) {
  return proxy::parse_authorization(metadata(ctx, "authorization"), metadata(ctx, "x-mq-date-time"));
}

std::optional<std::string> GrpcEdge::refusal(const proxy::CallContext& context, const proxy::V2Credentials& who,
                                             const remoting::acl::NeededAccess& needed) const {
  if (acl_ == nullptr) return std::nullopt;
  const std::string_view host = std::string_view(context.peer).substr(0, context.peer.rfind(':'));
  return proxy::check_v2_access(acl_->config(), host, who, needed);
}

GrpcEdge::Admission GrpcEdge::admit(const grpc::CallbackServerContext& ctx, bool receive) {
  Admission a;
  if (closing_.load()) {
    a.unavailable = true;
    a.message = "the proxy is shutting down";
    return a;
  }
  a.context = call_context(ctx);
  if (a.context.client_id.empty()) {
    a.refused = v2::CLIENT_ID_REQUIRED;
    a.message = "client id cannot be empty";
    return a;
  }
  if (acl_ != nullptr) a.who = call_credentials(ctx);
  if (in_flight_.fetch_add(1) >= limits_.calls_in_flight_max) {
    in_flight_.fetch_sub(1);
    a.refused = v2::TOO_MANY_REQUESTS;
    a.message = "flow limit";
    return a;
  }
  if (receive) {
    std::lock_guard lock(mu_);
    std::size_t& n = receives_[a.context.client_id];
    if (n >= limits_.receives_per_client_max) {
      if (n == 0) receives_.erase(a.context.client_id);
      in_flight_.fetch_sub(1);
      a.refused = v2::TOO_MANY_REQUESTS;
      a.message = "flow limit";
      return a;
    }
    ++n;
  }
  return a;
}

void GrpcEdge::release_receive(const std::string& client_id) {
  std::lock_guard lock(mu_);
  auto it = receives_.find(client_id);
  if (it != receives_.end() && --it->second == 0) receives_.erase(it);
}

std::uint64_t GrpcEdge::add_stream(const std::string& client_id, StreamWriter writer) {
  std::lock_guard lock(mu_);
  const std::uint64_t token = next_token_++;
  writers_[client_id] = {token, std::move(writer)};
  return token;
}

void GrpcEdge::remove_stream(const std::string& client_id, std::uint64_t token) {
  std::lock_guard lock(mu_);
  auto it = writers_.find(client_id);
  if (it != writers_.end() && it->second.first == token) writers_.erase(it);
}

bool GrpcEdge::write_to_client(const std::string& client_id, v2::TelemetryCommand command) {
  StreamWriter writer;
  {
    std::lock_guard lock(mu_);
    auto it = writers_.find(client_id);
    if (it == writers_.end()) return false;
    writer = it->second.second;
  }
  return writer(std::move(command));
}

void GrpcEdge::release_stream() {
  std::lock_guard lock(mu_);
  --streams_;
}

template <typename Response, typename Request, typename Make>
grpc::ServerUnaryReactor* GrpcEdge::unary(grpc::CallbackServerContext* ctx, const Request* request, Response* response, Make make) {
  Admission a = admit(*ctx, /*receive=*/false);
  if (a.unavailable || a.refused != v2::OK) {
    grpc::ServerUnaryReactor* r = ctx->DefaultReactor();
    if (a.unavailable) {
      r->Finish(grpc::Status(grpc::StatusCode::UNAVAILABLE, a.message));
    } else {
      *response->mutable_status() = proxy::status(a.refused, a.message);
      r->Finish(grpc::Status::OK);
    }
    return r;
  }
  auto* call = new UnaryCall<Response>(*this, response);
  rt_.executor().post([this, shared = call->shared(), copy = *request, context = std::move(a.context), who = std::move(a.who),
                       make]() mutable {
    if (std::optional<std::string> refused = refusal(context, who, proxy::needed_v2_access(copy))) {
      Response r;
      *r.mutable_status() = proxy::status(v2::UNAUTHORIZED, std::move(*refused));
      UnaryCall<Response>::answer(*shared, std::move(r));
      return;
    }
    rt_.spawn(answer_unary<Response>(shared, make(core_, std::move(copy), std::move(context))), "grpc-call");
  });
  return call;
}

grpc::ServerUnaryReactor* GrpcEdge::QueryRoute(grpc::CallbackServerContext* ctx, const v2::QueryRouteRequest* request,
                                               v2::QueryRouteResponse* response) {
  return unary(ctx, request, response, [](proxy::MessagingCore& core, v2::QueryRouteRequest r, proxy::CallContext) {
    return core.query_route(std::move(r));
  });
}

grpc::ServerUnaryReactor* GrpcEdge::Heartbeat(grpc::CallbackServerContext* ctx, const v2::HeartbeatRequest* request,
                                              v2::HeartbeatResponse* response) {
  return unary(ctx, request, response, [](proxy::MessagingCore& core, v2::HeartbeatRequest r, proxy::CallContext c) {
    return heartbeat_on_loop(core, std::move(r), std::move(c));
  });
}

grpc::ServerUnaryReactor* GrpcEdge::SendMessage(grpc::CallbackServerContext* ctx, const v2::SendMessageRequest* request,
                                                v2::SendMessageResponse* response) {
  return unary(ctx, request, response, [](proxy::MessagingCore& core, v2::SendMessageRequest r, proxy::CallContext c) {
    return core.send_message(std::move(r), std::move(c));
  });
}

grpc::ServerUnaryReactor* GrpcEdge::QueryAssignment(grpc::CallbackServerContext* ctx, const v2::QueryAssignmentRequest* request,
                                                    v2::QueryAssignmentResponse* response) {
  return unary(ctx, request, response, [](proxy::MessagingCore& core, v2::QueryAssignmentRequest r, proxy::CallContext) {
    return core.query_assignment(std::move(r));
  });
}

grpc::ServerUnaryReactor* GrpcEdge::AckMessage(grpc::CallbackServerContext* ctx, const v2::AckMessageRequest* request,
                                               v2::AckMessageResponse* response) {
  return unary(ctx, request, response, [](proxy::MessagingCore& core, v2::AckMessageRequest r, proxy::CallContext) {
    return core.ack_message(std::move(r));
  });
}

grpc::ServerUnaryReactor* GrpcEdge::ForwardMessageToDeadLetterQueue(grpc::CallbackServerContext* ctx,
                                                                    const v2::ForwardMessageToDeadLetterQueueRequest* request,
                                                                    v2::ForwardMessageToDeadLetterQueueResponse* response) {
  return unary(ctx, request, response,
               [](proxy::MessagingCore& core, v2::ForwardMessageToDeadLetterQueueRequest r, proxy::CallContext) {
                 return core.forward_to_dead_letter_queue(std::move(r));
               });
}

grpc::ServerUnaryReactor* GrpcEdge::EndTransaction(grpc::CallbackServerContext* ctx, const v2::EndTransactionRequest* request,
                                                   v2::EndTransactionResponse* response) {
  return unary(ctx, request, response, [](proxy::MessagingCore& core, v2::EndTransactionRequest r, proxy::CallContext) {
    return core.end_transaction(std::move(r));
  });
}

grpc::ServerUnaryReactor* GrpcEdge::NotifyClientTermination(grpc::CallbackServerContext* ctx,
                                                            const v2::NotifyClientTerminationRequest* request,
                                                            v2::NotifyClientTerminationResponse* response) {
  return unary(ctx, request, response, [](proxy::MessagingCore& core, v2::NotifyClientTerminationRequest r, proxy::CallContext c) {
    return terminate_on_loop(core, std::move(r), std::move(c));
  });
}

grpc::ServerUnaryReactor* GrpcEdge::ChangeInvisibleDuration(grpc::CallbackServerContext* ctx,
                                                            const v2::ChangeInvisibleDurationRequest* request,
                                                            v2::ChangeInvisibleDurationResponse* response) {
  return unary(ctx, request, response, [](proxy::MessagingCore& core, v2::ChangeInvisibleDurationRequest r, proxy::CallContext) {
    return core.change_invisible_duration(std::move(r));
  });
}

grpc::ServerWriteReactor<v2::ReceiveMessageResponse>* GrpcEdge::ReceiveMessage(grpc::CallbackServerContext* ctx,
                                                                               const v2::ReceiveMessageRequest* request) {
  Admission a = admit(*ctx, /*receive=*/true);
  const bool admitted = !a.unavailable && a.refused == v2::OK;
  auto* call = new ReceiveCall(*this, a.context.client_id, admitted, request->group().name());
  if (!admitted) {
    v2::ReceiveMessageResponse r;
    *r.mutable_status() = proxy::status(a.unavailable ? v2::INTERNAL_SERVER_ERROR : a.refused, a.message);
    ReceiveCall::deliver(*call->shared(), {std::move(r)});
    return call;
  }
  rt_.executor().post([this, shared = call->shared(), copy = *request, context = std::move(a.context), who = std::move(a.who)]() mutable {
    if (std::optional<std::string> refused = refusal(context, who, proxy::needed_v2_access(copy))) {
      v2::ReceiveMessageResponse r;
      *r.mutable_status() = proxy::status(v2::UNAUTHORIZED, std::move(*refused));
      ReceiveCall::deliver(*shared, {std::move(r)});
      return;
    }
    rt_.spawn(answer_receive(shared, core_.receive_message(std::move(copy), std::move(context))), "grpc-receive");
  });
  return call;
}

grpc::ServerBidiReactor<v2::TelemetryCommand, v2::TelemetryCommand>* GrpcEdge::Telemetry(grpc::CallbackServerContext* ctx) {
  proxy::CallContext context = call_context(*ctx);
  std::optional<grpc::Status> refusal;
  if (closing_.load()) {
    refusal = grpc::Status(grpc::StatusCode::UNAVAILABLE, "the proxy is shutting down");
  } else if (context.client_id.empty()) {
    refusal = grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "client id cannot be empty");
  }
  if (!refusal) {
    std::lock_guard lock(mu_);
    if (streams_ >= limits_.telemetry_streams_max) {
      refusal = grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED, "too many telemetry streams on this proxy");
    } else {
      ++streams_;
    }
  }
  proxy::V2Credentials who;
  if (acl_ != nullptr) who = call_credentials(*ctx);
  return new TelemetryCall(*this, std::move(context), std::move(who), std::move(refusal));
}

}  // namespace ferry::mqproxy
