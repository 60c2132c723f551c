#include "proxy/messaging_core.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <set>

#include "client/client_errors.h"
#include "client/consumer_calls.h"
#include "common/message_const.h"
#include "common/message_decoder.h"
#include "common/msg_id.h"
#include "common/sys_flag.h"
#include "remoting/body/body_json.h"
#include "remoting/body/subscription_group_config.h"
#include "remoting/header/topic_admin_header.h"
#include "remoting/header/transaction_header.h"
#include "remoting/request_code.h"
#include "common/names.h"
#include "common/pop_receipt.h"
#include "proxy/v2_answers.h"
#include "proxy/v2_receive.h"
#include "proxy/v2_status.h"

namespace ferry::proxy {

MessagingCore::MessagingCore(Runtime& rt, client::ClientInstance& instance, ProxyConfig config)
    : rt_(rt), ci_(instance), config_(std::move(config)), settings_(config_.clients_max, config_.send.max_body_bytes) {
  client::ProducerConfig pc;
  pc.group = config_.producer_group;
  producer_ = std::make_unique<client::Producer>(ci_, pc);
}

MessagingCore::~MessagingCore() {
  for (const std::string& group : transaction_groups_) ci_.set_transaction_check_handler(group, {});
}

Status MessagingCore::start() { return producer_->start(); }

Task<void> MessagingCore::shutdown() {
  for (const std::string& group : transaction_groups_) ci_.set_transaction_check_handler(group, {});
  sink_ = nullptr;
  Task<void> stopping = producer_->shutdown();
  co_await std::move(stopping);
}

Task<std::optional<Refusal>> MessagingCore::find_route(std::string topic) {
  if (Status s = validate_topic(topic); !s.ok()) co_return Refusal{v2::ILLEGAL_TOPIC, s.error().detail};
  if (is_system_topic(topic)) co_return Refusal{v2::ILLEGAL_TOPIC, fmt::format("cannot access system topic: {}", topic)};
  if (auto found = route_found_at_.find(topic);
      found != route_found_at_.end() && rt_.now() - found->second < config_.route_refresh && ci_.route(topic)) {
    co_return std::nullopt;
  }
  Task<Status> updating = ci_.update_topic_route(topic);
  const Status updated = co_await std::move(updating);
  if (updated.ok()) {
    if (route_found_at_.size() >= config_.route_cache_max && !route_found_at_.contains(topic)) route_found_at_.clear();
    route_found_at_[topic] = rt_.now();
  }
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

Task<v2::QueryAssignmentResponse> MessagingCore::query_assignment(v2::QueryAssignmentRequest request) {
  v2::QueryAssignmentResponse out;
  const std::string& group = request.group().name();
  if (Status s = validate_group(group); !s.ok()) {
    *out.mutable_status() = status(v2::ILLEGAL_CONSUMER_GROUP, s.error().detail);
    co_return out;
  }
  Task<std::optional<Refusal>> finding = find_route(request.topic().name());
  std::optional<Refusal> refused = co_await std::move(finding);
  if (refused) {
    *out.mutable_status() = status(refused->code, refused->message);
    co_return out;
  }
  const std::optional<remoting::body::TopicRouteData> route = ci_.route(request.topic().name());
  co_return assignment_response(request, route.value_or(remoting::body::TopicRouteData{}), /*fifo=*/false, config_.route);
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
  Result<client::SendResult> sent = co_await std::move(sending);
  if (sent.ok() && p.type == TopicMessageType::transaction) remember_transaction(p.topic, *sent);
  co_return send_response(sent);
}

void MessagingCore::remember_transaction(const std::string& topic, const client::SendResult& sent) {
  Result<OffsetMsgId> id = decode_offset_msg_id(sent.offset_msg_id);
  if (!id.ok()) {
    if (auto held = transaction_log_.admit(rt_.now(), 1)) {
      rt_.log().warn("proxy: half message {} of {}: no CommitLog offset in '{}'; its END_TRANSACTION cannot be sent{}",
                     sent.msg_id, topic, sent.offset_msg_id, held_back_note(*held));
    }
    return;
  }
  const WallMs now = rt_.wall_ms();
  if (transactions_count_ >= config_.transaction_data_max) {
    // Drop what expired before refusing to remember more.
    for (auto it = transactions_.begin(); it != transactions_.end();) {
      std::vector<TransactionData>& list = it->second;
      const std::size_t before = list.size();
      std::erase_if(list, [now](const TransactionData& d) { return d.expires_at <= now; });
      transactions_count_ -= before - list.size();
      it = list.empty() ? transactions_.erase(it) : std::next(it);
    }
    if (transactions_count_ >= config_.transaction_data_max) {
      if (auto held = transaction_log_.admit(rt_.now(), 2)) {
        rt_.log().warn("proxy: {} transactions remembered already; {} will be resolved by the broker's check{}",
                       transactions_count_, sent.msg_id, held_back_note(*held));
      }
      return;
    }
  }
  remember_transaction(topic, sent.transaction_id.value_or(sent.msg_id),
                       TransactionData{sent.queue.broker_name, "", sent.queue_offset.value(), id->offset.value(),
                                       now + to_ms(config_.transaction_data_expire)});
}

void MessagingCore::remember_transaction(const std::string& topic, const std::string& id, TransactionData data) {
  std::vector<TransactionData>& list = transactions_[{topic, id}];
  if (list.size() >= config_.transaction_data_per_id_max) {
    list.erase(list.begin());
    --transactions_count_;
  }
  list.push_back(std::move(data));
  ++transactions_count_;
}

void MessagingCore::relay_checks_of(const v2::Settings& settings) {
  if (!settings.has_publishing()) return;
  for (const v2::Resource& t : settings.publishing().topics()) {
    const std::string& topic = t.name();
    if (transaction_groups_.contains(topic)) continue;
    if (transaction_groups_.size() >= config_.transaction_groups_max) {
      if (auto held = relay_log_.admit(rt_.now(), -1)) {
        rt_.log().warn("proxy: {} topics relay transaction checks already; {} will not{}", transaction_groups_.size(), topic,
                       held_back_note(*held));
      }
      return;
    }
    if (!validate_topic(topic).ok() || is_system_topic(topic)) continue;
    if (Status s = ci_.register_producer(topic); !s.ok()) {
      if (auto held = relay_log_.admit(rt_.now(), static_cast<std::int64_t>(s.error().code))) {
        rt_.log().warn("proxy: the transaction checks of {} cannot be relayed: {}{}", topic, s.error().to_string(),
                       held_back_note(*held));
      }
      continue;
    }
    ci_.set_transaction_check_handler(topic, [this, topic](remoting::RequestContext ctx) {
      return on_transaction_check(this, topic, std::move(ctx));
    });
    transaction_groups_.insert(topic);
  }
}

Task<void> MessagingCore::on_transaction_check(MessagingCore* self, std::string group, remoting::RequestContext ctx) {
  auto h = remoting::CheckTransactionStateRequestHeader::from_fields(ctx.request.ext_fields);
  auto decoded = decode_messages(Bytes(ctx.request.body.data(), ctx.request.body.size()), MessagesDecodeOptions{});
  if (!h.ok() || !decoded.ok() || decoded->size() != 1) {
    if (auto held = self->check_dropped_log_.admit(self->rt_.now(), 1)) {
      self->rt_.log().warn("proxy: a transaction check for {} that does not decode ({}); dropped{}", group,
                           !h.ok() ? h.error().to_string() : !decoded.ok() ? decoded.error().to_string() : "not one message",
                           held_back_note(*held));
    }
    ++self->checks_dropped_;
    co_return;
  }
  const MessageExt& half = decoded->front();
  const std::string id = h->transaction_id.value_or(std::string(half.uniq_key().value_or(half.offset_msg_id)));
  const WallMs now = self->rt_.wall_ms();
  v2::TelemetryCommand command;
  v2::RecoverOrphanedTransactionCommand& recover = *command.mutable_recover_orphaned_transaction_command();
  recover.set_transaction_id(id);
  *recover.mutable_message() = to_v2_message(half, half.topic, now);
  for (const std::string& client : self->settings_.publishers_of(group)) {
    if (self->sink_ && self->sink_(client, command)) {
      self->remember_transaction(group, id,
                                 TransactionData{h->bname.value_or(""), ctx.channel->peer_text(), h->tran_state_table_offset,
                                                 h->commit_log_offset, now + to_ms(self->config_.transaction_data_expire)});
      ++self->checks_relayed_;
      co_return;
    }
  }
  ++self->checks_dropped_;
  if (auto held = self->check_dropped_log_.admit(self->rt_.now(), 2)) {
    self->rt_.log().info("proxy: no client publishing {} has a Telemetry stream for the check of {}; the broker will ask "
                         "again{}", group, id, held_back_note(*held));
  }
}

}  // namespace ferry::proxy

namespace ferry::proxy {

namespace {

std::int64_t ms_of(const google::protobuf::Duration& d) { return d.seconds() * 1000 + d.nanos() / 1'000'000; }

// The handle's eight broker fields, and its CommitLog offset (the ninth) when present.
struct ClientHandle {
  ReceiptHandle handle;
  std::string commit_log_offset;
};
std::optional<ClientHandle> parse_client_handle(const std::string& text) {
  Result<ReceiptHandle> h = ReceiptHandle::parse(text);
  if (!h.ok()) return std::nullopt;
  ClientHandle out{*h, ""};
  // Fields are separated by one space; the ninth, if any, follows the eighth.
  std::size_t spaces = 0, at = 0;
  for (; at < text.size() && spaces < 8; ++at) {
    if (text[at] == ' ') ++spaces;
  }
  if (spaces == 8) out.commit_log_offset = text.substr(at);
  return out;
}

// A message standing for a handle, for PopConsumer's ack and change (they read its topic and
// POP_CK).
MessageExt handle_message(const std::string& topic, const ReceiptHandle& h) {
  MessageExt m;
  m.topic = topic;
  m.properties.set(kPropertyPopCk, h.encode());
  return m;
}

}  // namespace

client::PopConsumer* MessagingCore::pop_consumer(const std::string& group, bool fifo) {
  auto it = pop_consumers_.find({group, fifo});
  if (it != pop_consumers_.end()) return it->second.get();
  if (pop_consumers_.size() >= config_.pop_groups_max) return nullptr;
  client::PopConsumerConfig pc;
  pc.group = group;
  pc.fifo = fifo;
  pc.request_timeout = std::chrono::seconds(2);  // RocketMQ's proxy gives a broker 2 s for an ack or a change
  pc.from_first = false;                         // initMode MAX, as RocketMQ's proxy pops
  return pop_consumers_.emplace(std::make_pair(group, fifo), std::make_unique<client::PopConsumer>(ci_, pc)).first->second.get();
}

Task<MessagingCore::GroupView> MessagingCore::group_view(std::string group, std::string broker, std::string topic) {
  if (auto seen = group_configs_.find(group);
      seen != group_configs_.end() && rt_.now() - seen->second.at < config_.group_config_refresh) {
    co_return seen->second.view;
  }
  if (broker.empty()) {
    if (std::optional<remoting::body::TopicRouteData> route = ci_.route(topic); route && !route->broker_datas.empty()) {
      broker = route->broker_datas.front().broker_name;
    }
  }
  const std::optional<std::string> addr = broker.empty() ? std::nullopt : ci_.master_address(broker);
  GroupView view;
  if (addr) {
    remoting::GetSubscriptionGroupConfigRequestHeader h;
    h.group = group;
    remoting::RemotingCommand req = remoting::make_request(remoting::request_code::GET_SUBSCRIPTIONGROUP_CONFIG, 0);
    req.ext_fields = h.to_fields();
    Task<Result<remoting::RemotingCommand>> asking = ci_.rpc().invoke(*addr, std::move(req), std::chrono::seconds(2));
    Result<remoting::RemotingCommand> reply = co_await std::move(asking);
    if (reply.ok() && reply->code == 0) {
      auto doc = remoting::body::parse_body(Bytes(reply->body.data(), reply->body.size()), "SubscriptionGroupConfig");
      remoting::json::JsonErrors errors;
      if (doc) {
        const remoting::body::SubscriptionGroupConfig c =
            remoting::body::SubscriptionGroupConfig::read(*doc, "SubscriptionGroupConfig", errors);
        if (!errors.failed()) {
          view.orderly = c.consume_message_orderly;
          view.max_attempts = c.retry_max_times < 0 ? std::numeric_limits<std::int32_t>::max()
                                                    : std::max(1, c.retry_max_times + 1);
        }
      }
    }
  }
  if (group_configs_.size() >= config_.pop_groups_max && !group_configs_.contains(group)) group_configs_.clear();
  group_configs_[group] = GroupConfigSeen{view, rt_.now()};
  co_return view;
}

Task<std::vector<v2::ReceiveMessageResponse>> MessagingCore::receive_message(v2::ReceiveMessageRequest request, CallContext context) {
  const WallMs now = rt_.wall_ms();
  auto refuse = [now](v2::Code code, std::string message) { return receive_responses(status(code, std::move(message)), now); };
  // Polling time.
  Duration polling = request.has_long_polling_timeout()
                         ? Duration(std::chrono::milliseconds(ms_of(request.long_polling_timeout())))
                         : context.remaining.value_or(config_.max_long_polling) - config_.client_request_timeout / 2;
  polling = std::clamp(polling, config_.min_long_polling, config_.max_long_polling);
  if (context.remaining && polling > *context.remaining) {
    if (*context.remaining < config_.min_long_polling) {
      co_return refuse(v2::ILLEGAL_POLLING_TIME,
                       "The deadline time remaining is not enough for polling, please check network condition");
    }
    polling = *context.remaining;
  }
  const std::string& topic = request.message_queue().topic().name();
  const std::string& group = request.group().name();
  if (Status s = validate_topic(topic); !s.ok()) co_return refuse(v2::ILLEGAL_TOPIC, s.error().detail);
  if (is_system_topic(topic)) co_return refuse(v2::ILLEGAL_TOPIC, fmt::format("cannot access system topic: {}", topic));
  if (Status s = validate_group(group); !s.ok()) co_return refuse(v2::ILLEGAL_CONSUMER_GROUP, s.error().detail);
  if (group.rfind("CID_RMQ_SYS_", 0) == 0) co_return refuse(v2::ILLEGAL_CONSUMER_GROUP, fmt::format("cannot use system group: {}", group));
  // Invisible time.
  Duration invisible = config_.default_invisible;
  if (!request.auto_renew()) {
    invisible = std::chrono::milliseconds(request.has_invisible_duration() ? ms_of(request.invisible_duration()) : 0);
    if (invisible < config_.min_invisible) {
      co_return refuse(v2::ILLEGAL_INVISIBLE_TIME, fmt::format("the invisibleTime is too small. min is {}", to_ms(config_.min_invisible)));
    }
    if (invisible > config_.max_invisible) {
      co_return refuse(v2::ILLEGAL_INVISIBLE_TIME, fmt::format("the invisibleTime is too large. max is {}", to_ms(config_.max_invisible)));
    }
  }
  // Filter.
  const v2::FilterExpression& f = request.filter_expression();
  const std::string expression = f.expression().empty() ? "*" : f.expression();
  const client::MessageSelector selector =
      f.type() == v2::SQL ? client::MessageSelector::by_sql(expression) : client::MessageSelector::by_tag(expression);
  // Broker.
  Task<std::optional<Refusal>> finding = find_route(topic);
  if (std::optional<Refusal> r = co_await std::move(finding)) co_return refuse(r->code, r->message);
  std::vector<std::string> brokers;
  for (const MessageQueue& q : ci_.subscribe_queues(topic)) {
    if (std::find(brokers.begin(), brokers.end(), q.broker_name) == brokers.end()) brokers.push_back(q.broker_name);
  }
  std::sort(brokers.begin(), brokers.end());
  if (brokers.empty()) co_return refuse(v2::FORBIDDEN, "no readable queue");
  std::string broker = request.message_queue().broker().name();
  if (broker.empty() || std::find(brokers.begin(), brokers.end(), broker) == brokers.end()) {
    broker = brokers[next_broker_[topic]++ % brokers.size()];
  }
  Task<GroupView> asking = group_view(group, broker, topic);
  const GroupView view = co_await std::move(asking);
  client::PopConsumer* consumer = pop_consumer(group, view.orderly);
  if (consumer == nullptr) co_return refuse(v2::TOO_MANY_REQUESTS, "too many consumer groups on this proxy");
  if (Status s = consumer->subscribe(topic, selector); !s.ok()) co_return refuse(v2::ILLEGAL_FILTER_EXPRESSION, s.error().detail);
  const std::int32_t batch = std::clamp(request.batch_size(), 1, kPopBatchMax);
  Task<Result<client::PopResult>> popping = consumer->receive_from(topic, broker, batch, invisible, polling);
  Result<client::PopResult> popped = co_await std::move(popping);
  const WallMs after = rt_.wall_ms();
  if (!popped.ok()) co_return receive_responses(status_of(popped.error()), after);
  switch (popped->status) {
    case client::PopStatus::NO_NEW_MSG: co_return receive_responses(Received::not_found, {}, after);
    case client::PopStatus::POLLING_FULL: co_return receive_responses(Received::polling_full, {}, after);
    case client::PopStatus::FOUND: break;
  }
  // Past the group's attempts (retryMaxTimes + 1, what its clients' settings say): to
  // %DLQ%{group} with CONSUMER_SEND_MSG_BACK, acknowledged, and not handed out (RocketMQ 5's proxy
  // does this; its brokers do not move FIFO POP messages themselves).
  const std::int32_t max_attempts = view.max_attempts;
  std::vector<v2::Message> messages;
  for (const MessageExt& m : popped->messages) {
    if (m.reconsume_times < max_attempts) {
      messages.push_back(to_v2_message(m, topic, after));
      continue;
    }
    client::SendBackRequest back;
    back.group = group;
    back.broker_name = broker;
    back.delay_level = -1;  // the DLQ
    back.max_reconsume_times = 0;
    back.timeout = std::chrono::seconds(2);
    MessageExt copy = m;
    copy.topic = topic;
    Task<Status> sending = client::send_message_back(ci_, std::move(back), std::move(copy));
    const Status sent = co_await std::move(sending);
    if (!sent.ok()) {
      if (auto held = dlq_log_.admit(rt_.now(), static_cast<std::int64_t>(sent.error().code))) {
        rt_.log().warn("proxy: {} of {} past {} attempts could not go to the DLQ: {}; it stays invisible until it comes "
                       "back{}", m.msg_id(), group, max_attempts, sent.error().to_string(), held_back_note(*held));
      }
      continue;
    }
    Task<Status> acking = consumer->ack(m);
    const Status acked = co_await std::move(acking);
    if (!acked.ok()) {
      if (auto held = dlq_ack_log_.admit(rt_.now(), static_cast<std::int64_t>(acked.error().code))) {
        rt_.log().warn("proxy: {} went to the DLQ of {} but its ack failed: {}{}", m.msg_id(), group,
                       acked.error().to_string(), held_back_note(*held));
      }
    }
    ++dead_lettered_;
  }
  co_return receive_responses(Received::found, std::move(messages), after);
}

Task<v2::AckMessageResponse> MessagingCore::ack_message(v2::AckMessageRequest request) {
  v2::AckMessageResponse out;
  const std::string& topic = request.topic().name();
  const std::string& group = request.group().name();
  auto whole = [&](v2::Code code, std::string message) {
    *out.mutable_status() = status(code, std::move(message));
    return out;
  };
  if (Status s = validate_topic(topic); !s.ok()) co_return whole(v2::ILLEGAL_TOPIC, s.error().detail);
  if (Status s = validate_group(group); !s.ok()) co_return whole(v2::ILLEGAL_CONSUMER_GROUP, s.error().detail);
  client::PopConsumer* consumer = pop_consumer(group);
  if (consumer == nullptr) co_return whole(v2::TOO_MANY_REQUESTS, "too many consumer groups on this proxy");
  std::set<int> codes;
  for (const v2::AckMessageEntry& e : request.entries()) {
    v2::AckMessageResultEntry& r = *out.add_entries();
    r.set_message_id(e.message_id());
    r.set_receipt_handle(e.receipt_handle());
    std::optional<ClientHandle> h = parse_client_handle(e.receipt_handle());
    if (!h) {
      *r.mutable_status() = status(v2::INVALID_RECEIPT_HANDLE, "receipt handle is not valid");
    } else if (h->handle.pop_time + h->handle.invisible_time <= rt_.wall_ms()) {
      *r.mutable_status() = status(v2::INVALID_RECEIPT_HANDLE, "receipt handle is expired");
    } else {
      const MessageExt standing = handle_message(topic, h->handle);  // ack() keeps a reference: it must outlive the task
      Task<Status> acking = consumer->ack(standing);
      const Status acked = co_await std::move(acking);
      if (acked.ok()) {
        *r.mutable_status() = ok_status();
      } else if (client::reply_code_of(acked.error())) {
        *r.mutable_status() = status(v2::INTERNAL_SERVER_ERROR, "ack failed: status is abnormal");
      } else {
        *r.mutable_status() = status_of(acked.error());
      }
    }
    codes.insert(r.status().code());
  }
  if (codes.empty()) co_return whole(v2::INTERNAL_SERVER_ERROR, "ack message result is empty");
  if (codes.size() > 1) co_return whole(v2::MULTIPLE_RESULTS, "MULTIPLE_RESULTS");
  const auto code = static_cast<v2::Code>(*codes.begin());
  co_return whole(code, code == v2::OK ? "OK" : v2::Code_Name(code));
}

Task<v2::ChangeInvisibleDurationResponse> MessagingCore::change_invisible_duration(v2::ChangeInvisibleDurationRequest request) {
  v2::ChangeInvisibleDurationResponse out;
  const std::string& topic = request.topic().name();
  const std::string& group = request.group().name();
  auto answer = [&](v2::Code code, std::string message) {
    *out.mutable_status() = status(code, std::move(message));
    return out;
  };
  if (Status s = validate_topic(topic); !s.ok()) co_return answer(v2::ILLEGAL_TOPIC, s.error().detail);
  if (Status s = validate_group(group); !s.ok()) co_return answer(v2::ILLEGAL_CONSUMER_GROUP, s.error().detail);
  const std::int64_t invisible_ms = ms_of(request.invisible_duration());
  if (invisible_ms < 0 || invisible_ms > to_ms(config_.max_invisible)) {
    co_return answer(v2::ILLEGAL_INVISIBLE_TIME, fmt::format("the invisibleTime must be 0 .. {} ms", to_ms(config_.max_invisible)));
  }
  std::optional<ClientHandle> h = parse_client_handle(request.receipt_handle());
  if (!h) co_return answer(v2::INVALID_RECEIPT_HANDLE, "receipt handle is not valid");
  if (h->handle.pop_time + h->handle.invisible_time <= rt_.wall_ms()) co_return answer(v2::INVALID_RECEIPT_HANDLE, "receipt handle is expired");
  client::PopConsumer* consumer = pop_consumer(group);
  if (consumer == nullptr) co_return answer(v2::TOO_MANY_REQUESTS, "too many consumer groups on this proxy");
  MessageExt m = handle_message(topic, h->handle);
  Task<Status> changing = consumer->change_invisible_time(m, std::chrono::milliseconds(invisible_ms));
  const Status changed = co_await std::move(changing);
  if (!changed.ok()) {
    if (client::reply_code_of(changed.error())) co_return answer(v2::INTERNAL_SERVER_ERROR, "changeInvisibleDuration failed: status is abnormal");
    *out.mutable_status() = status_of(changed.error());
    co_return out;
  }
  std::string handle(*m.properties.get(kPropertyPopCk));
  if (!h->commit_log_offset.empty()) handle += " " + h->commit_log_offset;
  out.set_receipt_handle(handle);
  co_return answer(v2::OK, "OK");
}

Task<v2::ForwardMessageToDeadLetterQueueResponse> MessagingCore::forward_to_dead_letter_queue(
    v2::ForwardMessageToDeadLetterQueueRequest request) {
  v2::ForwardMessageToDeadLetterQueueResponse out;
  const std::string& topic = request.topic().name();
  const std::string& group = request.group().name();
  auto answer = [&](v2::Code code, std::string message) {
    *out.mutable_status() = status(code, std::move(message));
    return out;
  };
  if (Status s = validate_topic(topic); !s.ok()) co_return answer(v2::ILLEGAL_TOPIC, s.error().detail);
  if (Status s = validate_group(group); !s.ok()) co_return answer(v2::ILLEGAL_CONSUMER_GROUP, s.error().detail);
  std::optional<ClientHandle> h = parse_client_handle(request.receipt_handle());
  std::int64_t commit_log_offset = -1;
  if (h) {
    auto [end, ec] = std::from_chars(h->commit_log_offset.data(), h->commit_log_offset.data() + h->commit_log_offset.size(),
                                     commit_log_offset);
    if (ec != std::errc() || end != h->commit_log_offset.data() + h->commit_log_offset.size()) commit_log_offset = -1;
  }
  if (commit_log_offset < 0) co_return answer(v2::INVALID_RECEIPT_HANDLE, "receipt handle has no CommitLog offset");
  MessageExt m;
  m.topic = topic;
  m.physical_offset = PhysicalOffset(commit_log_offset);
  m.properties.set(prop::kUniqKey, request.message_id());
  client::SendBackRequest back;
  back.group = group;
  back.broker_name = h->handle.broker_name;
  back.delay_level = -1;  // the DLQ
  back.max_reconsume_times = request.max_delivery_attempts();
  back.timeout = std::chrono::seconds(2);
  Task<Status> sending = client::send_message_back(ci_, std::move(back), std::move(m));
  const Status sent = co_await std::move(sending);
  if (!sent.ok()) {
    *out.mutable_status() = status_of(sent.error());
    co_return out;
  }
  co_return answer(v2::OK, "OK");
}

std::optional<v2::TelemetryCommand> MessagingCore::telemetry(const v2::TelemetryCommand& command, const CallContext& context) {
  if (!command.has_settings()) return std::nullopt;  // stack traces and verify results answer nothing
  v2::TelemetryCommand out;
  V2Result<v2::Settings> accepted = settings_.accept(context.client_id, command.settings());
  if (const Refusal* r = refusal(accepted)) {
    *out.mutable_status() = status(r->code, r->message);
    return out;
  }
  relay_checks_of(command.settings());
  *out.mutable_status() = ok_status();
  *out.mutable_settings() = std::move(std::get<v2::Settings>(accepted));
  return out;
}

Task<std::optional<v2::TelemetryCommand>> MessagingCore::telemetry_with_group(v2::TelemetryCommand command, CallContext context) {
  std::optional<v2::TelemetryCommand> answer = telemetry(command, context);
  if (answer && answer->has_settings() && answer->settings().has_subscription()) {
    const v2::Subscription& sub = answer->settings().subscription();
    const std::string topic = sub.subscriptions_size() > 0 ? sub.subscriptions(0).topic().name() : std::string();
    if (!topic.empty() && !ci_.route(topic)) {
      Task<std::optional<Refusal>> finding = find_route(topic);
      (void)co_await std::move(finding);
    }
    Task<GroupView> asking = group_view(sub.group().name(), "", topic);
    const GroupView view = co_await std::move(asking);
    answer->mutable_settings()->mutable_subscription()->set_fifo(view.orderly);
    answer->mutable_settings()->mutable_backoff_policy()->set_max_attempts(view.max_attempts);
  }
  co_return answer;
}

v2::HeartbeatResponse MessagingCore::heartbeat(const v2::HeartbeatRequest& request, const CallContext& context) {
  v2::HeartbeatResponse out;
  const v2::Settings* s = settings_.find(context.client_id);
  if (s != nullptr && s->has_subscription()) {
    if (Status v = validate_group(request.group().name()); !v.ok()) {
      *out.mutable_status() = status(v2::ILLEGAL_CONSUMER_GROUP, v.error().detail);
      return out;
    }
  }
  *out.mutable_status() = settings_.heartbeat(context.client_id);
  return out;
}

v2::NotifyClientTerminationResponse MessagingCore::notify_client_termination(const v2::NotifyClientTerminationRequest& request,
                                                                             const CallContext& context) {
  v2::NotifyClientTerminationResponse out;
  if (request.has_group() && !request.group().name().empty()) {
    if (Status v = validate_group(request.group().name()); !v.ok()) {
      *out.mutable_status() = status(v2::ILLEGAL_CONSUMER_GROUP, v.error().detail);
      return out;
    }
  }
  *out.mutable_status() = settings_.terminate(context.client_id);
  return out;
}

Task<v2::EndTransactionResponse> MessagingCore::end_transaction(v2::EndTransactionRequest request) {
  v2::EndTransactionResponse out;
  auto answer = [&](v2::Code code, std::string message) {
    *out.mutable_status() = status(code, std::move(message));
    return out;
  };
  const std::string& topic = request.topic().name();
  if (Status s = validate_topic(topic); !s.ok()) co_return answer(v2::ILLEGAL_TOPIC, s.error().detail);
  if (request.transaction_id().empty()) co_return answer(v2::INVALID_TRANSACTION_ID, "transaction id cannot be empty");
  const std::int32_t verdict = request.resolution() == v2::COMMIT     ? sysflag::kTransactionCommitType
                               : request.resolution() == v2::ROLLBACK ? sysflag::kTransactionRollbackType
                                                                      : 0;
  // The newest unexpired data of the transaction, taken (a second EndTransaction finds none).
  const WallMs now = rt_.wall_ms();
  std::optional<TransactionData> data;
  auto it = transactions_.find({topic, request.transaction_id()});
  if (it != transactions_.end()) {
    std::vector<TransactionData>& list = it->second;
    while (!list.empty() && !data) {
      if (list.back().expires_at > now) data = list.back();
      list.pop_back();
      --transactions_count_;
    }
    if (list.empty()) transactions_.erase(it);
  }
  if (!data) co_return answer(v2::INTERNAL_SERVER_ERROR, "cannot found transaction data");
  const std::optional<std::string> addr = !data->address.empty() ? std::optional<std::string>(data->address)
                                                                  : ci_.master_address(data->broker_name);
  if (!addr) co_return answer(v2::INTERNAL_SERVER_ERROR, fmt::format("no master address for broker {}", data->broker_name));
  remoting::EndTransactionRequestHeader h;
  h.producer_group = topic;
  h.tran_state_table_offset = data->queue_offset;
  h.commit_log_offset = data->commit_log_offset;
  h.commit_or_rollback = verdict;
  h.from_transaction_check = request.source() == v2::SOURCE_SERVER_CHECK;
  h.msg_id = request.message_id();
  h.transaction_id = request.transaction_id();
  remoting::RemotingCommand req = remoting::make_request(remoting::request_code::END_TRANSACTION, 0);
  req.ext_fields = h.to_fields();
  req.remark = "end transaction from proxy";
  Task<Status> sending = ci_.rpc().invoke_oneway(*addr, std::move(req));
  const Status sent = co_await std::move(sending);
  if (!sent.ok()) co_return answer(v2::INTERNAL_SERVER_ERROR, sent.error().to_string());
  co_return answer(v2::OK, "OK");
}

}  // namespace ferry::proxy
