#include "client/trace_dispatcher.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "client/producer.h"
#include "common/message_const.h"
#include "common/names.h"

namespace ferry::client {

namespace {

ProducerConfig inner_producer_config(const std::string& group, TraceRole role) {
  ProducerConfig c;
  c.group = fmt::format("_INNER_TRACE_PRODUCER-{}-{}", group, role == TraceRole::produce ? "PRODUCE" : "CONSUME");
  c.send_timeout = TraceDispatcher::kSendTimeout;
  c.max_message_size_bytes = 128'000;  // RocketMQ's trace producer's maxMessageSize
  c.enable_msg_trace = false;
  return c;
}

}  // namespace

std::int32_t trace_msg_type(const Message& msg) {
  if (msg.properties.get(prop::kTransactionPrepared) == std::optional<std::string_view>("true")) return 1;
  Result<std::int32_t> level = msg.delay_level();
  if (level.ok() && *level > 0) return 3;
  return 0;
}

std::optional<TraceContext> sub_before_context(const MessageExt& msg, const std::string& group,
                                               const std::string& request_id, WallMs now_ms) {
  if (msg.properties.get(prop::kTraceSwitch) == std::optional<std::string_view>("false")) return std::nullopt;
  TraceContext c;
  c.type = TraceType::sub_before;
  c.timestamp_ms = now_ms;
  c.region_id = std::string(msg.properties.get(prop::kMsgRegion).value_or(""));
  c.group = group;
  c.request_id = request_id;
  c.bean.topic = msg.topic;
  c.bean.msg_id = std::string(msg.msg_id());
  c.bean.tags = std::string(msg.tags().value_or(""));
  c.bean.keys = std::string(msg.properties.get(prop::kKeys).value_or(""));
  c.bean.body_length = msg.store_size;  // RocketMQ's consume hook writes the record's size
  c.bean.retry_times = msg.reconsume_times;
  return c;
}

TraceContext sub_after_context(const TraceContext& before, bool success, ConsumeReturnType code,
                               std::int32_t cost_ms_per_message, WallMs now_ms) {
  TraceContext c;
  c.type = TraceType::sub_after;
  c.timestamp_ms = now_ms;
  c.region_id = before.region_id;
  c.group = before.group;
  c.request_id = before.request_id;
  c.cost_ms = cost_ms_per_message;
  c.success = success;
  c.context_code = static_cast<std::int32_t>(code);
  c.bean = before.bean;
  return c;
}

std::unique_ptr<TraceDispatcher> start_trace(ClientInstance& ci, const std::string& group, TraceRole role,
                                             const std::string& topic, std::string_view owner) {
  auto trace = std::make_unique<TraceDispatcher>(ci, group, role, topic);
  if (Status s = trace->start(); !s.ok()) {
    ci.runtime().log().warn("{} '{}': message trace off: {}", owner, group, s.error().to_string());
    return nullptr;
  }
  return trace;
}

TraceDispatcher::TraceDispatcher(ClientInstance& ci, std::string group, TraceRole role, std::string topic)
    : ci_(ci),
      group_(std::move(group)),
      topic_(topic.empty() ? std::string(kTraceTopic) : std::move(topic)),
      producer_(std::make_unique<Producer>(ci, inner_producer_config(group_, role))),
      tasks_(ci.runtime()) {}

TraceDispatcher::~TraceDispatcher() {
  *alive_ = false;
  tasks_.destroy_all();
}

Status TraceDispatcher::start() {
  FERRY_TRY(producer_->start());
  running_ = true;
  return {};
}

std::string TraceDispatcher::new_request_id() { return ci_.uniq_ids().next(ci_.runtime().wall_ms()); }

bool TraceDispatcher::append(const TraceContext& ctx) {
  if (!running_ || waiting_ >= kContextsMax) {
    ++stats_.dropped;
    if (auto held = drop_log_.admit(ci_.runtime().now(), running_ ? 0 : 1)) {
      ci_.runtime().log().warn("message trace of '{}': {} context(s) dropped ({} waiting, {}){}", group_, stats_.dropped,
                               waiting_, running_ ? "buffer full" : "shut down", held_back_note(*held));
    }
    return false;
  }
  batch_ += encode_trace_context(ctx);
  (void)batch_keys_.insert(ctx.bean.msg_id);
  for (std::size_t pos = 0; pos < ctx.bean.keys.size();) {  // RocketMQ splits keys on KEY_SEPARATOR
    std::size_t end = ctx.bean.keys.find(' ', pos);
    if (end == std::string::npos) end = ctx.bean.keys.size();
    if (end > pos) (void)batch_keys_.insert(ctx.bean.keys.substr(pos, end - pos));
    pos = end + 1;
  }
  ++batch_contexts_;
  ++waiting_;
  ++stats_.appended;
  if (batch_.size() >= kBatchBytes) {
    send_batch();
  } else if (batch_contexts_ == 1) {
    tasks_.spawn(flush_later(this, batch_number_), "trace-flush");
  }
  return true;
}

Task<void> TraceDispatcher::flush_later(TraceDispatcher* self, std::uint64_t batch) {
  co_await self->ci_.runtime().sleep(kBatchWait);
  if (self->batch_number_ == batch) self->send_batch();
}

void TraceDispatcher::send_batch() {
  ++batch_number_;
  if (batch_contexts_ == 0) return;
  Message msg;
  msg.topic = topic_;
  msg.body.assign(batch_.begin(), batch_.end());
  // Keys holding a space cannot be told apart; RocketMQ joins them the same way.
  std::string keys = fmt::format("{}", fmt::join(batch_keys_, " "));
  msg.set_keys(std::string_view(keys));
  const std::size_t contexts = batch_contexts_;
  batch_.clear();
  batch_keys_.clear();
  batch_contexts_ = 0;
  ++stats_.sends;
  producer_->send_async(std::move(msg), [this, alive = alive_, contexts](Result<SendResult> r) {
    if (!*alive) return;
    waiting_ -= contexts;
    if (r.ok()) {
      stats_.sent_contexts += contexts;
      return;
    }
    ++stats_.failed_sends;
    if (auto held = send_error_log_.admit(ci_.runtime().now(), static_cast<std::int64_t>(r.error().code))) {
      ci_.runtime().log().warn("message trace of '{}': {} context(s) not sent to '{}': {}{}", group_, contexts, topic_,
                               r.error().to_string(), held_back_note(*held));
    }
  });
}

Task<void> TraceDispatcher::shutdown() {
  if (!running_) co_return;
  running_ = false;
  send_batch();
  const MonoTime deadline = ci_.runtime().now() + kFlushWait;
  while (producer_->async_in_flight() > 0 && ci_.runtime().now() < deadline) {
    co_await ci_.runtime().sleep(std::chrono::milliseconds(10));
  }
  if (producer_->async_in_flight() > 0) {
    ci_.runtime().log().warn("message trace of '{}': {} trace send(s) still unanswered at shutdown", group_,
                             producer_->async_in_flight());
  }
  co_await producer_->shutdown();
}

}  // namespace ferry::client
