#include "broker/end_transaction_processor.h"

#include <fmt/format.h>

#include "broker/retry_topics.h"
#include "broker/stored_message.h"
#include "broker/timer_send.h"
#include "common/delay_levels.h"
#include "common/message_const.h"
#include "common/names.h"
#include "common/permission.h"
#include "common/properties.h"
#include "common/sys_flag.h"
#include "remoting/header/transaction_header.h"
#include "remoting/response_code.h"

namespace ferry::broker {

namespace {

namespace code = remoting::response_code;

// The op and half topics have one queue each (RocketMQ creates them so, on first use).
constexpr std::int32_t kTransactionTopicQueues = 1;

}  // namespace

EndTransactionProcessor::EndTransactionProcessor(Runtime& rt, const BrokerConfig& config, store::MessageStore& store,
                                                 TopicConfigManager& topics)
    : rt_(rt), config_(config), store_(store), topics_(topics) {}

store::PutResult EndTransactionProcessor::mark_done(const MessageExt& half) {
  (void)ensure_topic(topics_, kTransOpHalfTopic, kTransactionTopicQueues, perm::kReadWrite, 0);
  Message op;
  op.set_tags("d");
  const std::string body = std::to_string(half.queue_offset.value());
  Result<std::string> props = encode_properties(op.properties);
  FERRY_ASSERT(props.ok(), "one TAGS property always encodes: {}", props.ok() ? "" : props.error().detail);
  store::PutRequest req;
  req.topic = kTransOpHalfTopic;
  req.queue_id = half.queue_id;
  req.body = Bytes(reinterpret_cast<const std::uint8_t*>(body.data()), body.size());
  req.properties = *props;
  req.born_timestamp_ms = rt_.clock().wall_ms();
  req.born_host = half.store_host;  // the broker's own address, as the half's store host
  return store_.put_message(req);
}

Task<Reply> EndTransactionProcessor::process(RequestContext ctx) {
  auto h = remoting::EndTransactionRequestHeader::from_fields(ctx.request.ext_fields);
  if (!h) co_return bad_header(ctx.request, h.error());
  if (config_.broker_role == BrokerRole::slave) co_return reply(ctx.request, code::SLAVE_NOT_AVAILABLE);
  const std::int32_t verdict = h->commit_or_rollback;
  if (verdict == sysflag::kTransactionNotType) co_return std::nullopt;  // unknown yet: no answer, as RocketMQ
  if (verdict != sysflag::kTransactionCommitType && verdict != sysflag::kTransactionRollbackType) {
    co_return reply(ctx.request, code::SYSTEM_ERROR, "commitOrRollback field wrong");
  }
  Result<MessageExt> half = look_message(store_, PhysicalOffset(h->commit_log_offset));
  if (!half) co_return reply(ctx.request, code::SYSTEM_ERROR, "Find prepared transaction message failed");
  const std::optional<std::string_view> group = half->properties.get(prop::kProducerGroup);
  if (!group || *group != h->producer_group) co_return reply(ctx.request, code::SYSTEM_ERROR, "The producer group wrong");
  if (half->queue_offset.value() != h->tran_state_table_offset) {
    co_return reply(ctx.request, code::SYSTEM_ERROR, "The transaction state table offset wrong");
  }
  if (half->physical_offset.value() != h->commit_log_offset) {
    co_return reply(ctx.request, code::SYSTEM_ERROR, "The commit log offset wrong");
  }

  if (verdict == sysflag::kTransactionCommitType) {
    const std::optional<std::string_view> real_topic = half->real_topic();
    Result<std::optional<QueueId>> real_queue = half->real_queue_id();
    if (!real_topic || !real_queue.ok() || !real_queue->has_value()) {
      co_return reply(ctx.request, code::SYSTEM_ERROR,
                      fmt::format("the half message at {} has no REAL_TOPIC / REAL_QID", h->commit_log_offset));
    }
    std::string topic(*real_topic);
    QueueId queue = **real_queue;
    Result<std::int32_t> level = half->delay_level();
    if (level.ok() && *level > 0) {  // RocketMQ's store delays a commit-typed record too
      queue = QueueId(std::min(*level, static_cast<std::int32_t>(config_.message_delay_levels.size())) - 1);
      topic = std::string(kScheduleTopic);
    } else {
      // And a timer message waits on the timer topic (RocketMQ 5's store hook on the commit).
      const TimerDecision timer = decide_timer(half->properties, topic, 0, timer_rules(config_),
                                               timer_clock_ ? timer_clock_() : rt_.wall_ms());
      if (const auto* refused = std::get_if<TimerRefusal>(&timer)) co_return reply(ctx.request, refused->code, refused->remark);
      if (const auto* due = std::get_if<TimerDue>(&timer)) {
        if (ensure_topic(topics_, kTimerTopic, 1, perm::kReadWrite, 0) == nullptr) {
          co_return reply(ctx.request, code::SYSTEM_ERROR, fmt::format("topic[{}] not exist", kTimerTopic));
        }
        half->properties.set(prop::kTimerOutMs, std::to_string(due->out_ms));
        topic = std::string(kTimerTopic);
        queue = QueueId(0);
      }
    }
    Result<std::string> props = encode_properties(half->properties);
    if (!props) co_return reply(ctx.request, code::MESSAGE_ILLEGAL, "properties: " + props.error().detail);
    store::PutRequest req = copy_of(*half, topic, queue, *props, half->reconsume_times);
    req.sys_flag = sysflag::with_transaction_type(half->sys_flag, sysflag::kTransactionCommitType);
    req.prepared_transaction_offset = half->physical_offset.value();
    const store::PutResult put = store_.put_message(req);
    switch (put.status) {
      case store::PutStatus::ok:
      case store::PutStatus::flush_disk_timeout:
      case store::PutStatus::flush_slave_timeout:
      case store::PutStatus::slave_not_available:
        break;
      case store::PutStatus::message_illegal:
      case store::PutStatus::properties_size_exceeded:
        co_return reply(ctx.request, code::MESSAGE_ILLEGAL, fmt::format("the message is illegal: {}", put.detail));
      case store::PutStatus::service_not_available:
        co_return reply(ctx.request, code::SERVICE_NOT_AVAILABLE,
                        fmt::format("service not available now: {}", put.detail));
      case store::PutStatus::create_mapped_file_failed:
        co_return reply(ctx.request, code::SYSTEM_ERROR,
                        fmt::format("committing the half message failed: {} {}", store::put_status_name(put.status), put.detail));
    }
  }
  const store::PutResult op = mark_done(*half);
  if (op.status != store::PutStatus::ok && op.status != store::PutStatus::flush_disk_timeout) {
    // The verdict stands (a commit is stored); without its op record the check service asks the
    // producer again, whose answer is the same.
    if (auto held = op_error_log_.admit(rt_.now(), static_cast<std::int64_t>(op.status))) {
      rt_.log().warn("END_TRANSACTION: the op record of the half message at {} was not stored: {} {}{}",
                     h->commit_log_offset, store::put_status_name(op.status), op.detail, held_back_note(*held));
    }
  }
  co_return reply(ctx.request, code::SUCCESS);
}

}  // namespace ferry::broker
