// GrpcEdge: apache.rocketmq.v2.MessagingService on gRPC's callback API, in front of the proxy's
// core (proxy/messaging_core.h). The thread boundary of mqproxy (docs/proxy.md, "Threads at the
// edge only"): gRPC's threads decode a call, check what needs no state (the client id, the
// bounds, the signature), copy the request and post it to the runtime's loop; the core answers on
// the loop and the answer is written back from whichever thread gRPC chooses.
//
//   GrpcEdge edge(rt, core, conf.edge, auth);
//   grpc::ServerBuilder b; b.RegisterService(&edge); ... server = b.BuildAndStart();
//   rt.run();                        // the core's loop
//   edge.close();                    // any thread: new calls get UNAVAILABLE
//   server->Shutdown(deadline);      // cancels what is left after the deadline
//
// As RocketMQ 5's proxy answers (docs/rocketmq5-proxy-facts.md §0): every unary call ends with
// gRPC status OK and its v2 Status in the response; a call without x-mq-client-id is
// CLIENT_ID_REQUIRED, past grpcCallsInFlightMax (or grpcReceivesPerClientMax receives of one
// client) TOO_MANY_REQUESTS "flow limit"; with ACL on (proxy/v2_access.h, checked on the loop
// against the plain_acl.yml the AccessControl keeps current), a refusal is UNAUTHORIZED with its
// reason, and a refused Telemetry SETTINGS command ends its stream INVALID_ARGUMENT.
// Telemetry: commands from the core (RecoverOrphanedTransactionCommand) are written to the stream
// the client opened last, at most 1024 queued a stream; a refused SETTINGS command ends the stream with gRPC INVALID_ARGUMENT (codes 40000 to
// 49999) or INTERNAL; past grpcTelemetryStreamsMax streams RESOURCE_EXHAUSTED. A call cancelled
// by its client (or by the server's shutdown deadline) is finished CANCELLED at once; its work on
// the loop finishes and its answer is dropped.
// PullMessage, UpdateOffset, GetOffset, QueryOffset and RecallMessage are not served (gRPC
// UNIMPLEMENTED, as the generated base answers).
//
// Thread-safety: every override runs on gRPC's threads; close() on any thread. The core and the
// runtime must outlive the gRPC server's Shutdown()/Wait().
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include <grpcpp/grpcpp.h>

#include "apache/rocketmq/v2/service.grpc.pb.h"
#include "daemon/proxy_conf.h"
#include "proxy/messaging_core.h"
#include "proxy/v2_access.h"
#include "remoting/acl/access_control.h"
#include "runtime/runtime.h"

namespace ferry::mqproxy {

namespace v2 = apache::rocketmq::v2;

class GrpcEdge final : public v2::MessagingService::CallbackService {
 public:
  // `acl`: nullptr when ACL is off; else used on the loop only, and it must outlive the server.
  GrpcEdge(Runtime& rt, proxy::MessagingCore& core, daemon::GrpcEdgeLimits limits, remoting::acl::AccessControl* acl = nullptr);

  // New calls are answered UNAVAILABLE "the proxy is shutting down" from now on.
  void close() { closing_.store(true); }

  grpc::ServerUnaryReactor* QueryRoute(grpc::CallbackServerContext* ctx, const v2::QueryRouteRequest* request,
                                       v2::QueryRouteResponse* response) override;
  grpc::ServerUnaryReactor* Heartbeat(grpc::CallbackServerContext* ctx, const v2::HeartbeatRequest* request,
                                      v2::HeartbeatResponse* response) override;
  grpc::ServerUnaryReactor* SendMessage(grpc::CallbackServerContext* ctx, const v2::SendMessageRequest* request,
                                        v2::SendMessageResponse* response) override;
  grpc::ServerUnaryReactor* QueryAssignment(grpc::CallbackServerContext* ctx, const v2::QueryAssignmentRequest* request,
                                            v2::QueryAssignmentResponse* response) override;
  grpc::ServerWriteReactor<v2::ReceiveMessageResponse>* ReceiveMessage(grpc::CallbackServerContext* ctx,
                                                                       const v2::ReceiveMessageRequest* request) override;
  grpc::ServerUnaryReactor* AckMessage(grpc::CallbackServerContext* ctx, const v2::AckMessageRequest* request,
                                       v2::AckMessageResponse* response) override;
  grpc::ServerUnaryReactor* ForwardMessageToDeadLetterQueue(grpc::CallbackServerContext* ctx,
                                                            const v2::ForwardMessageToDeadLetterQueueRequest* request,
                                                            v2::ForwardMessageToDeadLetterQueueResponse* response) override;
  grpc::ServerUnaryReactor* EndTransaction(grpc::CallbackServerContext* ctx, const v2::EndTransactionRequest* request,
                                           v2::EndTransactionResponse* response) override;
  grpc::ServerBidiReactor<v2::TelemetryCommand, v2::TelemetryCommand>* Telemetry(grpc::CallbackServerContext* ctx) override;
  grpc::ServerUnaryReactor* NotifyClientTermination(grpc::CallbackServerContext* ctx,
                                                    const v2::NotifyClientTerminationRequest* request,
                                                    v2::NotifyClientTerminationResponse* response) override;
  grpc::ServerUnaryReactor* ChangeInvisibleDuration(grpc::CallbackServerContext* ctx,
                                                    const v2::ChangeInvisibleDurationRequest* request,
                                                    v2::ChangeInvisibleDurationResponse* response) override;

  // For the calls' reactors (grpc_edge.cc).
  Runtime& runtime() { return rt_; }
  proxy::MessagingCore& core() { return core_; }
  // On the loop: nullopt when ACL is off or `needed` is allowed to `who`; else the refusal.
  std::optional<std::string> refusal(const proxy::CallContext& context, const proxy::V2Credentials& who,
                                     const remoting::acl::NeededAccess& needed) const;
  void release_call() { in_flight_.fetch_sub(1); }
  void release_receive(const std::string& client_id);
  void release_stream();

  // Open Telemetry streams by client id (the last one a client opened takes its commands): what the
  // core's server commands (transaction checks) are written to. Thread-safe.
  using StreamWriter = std::function<bool(v2::TelemetryCommand)>;
  std::uint64_t add_stream(const std::string& client_id, StreamWriter writer);
  void remove_stream(const std::string& client_id, std::uint64_t token);
  // True when an open stream of `client_id` queued `command`.
  bool write_to_client(const std::string& client_id, v2::TelemetryCommand command);

 private:
  // What a call is let in with: nullopt (and the refusal in `refused`) when it is not.
  struct Admission {
    proxy::CallContext context;
    proxy::V2Credentials who;  // authorization and x-mq-date-time
    v2::Code refused = v2::OK;
    std::string message;
    bool unavailable = false;  // closing: gRPC UNAVAILABLE
  };
  Admission admit(const grpc::CallbackServerContext& ctx, bool receive);
  template <typename Response, typename Request, typename Make>
  grpc::ServerUnaryReactor* unary(grpc::CallbackServerContext* ctx, const Request* request, Response* response, Make make);

  Runtime& rt_;
  proxy::MessagingCore& core_;
  const daemon::GrpcEdgeLimits limits_;
  remoting::acl::AccessControl* const acl_;
  std::atomic<bool> closing_{false};
  std::atomic<std::size_t> in_flight_{0};
  std::mutex mu_;
  std::map<std::string, std::size_t> receives_;  // by client id, under mu_
  std::size_t streams_ = 0;                      // under mu_
  std::map<std::string, std::pair<std::uint64_t, StreamWriter>> writers_;  // by client id, under mu_
  std::uint64_t next_token_ = 1;                                             // under mu_
};

// The call's context as the core takes it: x-mq-client-id, the peer as "ip:port", the deadline's
// remaining time.
proxy::CallContext call_context(const grpc::CallbackServerContext& ctx);
// The call's authorization and x-mq-date-time headers.
proxy::V2Credentials call_credentials(const grpc::CallbackServerContext& ctx);

}  // namespace ferry::mqproxy
