// QueryRoute's answer (RocketMQ 5's proxy in cluster mode, RouteActivity; facts in
// docs/rocketmq5-proxy-facts.md §1): a NameServer's route of a topic as the message queues a
// gRPC client sees. The client talks to the proxy only, so every broker's endpoints are the ones
// the client asked at, with the proxy's gRPC port. For each queue data, in the NameServer's order,
// and each broker id of its broker (the master and the slaves, by id), queues are numbered 0, 1,
// ...: first the read-only ones (read queues beyond the write queues), then the write-only ones,
// then the read-write ones (min of the two counts); a broker whose permission has neither read nor
// write gets max(1, max of the counts) NONE queues. accept_message_types are the topic's type
// (MIXED: all four). Deterministic and pure.
#pragma once

#include <cstdint>

#include "apache/rocketmq/v2/service.pb.h"
#include "proxy/v2_send.h"
#include "remoting/body/topic_route_data.h"

namespace ferry::proxy {

struct RouteOptions {
  std::int32_t grpc_port = 8081;                // grpcServerPort
  bool use_endpoint_port_from_request = false;  // useEndpointPortFromRequest
};

// The answer for `request`, whose topic the caller checked, with `route` from the NameServers.
// A route without queue data or broker data: TOPIC_NOT_FOUND, as RocketMQ words it. Endpoints
// without a scheme: BAD_REQUEST.
v2::QueryRouteResponse route_response(const v2::QueryRouteRequest& request, const remoting::body::TopicRouteData& route,
                                      TopicMessageType type, const RouteOptions& options);

// QueryAssignment's answer (a push consumer's queues, facts §1), as RocketMQ 5.3's proxy gives it:
// for each readable queue data with read queues, one assignment on the broker's master (id 0):
// queue id -1 (the whole broker: the proxy pops from all its queues), or with `fifo` (the group
// consumes orderly) one per read queue. The permission is the queue data's; endpoints as for
// QueryRoute; no accepted types. No assignment: FORBIDDEN "no readable queue". `request`'s topic
// and group were checked by the caller.
v2::QueryAssignmentResponse assignment_response(const v2::QueryAssignmentRequest& request,
                                                const remoting::body::TopicRouteData& route, bool fifo,
                                                const RouteOptions& options);

}  // namespace ferry::proxy
