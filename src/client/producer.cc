#include "client/producer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <exception>

#include "client/batch_encoder.h"
#include "client/client_errors.h"
#include "client/message_checks.h"
#include "client/trace_dispatcher.h"
#include "common/message_const.h"
#include "remoting/request_code.h"
#include "remoting/response_code.h"

namespace ferry::client {

namespace code = remoting::response_code;

namespace {

// Broker replies after which RocketMQ tries another broker.
bool retryable_reply(std::optional<std::int32_t> c) {
  return c && (*c == code::TOPIC_NOT_EXIST || *c == code::SERVICE_NOT_AVAILABLE || *c == code::SYSTEM_ERROR ||
               *c == code::NO_PERMISSION);
}

Task<void> deliver(SendCallback cb, Result<SendResult> r) {
  cb(std::move(r));
  co_return;
}

}  // namespace

void ProducerConfig::check() const {
  FERRY_ASSERT(default_topic_queue_nums > 0, "ProducerConfig: default_topic_queue_nums {}", default_topic_queue_nums);
  FERRY_ASSERT(send_timeout > Duration::zero(), "ProducerConfig: send_timeout {} ms", to_ms(send_timeout));
  FERRY_ASSERT(retry_times_when_send_failed >= 0, "ProducerConfig: retry_times_when_send_failed {}", retry_times_when_send_failed);
  FERRY_ASSERT(retry_times_when_send_async_failed >= 0, "ProducerConfig: retry_times_when_send_async_failed {}",
               retry_times_when_send_async_failed);
  FERRY_ASSERT(compress_level >= 0 && compress_level <= 9, "ProducerConfig: compress_level {}", compress_level);
  FERRY_ASSERT(async_sends_in_flight_max > 0, "ProducerConfig: async_sends_in_flight_max 0");
}

Producer::Producer(ClientInstance& instance, ProducerConfig config)
    : ci_(instance), rt_(instance.runtime()), config_(std::move(config)), tasks_(instance.runtime()) {
  config_.check();
  fault_.enabled = config_.send_latency_fault_enable;
}

Producer::~Producer() { tasks_.destroy_all(); }

Status Producer::start() {
  if (started_) return {};
  FERRY_TRY(ci_.register_producer(config_.group));
  // As RocketMQ's producer: createTopicKey (TBW102) is a topic in use from the start, so the
  // route polls find every broker that auto-creates topics and the heartbeats reach them before
  // the first send — how a restarted transaction producer hears the checks of the half messages
  // its group left.
  (void)ci_.publish_info(config_.create_topic_key);
  if (config_.enable_msg_trace && !trace_) {
    trace_ = start_trace(ci_, config_.group, TraceRole::produce, config_.trace_topic, "producer");
  }
  started_ = true;
  ci_.start();
  return {};
}

Task<void> Producer::shutdown() {
  if (shut_down_ || !started_) {
    shut_down_ = true;
    co_return;
  }
  shut_down_ = true;
  if (trace_) co_await trace_->shutdown();
  co_await ci_.unregister_producer(config_.group);
}

Status Producer::check_running() const {
  if (!started_) return Error(Errc::closed, fmt::format("producer '{}' is not started", config_.group));
  if (shut_down_ || !ci_.running()) return Error(Errc::closed, fmt::format("producer '{}' is shut down", config_.group));
  return {};
}

Result<PreparedMessage> Producer::prepare(Message& msg, bool batch, bool take_body) {
  if (!batch) FERRY_TRY(check_message(msg, config_.max_message_size_bytes));
  if (!msg.uniq_key()) msg.set_uniq_key(ci_.uniq_ids().next(rt_.wall_ms()));
  if (take_body) return prepare_message(std::move(msg), config_, batch);
  return prepare_message(msg, config_, batch);
}

Task<Result<TopicPublishInfo*>> Producer::find_publish_info(std::string topic) {
  std::optional<Error> first;
  if (!ci_.publish_info(topic).ok()) {
    Status s = co_await ci_.update_topic_route(topic);
    if (!s.ok()) first = std::move(s).error();
  }
  TopicPublishInfo* info = &ci_.publish_info(topic);
  if (info->ok()) co_return info;
  if (ci_.route(topic)) {
    co_return Error(Errc::not_found, fmt::format("topic '{}' has no writable queue on a broker with a master", topic));
  }
  // Unknown topic: send with the default topic's route; the broker creates the topic.
  Status d = co_await ci_.update_topic_route_from_default(topic, config_.create_topic_key, config_.default_topic_queue_nums);
  info = &ci_.publish_info(topic);
  if (info->ok()) co_return info;
  co_return Error(first ? first->code : Errc::not_found,
                  fmt::format("no route for topic '{}' (NameServers {}): {}; default topic '{}': {}", topic,
                              fmt::join(ci_.name_servers().addrs(), ";"), first ? first->detail : "no queues",
                              config_.create_topic_key, d.ok() ? "no writable queue" : d.error().detail));
}

Task<Producer::Outcome> Producer::attempt(const PreparedMessage& m, MessageQueue mq, Mode mode, Duration timeout) {
  ++attempts_;
  const WallMs began_ms = rt_.wall_ms();
  const std::string broker = mq.broker_name;
  Task<Outcome> t = attempt_once(m, std::move(mq), mode, timeout);
  Outcome o = co_await std::move(t);
  if (!o.result.ok()) ++failed_attempts_;
  if (trace_ && mode != Mode::oneway && o.result.ok()) trace_pub(m, *o.result, broker, began_ms);
  co_return o;
}

// RocketMQ's SendMessageTraceHookImpl: a stored send whose broker answered a region and
// TRACE_ON=true; never a send to the trace topic itself.
void Producer::trace_pub(const PreparedMessage& m, const SendResult& r, const std::string& broker, WallMs began_ms) {
  if (!r.region_id || !r.trace_on || m.topic.starts_with(trace_->topic())) return;
  TraceContext c;
  c.type = TraceType::pub;
  c.timestamp_ms = began_ms;
  c.region_id = *r.region_id;
  c.group = config_.group;
  c.cost_ms = static_cast<std::int32_t>(rt_.wall_ms() - began_ms);
  c.success = r.status == SendStatus::SEND_OK;
  c.bean.topic = m.topic;
  c.bean.msg_id = r.msg_id;
  c.bean.offset_msg_id = r.offset_msg_id;
  c.bean.tags = m.trace_tags;
  c.bean.keys = m.trace_keys;
  c.bean.store_host = ci_.master_address(broker).value_or("");
  c.bean.body_length = static_cast<std::int32_t>(m.body->size());
  c.bean.msg_type = m.trace_msg_type;
  (void)trace_->append(c);
}

Task<Producer::Outcome> Producer::attempt_once(const PreparedMessage& m, MessageQueue mq, Mode mode, Duration timeout) {
  std::optional<std::string> addr = ci_.master_address(mq.broker_name);
  if (!addr) {
    Status s = co_await ci_.update_topic_route(m.topic);
    (void)s;  // judged by the look-up below
    addr = ci_.master_address(mq.broker_name);
  }
  if (!addr) {
    co_return Outcome{Error(Errc::not_found, fmt::format("broker '{}' has no master address", mq.broker_name)), true};
  }
  remoting::RemotingCommand req = build_send_request(m, mq, config_, rt_.wall_ms());
  const std::int32_t request_code = req.code;
  if (mode == Mode::oneway) {
    Status s = co_await ci_.rpc().invoke_oneway(*addr, std::move(req));
    if (!s.ok()) co_return Outcome{with_context(broker_where(mq.broker_name, *addr), std::move(s).error()), true};
    SendResult r;
    r.msg_id = m.msg_id;
    r.queue = mq;
    co_return Outcome{std::move(r), false};
  }
  Result<remoting::RemotingCommand> reply =
      co_await ci_.rpc().invoke(*addr, std::move(req), timeout, remoting::RpcPeer::ReplyFields::raw);
  if (!reply.ok()) co_return Outcome{with_context(broker_where(mq.broker_name, *addr), std::move(reply).error()), true};
  Result<SendResult> r = parse_send_reply(*reply, m, mq, *addr, request_code);
  const bool retry = !r.ok() && retryable_reply(reply_code_of(r.error()));
  co_return Outcome{std::move(r), retry};
}

Task<Result<SendResult>> Producer::send_default(PreparedMessage m, Mode mode) {
  FERRY_CO_TRY(check_running());
  const MonoTime begin_first = rt_.now();
  Task<Result<TopicPublishInfo*>> find = find_publish_info(m.topic);
  Result<TopicPublishInfo*> found = co_await std::move(find);
  if (!found.ok()) co_return with_context(fmt::format("send to topic '{}'", m.topic), std::move(found).error());

  const std::int32_t times_total =
      1 + (mode == Mode::sync ? config_.retry_times_when_send_failed
                              : mode == Mode::async ? config_.retry_times_when_send_async_failed : 0);
  std::optional<std::string> last_broker;
  std::vector<std::string> brokers_sent;
  std::optional<Error> last_error;
  std::optional<SendResult> not_stored_ok;
  bool timed_out = false;
  std::int32_t times = 0;
  for (; times < times_total; ++times) {
    TopicPublishInfo& info = ci_.publish_info(m.topic);
    if (!info.ok()) break;  // the route vanished meanwhile
    const MessageQueue mq = fault_.select(info, last_broker, rt_.now());
    const Duration cost = rt_.now() - begin_first;
    if (cost >= config_.send_timeout) {
      timed_out = true;
      break;
    }
    last_broker = mq.broker_name;
    const MonoTime begin = rt_.now();
    Task<Outcome> t = attempt(m, mq, mode, config_.send_timeout - cost);
    Outcome o = co_await std::move(t);
    const std::int64_t latency_ms = to_ms(rt_.now() - begin);
    fault_.update(mq.broker_name, latency_ms, !o.result.ok(), rt_.now());
    if (o.result.ok()) {
      if (mode == Mode::sync && o.result->status != SendStatus::SEND_OK && config_.retry_another_broker_when_not_store_ok) {
        not_stored_ok = *o.result;
        brokers_sent.push_back(mq.broker_name);
        continue;
      }
      co_return std::move(o.result);
    }
    brokers_sent.push_back(mq.broker_name);  // kept for the error texts below; a success needs none
    if (auto held = attempt_error_log_.admit(rt_.now(), static_cast<std::int64_t>(o.result.error().code))) {
      rt_.log().info("send to topic '{}' attempt {} on '{}' failed: {}{}", m.topic, times + 1, mq.broker_name,
                     o.result.error().detail, held_back_note(*held));
    }
    last_error = std::move(o.result).error();
    if (!o.retryable) {
      ++times;
      break;
    }
  }
  if (not_stored_ok) co_return *not_stored_ok;
  const std::int64_t cost_ms = to_ms(rt_.now() - begin_first);
  if (timed_out) {
    co_return Error(Errc::timed_out, fmt::format("send to topic '{}' timed out after {} attempt(s) in {} ms (brokers tried: {}){}{}",
                                                 m.topic, times, cost_ms, fmt::join(brokers_sent, ", "),
                                                 last_error ? "; last error: " : "", last_error ? last_error->detail : ""));
  }
  if (!last_error) co_return Error(Errc::not_found, fmt::format("send to topic '{}': the topic has no writable queue any more", m.topic));
  co_return Error(last_error->code, fmt::format("send to topic '{}' failed after {} attempt(s) in {} ms (brokers tried: {}): {}",
                                                m.topic, times, cost_ms, fmt::join(brokers_sent, ", "), last_error->detail));
}

Task<Result<SendResult>> Producer::send(Message msg) {
  Result<PreparedMessage> p = prepare(msg, false, true);
  if (!p.ok()) co_return std::move(p).error();
  Task<Result<SendResult>> t = send_default(std::move(*p), Mode::sync);
  co_return co_await std::move(t);
}

Task<Status> Producer::send_oneway(Message msg) {
  Result<PreparedMessage> p = prepare(msg, false, true);
  if (!p.ok()) co_return std::move(p).error();
  Task<Result<SendResult>> t = send_default(std::move(*p), Mode::oneway);
  Result<SendResult> r = co_await std::move(t);
  if (!r.ok()) co_return std::move(r).error();
  co_return Status{};
}

Task<Result<SendResult>> Producer::send(Message msg, QueueSelector selector) {
  Task<Result<SendResult>> t = send_selected(std::move(msg), std::move(selector), std::nullopt);
  co_return co_await std::move(t);
}

Task<Result<SendResult>> Producer::send_to(Message msg, MessageQueue mq) {
  Task<Result<SendResult>> t = send_selected(std::move(msg), QueueSelector(), std::move(mq));
  co_return co_await std::move(t);
}

Task<Result<SendResult>> Producer::send_selected(Message msg, QueueSelector selector, std::optional<MessageQueue> fixed) {
  FERRY_CO_TRY(check_running());
  Result<PreparedMessage> p = prepare(msg, false, false);  // the selector reads msg
  if (!p.ok()) co_return std::move(p).error();
  const MonoTime begin = rt_.now();
  Task<Result<TopicPublishInfo*>> find = find_publish_info(msg.topic);
  Result<TopicPublishInfo*> found = co_await std::move(find);
  if (!found.ok()) co_return with_context(fmt::format("send to topic '{}'", msg.topic), std::move(found).error());
  MessageQueue mq;
  if (fixed) {
    mq = *fixed;
  } else {
    const std::vector<MessageQueue> queues = (*found)->queues();
    const std::size_t i = selector(queues, msg, rt_.random());
    if (i >= queues.size()) {
      co_return Error(Errc::invalid_argument, fmt::format("send to topic '{}': the queue selector chose index {} of {} queues",
                                                          msg.topic, i, queues.size()));
    }
    mq = queues[i];
  }
  const Duration cost = rt_.now() - begin;
  if (cost >= config_.send_timeout) {
    co_return Error(Errc::timed_out, fmt::format("send to topic '{}' timed out finding its route ({} ms)", msg.topic, to_ms(cost)));
  }
  const MonoTime attempt_begin = rt_.now();
  Task<Outcome> t = attempt(*p, mq, Mode::sync, config_.send_timeout - cost);
  Outcome o = co_await std::move(t);
  fault_.update(mq.broker_name, to_ms(rt_.now() - attempt_begin), !o.result.ok(), rt_.now());
  if (!o.result.ok()) {
    co_return with_context(fmt::format("send to topic '{}' queue {} of '{}'", msg.topic, mq.queue_id, mq.broker_name),
                           std::move(o.result).error());
  }
  co_return std::move(o.result);
}

void Producer::send_async(Message msg, SendCallback cb) {
  FERRY_ASSERT(static_cast<bool>(cb), "send_async without a callback");
  if (Status s = check_running(); !s.ok()) {
    tasks_.spawn(deliver(std::move(cb), std::move(s).error()), "producer-async-reject");
    return;
  }
  if (async_in_flight_ >= config_.async_sends_in_flight_max) {
    tasks_.spawn(deliver(std::move(cb), Error(Errc::busy, fmt::format("producer '{}': {} async sends in flight already",
                                                                       config_.group, async_in_flight_))),
                 "producer-async-reject");
    return;
  }
  ++async_in_flight_;
  tasks_.spawn(run_async(this, std::move(msg), std::move(cb)), "producer-async-send");
}

Task<void> Producer::run_async(Producer* self, Message msg, SendCallback cb) {
  Result<PreparedMessage> p = self->prepare(msg, false, true);
  std::optional<Result<SendResult>> r;
  if (p.ok()) {
    Task<Result<SendResult>> t = self->send_default(std::move(*p), Mode::async);
    r.emplace(co_await std::move(t));
  } else {
    r.emplace(std::move(p).error());
  }
  --self->async_in_flight_;
  try {
    cb(std::move(*r));
  } catch (const std::exception& e) {
    if (auto held = self->callback_error_log_.admit(self->rt_.now())) {
      self->rt_.log().error("producer '{}': an async send callback threw: {}{}", self->config_.group, e.what(),
                            held_back_note(*held));
    }
  }
}

Task<Result<SendResult>> Producer::send_batch(std::vector<Message> msgs) {
  FERRY_CO_TRY(check_batch(msgs, config_.max_message_size_bytes));
  std::string ids;
  for (Message& m : msgs) {
    if (!m.uniq_key()) m.set_uniq_key(ci_.uniq_ids().next(rt_.wall_ms()));
    if (!ids.empty()) ids += ',';
    ids += *m.uniq_key();
  }
  Result<std::vector<std::uint8_t>> body = encode_batch(msgs);
  if (!body.ok()) co_return std::move(body).error();
  if (body->size() > config_.max_message_size_bytes) {
    co_return Error(Errc::invalid_argument, fmt::format("a batch to '{}' encodes to {} bytes; the most is {}", msgs.front().topic,
                                                        body->size(), config_.max_message_size_bytes));
  }
  Message outer;
  outer.topic = msgs.front().topic;
  outer.body = std::move(*body);
  if (auto wait = msgs.front().properties.get(prop::kWait)) outer.properties.set(prop::kWait, *wait);
  outer.set_uniq_key(ci_.uniq_ids().next(rt_.wall_ms()));
  Result<PreparedMessage> p = prepare_message(std::move(outer), config_, true);
  if (!p.ok()) co_return std::move(p).error();
  p->msg_id = std::move(ids);
  Task<Result<SendResult>> t = send_default(std::move(*p), Mode::sync);
  co_return co_await std::move(t);
}

}  // namespace ferry::client
