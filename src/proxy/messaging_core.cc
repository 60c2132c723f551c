#include "proxy/messaging_core.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/names.h"
#include "proxy/v2_answers.h"
#include "proxy/v2_status.h"

namespace ferry::proxy {

MessagingCore::MessagingCore(Runtime& rt, client::ClientInstance& instance, ProxyConfig config)
    : rt_(rt), ci_(instance), config_(std::move(config)) {
  client::ProducerConfig pc;
  pc.group = config_.producer_group;
  producer_ = std::make_unique<client::Producer>(ci_, pc);
}

Status MessagingCore::start() { return producer_->start(); }

Task<void> MessagingCore::shutdown() {
  Task<void> stopping = producer_->shutdown();
  co_await std::move(stopping);
}

Task<std::optional<Refusal>> MessagingCore::find_route(std::string topic) {
  if (Status s = validate_topic(topic); !s.ok()) co_return Refusal{v2::ILLEGAL_TOPIC, s.error().detail};
  if (is_system_topic(topic)) co_return Refusal{v2::ILLEGAL_TOPIC, fmt::format("cannot access system topic: {}", topic)};
  Task<Status> updating = ci_.update_topic_route(topic);
  const Status updated = co_await std::move(updating);
  if (!updated.ok()) {
    if (updated.error().is(Errc::not_found)) {
      co_return Refusal{v2::TOPIC_NOT_FOUND, fmt::format("No topic route info in name server for the topic: {}", topic)};
    }
    const v2::Status s = status_of(updated.error());
    co_return Refusal{s.code(), s.message()};
  }
  co_return std::nullopt;
}

Task<v2::QueryRouteResponse> MessagingCore::query_route(v2::QueryRouteRequest request) {
  Task<std::optional<Refusal>> finding = find_route(request.topic().name());
  std::optional<Refusal> refused = co_await std::move(finding);
  v2::QueryRouteResponse out;
  if (refused) {
    *out.mutable_status() = status(refused->code, refused->message);
    co_return out;
  }
  const std::optional<remoting::body::TopicRouteData> route = ci_.route(request.topic().name());
  co_return route_response(request, route.value_or(remoting::body::TopicRouteData{}), TopicMessageType::mixed, config_.route);
}

Task<v2::SendMessageResponse> MessagingCore::send_message(v2::SendMessageRequest request, CallContext context) {
  v2::SendMessageResponse out;
  V2Result<PreparedSend> prepared = prepare_send(request, config_.send, rt_.clock().wall_ms(), context.peer);
  if (const Refusal* r = refusal(prepared)) {
    *out.mutable_status() = status(r->code, r->message);
    co_return out;
  }
  PreparedSend& p = std::get<PreparedSend>(prepared);
  if (std::optional<Refusal> r = check_topic_message_type(TopicMessageType::mixed, p.type)) {
    *out.mutable_status() = status(r->code, r->message);
    co_return out;
  }
  Task<std::optional<Refusal>> finding = find_route(p.topic);
  if (std::optional<Refusal> r = co_await std::move(finding)) {
    *out.mutable_status() = status(r->code, r->message);
    co_return out;
  }
  if (p.messages.size() > 1) {
    Task<Result<client::SendResult>> sending = producer_->send_batch(std::move(p.messages));
    co_return send_response(co_await std::move(sending));
  }
  if (p.message_group) {
    // FIFO: the write queues of the masters, by broker name and queue id, one of them by the group.
    std::vector<MessageQueue> queues = ci_.publish_info(p.topic).queues();
    if (queues.empty()) {
      *out.mutable_status() = status(v2::FORBIDDEN, "no writable queue");
      co_return out;
    }
    std::sort(queues.begin(), queues.end(), [](const MessageQueue& a, const MessageQueue& b) {
      return std::tie(a.broker_name, a.queue_id) < std::tie(b.broker_name, b.queue_id);
    });
    const MessageQueue mq = queues[select_fifo_queue(*p.message_group, queues.size())];
    Task<Result<client::SendResult>> sending = producer_->send_to(std::move(p.messages.front()), mq);
    co_return send_response(co_await std::move(sending));
  }
  Task<Result<client::SendResult>> sending = producer_->send(std::move(p.messages.front()));
  co_return send_response(co_await std::move(sending));
}

}  // namespace ferry::proxy
