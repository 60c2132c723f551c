#include "proxy/v2_route.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

#include "common/permission.h"
#include "proxy/v2_status.h"

namespace ferry::proxy {

namespace {

void add_types(v2::MessageQueue& q, TopicMessageType type) {
  switch (type) {
    case TopicMessageType::normal: q.add_accept_message_types(v2::NORMAL); break;
    case TopicMessageType::fifo: q.add_accept_message_types(v2::FIFO); break;
    case TopicMessageType::delay: q.add_accept_message_types(v2::DELAY); break;
    case TopicMessageType::transaction: q.add_accept_message_types(v2::TRANSACTION); break;
    case TopicMessageType::mixed:
      for (v2::MessageType t : {v2::NORMAL, v2::FIFO, v2::DELAY, v2::TRANSACTION}) q.add_accept_message_types(t);
      break;
    case TopicMessageType::unspecified: q.add_accept_message_types(v2::MESSAGE_TYPE_UNSPECIFIED); break;
  }
}

// The request's endpoints as every broker's, on the proxy's gRPC port; nullopt without an address.
std::optional<v2::Endpoints> answer_endpoints(const v2::Endpoints& asked, const RouteOptions& options) {
  if (asked.scheme() == v2::ADDRESS_SCHEME_UNSPECIFIED || asked.addresses_size() == 0) return std::nullopt;
  v2::Endpoints endpoints = asked;
  if (!options.use_endpoint_port_from_request) {
    for (v2::Address& a : *endpoints.mutable_addresses()) a.set_port(options.grpc_port);
  }
  return endpoints;
}

constexpr std::int64_t kMasterId = 0;  // MixAll.MASTER_ID
constexpr const char* kNoEndpoints = "the endpoints of the request have no address scheme or no address";

}  // namespace

v2::QueryRouteResponse route_response(const v2::QueryRouteRequest& request, const remoting::body::TopicRouteData& route,
                                      TopicMessageType type, const RouteOptions& options) {
  v2::QueryRouteResponse out;
  const std::string& topic = request.topic().name();
  if (route.queue_datas.empty() || route.broker_datas.empty()) {
    *out.mutable_status() = status(v2::TOPIC_NOT_FOUND, fmt::format("No topic route info in name server for the topic: {}", topic));
    return out;
  }
  const std::optional<v2::Endpoints> answered = answer_endpoints(request.endpoints(), options);
  if (!answered) {
    *out.mutable_status() = status(v2::BAD_REQUEST, kNoEndpoints);
    return out;
  }
  const v2::Endpoints& endpoints = *answered;
  for (const remoting::body::QueueData& qd : route.queue_datas) {
    auto broker = std::find_if(route.broker_datas.begin(), route.broker_datas.end(),
                               [&](const remoting::body::BrokerData& b) { return b.broker_name == qd.broker_name; });
    if (broker == route.broker_datas.end()) break;  // RocketMQ stops at the first queue data without its broker
    const bool readable = perm::is_readable(qd.perm);
    const bool writeable = perm::is_writeable(qd.perm);
    std::int32_t r = 0, w = 0, rw = 0, none = 0;
    if (readable && writeable) {
      rw = std::min(qd.write_queue_nums, qd.read_queue_nums);
      r = qd.read_queue_nums - rw;
      w = qd.write_queue_nums - rw;
    } else if (writeable) {
      w = qd.write_queue_nums;
    } else if (readable) {
      r = qd.read_queue_nums;
    } else {
      none = std::max(1, std::max(qd.write_queue_nums, qd.read_queue_nums));
    }
    for (const auto& [id, addr] : broker->broker_addrs) {
      (void)addr;
      std::int32_t next = 0;
      auto add = [&](std::int32_t count, v2::Permission permission) {
        for (std::int32_t i = 0; i < count; ++i) {
          v2::MessageQueue& q = *out.add_message_queues();
          *q.mutable_topic() = request.topic();
          q.set_id(next++);
          q.set_permission(permission);
          q.mutable_broker()->set_name(qd.broker_name);
          q.mutable_broker()->set_id(static_cast<std::int32_t>(id));
          *q.mutable_broker()->mutable_endpoints() = endpoints;
          add_types(q, type);
        }
      };
      add(r, v2::READ);
      add(w, v2::WRITE);
      add(rw, v2::READ_WRITE);
      add(none, v2::NONE);
    }
  }
  *out.mutable_status() = ok_status();
  return out;
}

v2::QueryAssignmentResponse assignment_response(const v2::QueryAssignmentRequest& request,
                                                const remoting::body::TopicRouteData& route, bool fifo,
                                                const RouteOptions& options) {
  v2::QueryAssignmentResponse out;
  const std::optional<v2::Endpoints> endpoints = answer_endpoints(request.endpoints(), options);
  if (!endpoints) {
    *out.mutable_status() = status(v2::BAD_REQUEST, kNoEndpoints);
    return out;
  }
  for (const remoting::body::QueueData& qd : route.queue_datas) {
    if (!perm::is_readable(qd.perm) || qd.read_queue_nums <= 0) continue;
    auto broker = std::find_if(route.broker_datas.begin(), route.broker_datas.end(),
                               [&](const remoting::body::BrokerData& b) { return b.broker_name == qd.broker_name; });
    if (broker == route.broker_datas.end() || !broker->broker_addrs.contains(kMasterId)) continue;
    const v2::Permission permission = perm::is_writeable(qd.perm) ? v2::READ_WRITE : v2::READ;
    const std::int32_t queues = fifo ? qd.read_queue_nums : 1;
    for (std::int32_t i = 0; i < queues; ++i) {
      v2::MessageQueue& q = *out.add_assignments()->mutable_message_queue();
      *q.mutable_topic() = request.topic();
      q.set_id(fifo ? i : -1);
      q.set_permission(permission);
      q.mutable_broker()->set_name(qd.broker_name);
      q.mutable_broker()->set_id(static_cast<std::int32_t>(kMasterId));
      *q.mutable_broker()->mutable_endpoints() = *endpoints;
    }
  }
  if (out.assignments_size() == 0) {
    *out.mutable_status() = status(v2::FORBIDDEN, "no readable queue");
    return out;
  }
  *out.mutable_status() = ok_status();
  return out;
}

}  // namespace ferry::proxy
