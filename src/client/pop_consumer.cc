#include "client/pop_consumer.h"

#include <fmt/format.h>

#include <set>

#include "client/client_errors.h"
#include "common/message_decoder.h"
#include "common/names.h"
#include "remoting/body/batch_ack_body.h"
#include "remoting/header/pop_header.h"
#include "remoting/request_code.h"
#include "remoting/response_code.h"

namespace ferry::client {

namespace rc = remoting::request_code;
namespace code = remoting::response_code;

std::string_view name(PopStatus s) {
  switch (s) {
    case PopStatus::FOUND: return "FOUND";
    case PopStatus::NO_NEW_MSG: return "NO_NEW_MSG";
    case PopStatus::POLLING_FULL: return "POLLING_FULL";
  }
  return "?";
}

Result<ReceiptHandle> receipt_handle_of(const MessageExt& m) {
  const std::optional<std::string_view> ck = m.properties.get(kPropertyPopCk);
  if (!ck) return Error(Errc::invalid_argument, fmt::format("message {} has no receipt handle (POP_CK): not received by POP", m.msg_id()));
  return ReceiptHandle::parse(*ck);
}

Status assign_receipt_handles(std::vector<MessageExt>& messages, const std::string& topic, const std::string& broker_name,
                              std::int64_t pop_time, std::int64_t invisible_time, std::int32_t revive_qid,
                              const OffsetInfo& info) {
  for (MessageExt& m : messages) {
    if (!m.properties.get(kPropertyFirstPopTime)) m.properties.set(kPropertyFirstPopTime, std::to_string(pop_time));
    const std::optional<std::string_view> set_by_broker = m.properties.get(kPropertyPopCk);
    PopRetry retry = pop_retry_of(m.topic);
    if (set_by_broker) {
      auto h = ReceiptHandle::parse(*set_by_broker);
      if (!h) return Error(Errc::corrupt, h.error().detail);
      retry = h->retry;
    } else {
      const std::string key = OffsetInfo::queue_key(retry, m.queue_id.value());
      auto start = info.start_offsets.find(key);
      if (start == info.start_offsets.end()) {
        return Error(Errc::corrupt, fmt::format("POP reply: no startOffsetInfo entry for {} (message at queue {} offset {})",
                                                key, m.queue_id.value(), m.queue_offset.value()));
      }
      const ReceiptHandle h{.ck_offset = start->second, .pop_time = pop_time, .invisible_time = invisible_time,
                            .revive_qid = revive_qid, .retry = retry, .broker_name = broker_name,
                            .queue_id = m.queue_id.value(), .queue_offset = m.queue_offset.value()};
      m.properties.set(kPropertyPopCk, h.encode());
    }
    if (revive_qid == kPopOrderReviveQueue) {
      auto per = info.order_counts.find(OffsetInfo::offset_key(retry, m.queue_id.value(), m.queue_offset.value()));
      auto per_queue = info.order_counts.find(OffsetInfo::queue_key(retry, m.queue_id.value()));
      const std::int32_t count = per != info.order_counts.end() ? per->second
                                 : per_queue != info.order_counts.end() ? per_queue->second : 0;
      if (count > 0) m.reconsume_times = count;
    }
    m.topic = topic;
  }
  return Status();
}

Status PopConsumer::subscribe(const std::string& topic, MessageSelector selector) {
  FERRY_TRY(validate_topic(topic));
  auto data = subscription_data(topic, selector, 0);  // compiles the expression
  if (!data) return std::move(data).error();
  Result<TagSubscription> tags = selector.type == ExpressionType::tag ? parse_tag_expression(selector.expression)
                                                                      : parse_tag_expression(kSubscribeAll);
  if (!tags) return std::move(tags).error();
  auto [it, fresh] = subscriptions_.insert_or_assign(topic, Subscription{std::move(selector), std::move(*tags)});
  if (fresh) ci_.watch_topic(topic);  // the route polls follow its brokers (a new master after a failover)
  return Status();
}

Status PopConsumer::unsubscribe(const std::string& topic) {
  if (subscriptions_.erase(topic) == 0) return Error(Errc::invalid_argument, fmt::format("not subscribed to '{}'", topic));
  ci_.unwatch_topic(topic);
  return Status();
}

Task<Result<std::string>> PopConsumer::master_of(const std::string& topic, const std::string& broker_name) {
  std::optional<std::string> addr = ci_.master_address(broker_name);
  if (!addr) {
    Status s = co_await ci_.update_topic_route(topic);
    (void)s;  // judged by the look-up below
    addr = ci_.master_address(broker_name);
  }
  if (!addr) co_return Error(Errc::not_found, fmt::format("POP: no master address for broker '{}'", broker_name));
  co_return *addr;
}

Task<Result<PopResult>> PopConsumer::receive(std::string topic) {
  Task<Result<PopResult>> r = receive(std::move(topic), config_.max_messages, config_.invisible_time);
  co_return co_await std::move(r);
}

Task<Result<PopResult>> PopConsumer::receive(std::string topic, std::int32_t max_messages, Duration invisible_time) {
  auto sub = subscriptions_.find(topic);
  if (sub == subscriptions_.end()) {
    co_return Error(Errc::invalid_argument, fmt::format("receive: not subscribed to '{}'", topic));
  }
  const Subscription subscription = sub->second;  // subscriptions_ may change while this waits
  if (max_messages <= 0 || max_messages > kPopBatchMax || invisible_time <= Duration::zero()) {
    co_return Error(Errc::invalid_argument,
                    fmt::format("receive: {} messages (1..{}) invisible for {} ms (> 0)", max_messages, kPopBatchMax,
                                to_ms(invisible_time)));
  }
  std::vector<MessageQueue> queues = ci_.subscribe_queues(topic);
  if (queues.empty()) {
    Status s = co_await ci_.update_topic_route(topic);
    if (!s.ok()) co_return with_context(fmt::format("receive from '{}'", topic), s.error());
    queues = ci_.subscribe_queues(topic);
  }
  std::vector<std::string> brokers;
  for (const MessageQueue& q : queues) {
    if (brokers.empty() || brokers.back() != q.broker_name) brokers.push_back(q.broker_name);
  }
  std::sort(brokers.begin(), brokers.end());
  brokers.erase(std::unique(brokers.begin(), brokers.end()), brokers.end());
  if (brokers.empty()) co_return Error(Errc::not_found, fmt::format("receive: topic '{}' has no readable queue", topic));
  const std::string broker = brokers[next_broker_[topic]++ % brokers.size()];
  Task<Result<PopResult>> popping = pop_from(std::move(topic), broker, subscription, max_messages, invisible_time, config_.poll_time);
  co_return co_await std::move(popping);
}

Task<Result<PopResult>> PopConsumer::receive_from(std::string topic, std::string broker, std::int32_t max_messages,
                                                  Duration invisible_time, Duration poll_time) {
  auto sub = subscriptions_.find(topic);
  if (sub == subscriptions_.end()) {
    co_return Error(Errc::invalid_argument, fmt::format("receive: not subscribed to '{}'", topic));
  }
  const Subscription subscription = sub->second;
  if (max_messages <= 0 || max_messages > kPopBatchMax || invisible_time <= Duration::zero() || poll_time < Duration::zero()) {
    co_return Error(Errc::invalid_argument,
                    fmt::format("receive: {} messages (1..{}) invisible for {} ms (> 0), polling {} ms (>= 0)", max_messages,
                                kPopBatchMax, to_ms(invisible_time), to_ms(poll_time)));
  }
  if (ci_.subscribe_queues(topic).empty()) {
    Status s = co_await ci_.update_topic_route(topic);
    if (!s.ok()) co_return with_context(fmt::format("receive from '{}'", topic), s.error());
  }
  Task<Result<PopResult>> popping = pop_from(std::move(topic), std::move(broker), subscription, max_messages, invisible_time, poll_time);
  co_return co_await std::move(popping);
}

Task<Result<PopResult>> PopConsumer::pop_from(std::string topic, std::string broker, Subscription subscription,
                                              std::int32_t max_messages, Duration invisible_time, Duration poll_time) {
  Result<std::string> addr = co_await master_of(topic, broker);
  if (!addr) co_return std::move(addr).error();

  remoting::PopMessageRequestHeader h;
  h.consumer_group = config_.group;
  h.topic = topic;
  h.queue_id = -1;
  h.max_msg_nums = max_messages;
  h.invisible_time = to_ms(invisible_time);
  h.poll_time = to_ms(poll_time);
  h.born_time = ci_.runtime().wall_ms();
  h.init_mode = config_.from_first ? remoting::kPopInitModeMin : remoting::kPopInitModeMax;
  h.exp_type = std::string(expression_type_name(subscription.selector.type));
  h.exp = subscription.selector.expression;
  if (config_.fifo) h.order = true;
  remoting::RemotingCommand req = remoting::make_request(rc::POP_MESSAGE, 0);
  req.ext_fields = h.to_fields();
  const std::string where = broker_where(broker, *addr);
  const MonoTime sent_at = ci_.runtime().now();
  Result<remoting::RemotingCommand> reply =
      co_await ci_.rpc().invoke(*addr, std::move(req), poll_time + std::chrono::seconds(10));
  if (!reply.ok()) {
    // The master may be gone (a failover names another): the next receive asks with a fresh route.
    Status refreshed = co_await ci_.update_topic_route(topic);
    (void)refreshed;  // a NameServer that does not answer leaves the old route, which the polls retry
    co_return with_context(fmt::format("POP from {}", where), std::move(reply).error());
  }

  PopResult out;
  out.broker_name = broker;
  out.sent_at = sent_at;
  switch (reply->code) {
    case code::SUCCESS: out.status = PopStatus::FOUND; break;
    case code::POLLING_TIMEOUT:
    case code::PULL_NOT_FOUND: out.status = PopStatus::NO_NEW_MSG; co_return out;
    case code::POLLING_FULL: out.status = PopStatus::POLLING_FULL; co_return out;
    default: co_return reply_error(where, rc::POP_MESSAGE, *reply);
  }
  auto rh = remoting::PopMessageResponseHeader::from_fields(reply->ext_fields);
  if (!rh.ok()) co_return Error(Errc::corrupt, fmt::format("{} sent a malformed POP reply: {}", where, rh.error().detail));
  out.pop_time = rh->pop_time;
  out.invisible_time = rh->invisible_time;
  out.rest = rh->rest_num;
  auto info = OffsetInfo::parse(rh->start_offset_info.value_or(""), rh->msg_offset_info.value_or(""),
                                rh->order_count_info.value_or(""));
  if (!info.ok()) co_return with_context(fmt::format("POP reply from {}", where), std::move(info).error());
  Result<std::vector<MessageExt>> msgs = decode_messages(Bytes(reply->body.data(), reply->body.size()), MessagesDecodeOptions{});
  if (!msgs.ok()) co_return with_context(fmt::format("POP reply from {}", where), std::move(msgs).error());
  Status assigned = assign_receipt_handles(*msgs, topic, broker, rh->pop_time, rh->invisible_time, rh->revive_qid, *info);
  if (!assigned.ok()) co_return with_context(fmt::format("POP reply from {}", where), assigned.error());
  std::vector<MessageExt> unwanted;
  for (MessageExt& m : *msgs) {
    if (subscription.tags.matches_tag(m.tags())) {
      out.messages.push_back(std::move(m));
    } else {
      unwanted.push_back(std::move(m));  // a tag-hash collision at the broker: not ours
    }
  }
  if (!unwanted.empty()) {
    Task<Status> dropped = ack_all(unwanted);
    Status d = co_await std::move(dropped);
    if (!d.ok()) {
      if (auto held = unwanted_ack_log_.admit(ci_.runtime().now(), static_cast<std::int64_t>(d.error().code))) {
        ci_.runtime().log().warn("POP: acknowledging {} message(s) of other tags failed: {}{}", unwanted.size(),
                                 d.error().to_string(), held_back_note(*held));
      }
    }
  }
  if (out.messages.empty()) out.status = PopStatus::NO_NEW_MSG;
  received_ += out.messages.size();
  co_return out;
}

Task<Result<remoting::RemotingCommand>> PopConsumer::call_on_handle(const MessageExt& m, const ReceiptHandle& h,
                                                                    std::int32_t request, std::int64_t invisible_ms) {
  Result<std::string> addr = co_await master_of(m.topic, h.broker_name);
  if (!addr) co_return std::move(addr).error();
  remoting::AckMessageRequestHeader a;
  a.consumer_group = config_.group;
  a.topic = pop_real_topic(m.topic, config_.group, h.retry);
  a.queue_id = QueueId(h.queue_id);
  a.extra_info = h.encode();
  a.offset = QueueOffset(h.queue_offset);
  remoting::RemotingCommand req = remoting::make_request(request, 0);
  req.ext_fields = request == rc::ACK_MESSAGE
                       ? a.to_fields()
                       : remoting::ChangeInvisibleTimeRequestHeader{a.consumer_group, a.topic, a.queue_id, a.extra_info,
                                                                    a.offset, invisible_ms}
                             .to_fields();
  const std::string where = broker_where(h.broker_name, *addr);
  Result<remoting::RemotingCommand> reply = co_await ci_.rpc().invoke(*addr, std::move(req), config_.request_timeout);
  if (!reply.ok()) {
    co_return with_context(fmt::format("{} to {}", rc::name(request), where), std::move(reply).error());
  }
  if (reply->code != code::SUCCESS) co_return reply_error(where, request, *reply);
  co_return std::move(*reply);
}

Task<Status> PopConsumer::ack(const MessageExt& m) {
  auto h = receipt_handle_of(m);
  if (!h) co_return std::move(h).error();
  Task<Result<remoting::RemotingCommand>> call = call_on_handle(m, *h, rc::ACK_MESSAGE, 0);
  Result<remoting::RemotingCommand> reply = co_await std::move(call);
  if (!reply) co_return std::move(reply).error();
  ++acked_;
  co_return Status();
}

Task<Status> PopConsumer::ack_all(const std::vector<MessageExt>& messages) {
  // One BatchAck per checkpoint (retry flag, queue, ckOffset, pop time), one request per broker.
  std::map<std::string, remoting::body::BatchAckMessageRequestBody> by_broker;
  std::map<std::string, std::map<std::tuple<char, std::int32_t, std::int64_t, std::int64_t>, std::size_t>> index;
  std::map<std::string, std::string> topic_of_broker;
  for (const MessageExt& m : messages) {
    auto h = receipt_handle_of(m);
    if (!h) co_return std::move(h).error();
    remoting::body::BatchAckMessageRequestBody& body = by_broker[h->broker_name];
    body.broker_name = h->broker_name;
    topic_of_broker.emplace(h->broker_name, m.topic);
    const auto key = std::make_tuple(static_cast<char>(h->retry), h->queue_id, h->ck_offset, h->pop_time);
    auto [it, fresh] = index[h->broker_name].emplace(key, body.acks.size());
    if (fresh) {
      body.acks.push_back(remoting::body::BatchAck{.consumer_group = config_.group, .topic = m.topic, .retry = h->retry,
                                                   .start_offset = h->ck_offset, .queue_id = h->queue_id,
                                                   .revive_qid = h->revive_qid, .pop_time = h->pop_time,
                                                   .invisible_time = h->invisible_time, .offsets = {}});
    }
    body.acks[it->second].offsets.push_back(h->queue_offset);
  }
  for (auto& [broker, body] : by_broker) {
    Result<std::string> addr = co_await master_of(topic_of_broker[broker], broker);
    if (!addr) co_return std::move(addr).error();
    remoting::RemotingCommand req = remoting::make_request(rc::BATCH_ACK_MESSAGE, 0);
    req.body = body.encode();
    const std::string where = broker_where(broker, *addr);
    Result<remoting::RemotingCommand> reply = co_await ci_.rpc().invoke(*addr, std::move(req), config_.request_timeout);
    if (!reply.ok()) co_return with_context(fmt::format("batch ack to {}", where), std::move(reply).error());
    if (reply->code != code::SUCCESS) co_return reply_error(where, rc::BATCH_ACK_MESSAGE, *reply);
    for (const auto& a : body.acks) acked_ += a.offsets.size();
  }
  co_return Status();
}

Task<Status> PopConsumer::change_invisible_time(MessageExt& m, Duration invisible_time) {
  auto h = receipt_handle_of(m);
  if (!h) co_return std::move(h).error();
  Task<Result<remoting::RemotingCommand>> call = call_on_handle(m, *h, rc::CHANGE_MESSAGE_INVISIBLETIME, to_ms(invisible_time));
  Result<remoting::RemotingCommand> reply = co_await std::move(call);
  if (!reply) co_return std::move(reply).error();
  auto rh = remoting::ChangeInvisibleTimeResponseHeader::from_fields(reply->ext_fields);
  if (!rh.ok()) {
    co_return Error(Errc::corrupt, fmt::format("broker '{}' sent a malformed reply: {}", h->broker_name, rh.error().detail));
  }
  m.properties.set(kPropertyPopCk, h->after_change(rh->pop_time, rh->invisible_time, rh->revive_qid).encode());
  co_return Status();
}

}  // namespace ferry::client
