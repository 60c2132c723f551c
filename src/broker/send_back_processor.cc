#include "broker/send_back_processor.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "broker/retry_topics.h"
#include "broker/stored_message.h"
#include "common/delay_levels.h"
#include "common/message_const.h"
#include "common/names.h"
#include "common/permission.h"
#include "remoting/header/client_header.h"
#include "remoting/response_code.h"

namespace ferry::broker {

namespace code = remoting::response_code;

namespace {
constexpr std::int32_t kTopicSysFlagUnit = 0x1;  // RocketMQ TopicSysFlag.FLAG_UNIT
constexpr std::int64_t kFirstRetryDelayLevel = 3;  // a first send-back with delayLevel 0: 10 s
}  // namespace

RemotingCommand put_failure_reply(const RemotingCommand& request, const store::PutResult& put) {
  using store::PutStatus;
  switch (put.status) {
    case PutStatus::service_not_available:
      return reply(request, code::SERVICE_NOT_AVAILABLE,
                   fmt::format("service not available now (disk full or store stopped): {}", put.detail));
    case PutStatus::message_illegal:
    case PutStatus::properties_size_exceeded:
      return reply(request, code::MESSAGE_ILLEGAL, fmt::format("the message is illegal: {}", put.detail));
    default:
      return reply(request, code::SYSTEM_ERROR,
                   fmt::format("storing failed: {} {}", store::put_status_name(put.status), put.detail));
  }
}

Task<Reply> SendBackProcessor::process(RequestContext ctx) {
  const RemotingCommand& req = ctx.request;
  auto parsed = remoting::ConsumerSendMsgBackRequestHeader::from_fields(req.ext_fields);
  if (!parsed) co_return bad_header(req, parsed.error());
  const remoting::ConsumerSendMsgBackRequestHeader h = std::move(*parsed);
  if (Status v = validate_group(h.group); !v) {
    co_return reply(req, code::SYSTEM_ERROR, "ConsumerSendMsgBackRequestHeader: field group: " + v.error().detail);
  }
  const SubscriptionGroupConfig* group = groups_.find_or_create(h.group);
  if (group == nullptr) {
    co_return reply(req, code::SUBSCRIPTION_GROUP_NOT_EXIST, fmt::format("subscription group not exist, {}", h.group));
  }
  if (config_.broker_role == BrokerRole::slave) {
    co_return reply(req, code::SERVICE_NOT_AVAILABLE, "the broker is a slave; send messages back to its master");
  }
  if (!perm::is_writeable(config_.broker_permission)) {
    co_return reply(req, code::NO_PERMISSION, fmt::format("the broker[{}] sending message is forbidden", config_.broker_name));
  }
  if (group->retry_queue_nums <= 0) co_return reply(req, code::SUCCESS);
  const std::int32_t retry_queue_nums = group->retry_queue_nums;
  std::int32_t max_reconsume = h.max_reconsume_times.value_or(group->retry_max_times);

  auto looked = look_message(store_, h.offset);
  if (!looked) {
    co_return reply(req, code::SYSTEM_ERROR,
                    fmt::format("look message by offset failed, {}: {}", h.offset, looked.error().to_string()));
  }
  MessageExt m = std::move(*looked);
  if (!m.retry_topic()) m.set_retry_topic(m.topic);
  if (!m.origin_message_id() || m.origin_message_id()->empty()) m.set_origin_message_id(m.offset_msg_id);
  (void)m.properties.erase(prop::kDelay);

  const bool dlq = m.reconsume_times >= max_reconsume || h.delay_level < 0;
  std::string topic = dlq ? dlq_topic(h.group) : retry_topic(h.group);
  QueueId queue(0);
  const TopicConfig* tc = nullptr;
  if (dlq) {
    tc = ensure_topic(topics_, topic, kDlqQueueNums, perm::kReadWrite, 0);
  } else {
    queue = QueueId(static_cast<std::int32_t>(rt_.random().below(static_cast<std::uint64_t>(retry_queue_nums))));
    tc = ensure_topic(topics_, topic, retry_queue_nums, perm::kReadWrite, h.unit_mode ? kTopicSysFlagUnit : 0);
  }
  if (tc == nullptr) co_return reply(req, code::SYSTEM_ERROR, fmt::format("topic[{}] not exist", topic));
  if (!perm::is_writeable(tc->perm)) {
    co_return reply(req, code::NO_PERMISSION, fmt::format("the topic[{}] sending message is forbidden", topic));
  }
  if (!dlq && queue.value() >= tc->write_queue_nums) queue = QueueId(0);

  std::string store_topic = topic;
  QueueId store_queue = queue;
  if (!dlq) {
    // delayLevel 0: RocketMQ's 3 + reconsumeTimes. The stored count is whatever a producer's
    // header said (any int32): a negative one delays like a first retry, a huge one stops at the
    // last level (no overflow, and never a level, or a schedule queue, below 1).
    const auto levels = static_cast<std::int32_t>(config_.message_delay_levels.size());
    const std::int32_t level =
        h.delay_level == 0
            ? static_cast<std::int32_t>(std::min<std::int64_t>(kFirstRetryDelayLevel + std::max(0, m.reconsume_times), levels))
            : std::min(h.delay_level, levels);
    m.set_delay_level(level);
    m.set_real_topic(topic);
    m.set_real_queue_id(queue);
    store_topic = std::string(kScheduleTopic);
    store_queue = QueueId(level - 1);
  }
  auto props = encode_properties(m.properties);
  if (!props) co_return reply(req, code::MESSAGE_ILLEGAL, "properties: " + props.error().detail);
  // The copy counts one more consumption; a count already at INT32_MAX stays there.
  const std::int32_t next_reconsume =
      m.reconsume_times == std::numeric_limits<std::int32_t>::max() ? m.reconsume_times : m.reconsume_times + 1;
  const store::PutRequest put_req = copy_of(m, store_topic, store_queue, *props, next_reconsume);
  const store::PutResult put = store_.put_message(put_req);
  if (!put.stored()) co_return put_failure_reply(req, put);
  if (dlq && on_dlq_) {
    const std::string_view origin = h.origin_topic ? std::string_view(*h.origin_topic)
                                                   : m.retry_topic().value_or(std::string_view(m.topic));
    on_dlq_(h.group, origin);
  }
  rt_.log().debug("send-back of {} for {}: {} (reconsume {})", m.offset_msg_id, h.group, dlq ? "DLQ" : "retry",
                  next_reconsume);
  co_return reply(req, code::SUCCESS);
}

}  // namespace ferry::broker
