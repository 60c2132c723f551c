#include "broker/pull_processor.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/message_const.h"
#include "common/permission.h"
#include "remoting/response_code.h"
#include "runtime/assert.h"

namespace ferry::broker {

namespace code = remoting::response_code;
using remoting::PullMessageRequestHeader;
using remoting::PullMessageResponseHeader;

namespace pull_flag {
inline constexpr std::int32_t kCommitOffset = 0x1;
inline constexpr std::int32_t kSuspend = 0x2;
inline constexpr std::int32_t kSubscription = 0x4;
inline constexpr std::int32_t kClassFilter = 0x8;
}  // namespace pull_flag

PullProcessor::PullProcessor(Runtime& rt, const BrokerConfig& config, store::MessageStore& store,
                             TopicConfigManager& topics, ConsumerOffsetManager& offsets,
                             PullHoldService& hold, const SubscriptionLookup& subscriptions,
                             BrokerStats& stats, BrokerMetrics& metrics)
    : rt_(rt), config_(config), store_(store), topics_(topics), offsets_(offsets), hold_(hold),
      subscriptions_(&subscriptions), stats_(stats), metrics_(metrics) {}

Task<Reply> PullProcessor::process(RequestContext ctx) {
  const RemotingCommand& req = ctx.request;
  auto parsed = PullMessageRequestHeader::from_fields(req.ext_fields);
  if (!parsed) co_return bad_header(req, parsed.error());
  const PullMessageRequestHeader h = std::move(*parsed);
  if (h.max_msg_nums <= 0) {
    co_return reply(req, code::SYSTEM_ERROR,
                    fmt::format("PullMessageRequestHeader: field maxMsgNums = {} is not positive", h.max_msg_nums));
  }
  if (!perm::is_readable(config_.broker_permission)) {
    co_return reply(req, code::NO_PERMISSION,
                    fmt::format("the broker[{}] pulling message is forbidden", config_.broker_name));
  }
  if (auto refused = subscriptions_->check_group(h.consumer_group)) {
    co_return reply(req, refused->code, std::move(refused->remark));
  }
  const TopicConfig* tc = topics_.find(h.topic);
  if (tc == nullptr) {
    co_return reply(req, code::TOPIC_NOT_EXIST, fmt::format("topic[{}] not exist, apply first please!", h.topic));
  }
  if (!perm::is_readable(tc->perm)) {
    co_return reply(req, code::NO_PERMISSION, fmt::format("the topic[{}] pulling message is forbidden", h.topic));
  }
  if (h.queue_id < QueueId(0) || h.queue_id >= QueueId(tc->read_queue_nums)) {
    co_return reply(req, code::SYSTEM_ERROR,
                    fmt::format("queueId[{}] is illegal, topic:[{}] topicConfig.readQueueNums:[{}] consumer:[{}]",
                                h.queue_id, h.topic, tc->read_queue_nums, ctx.channel ? ctx.channel->peer_text() : ""));
  }

  // The subscription: from the request (the subscription flag) or from the group's heartbeat.
  std::optional<SubscriptionFilter> filter;
  if ((h.sys_flag & pull_flag::kSubscription) != 0) {
    const std::string& text = h.subscription.value_or("");
    auto type = parse_expression_type(h.expression_type.value_or(""));
    const Result<SubscriptionFilter>& compiled =
        type.ok() ? filters_.get(*type, text) : Result<SubscriptionFilter>(type.error());
    if (!compiled.ok()) {
      if (auto held = bad_filter_log_.admit(rt_.now())) {
        rt_.log().warn("pull of {} by {}: subscription \"{}\" ({}) does not compile: {}{}", h.topic, h.consumer_group,
                       text.substr(0, 200), h.expression_type.value_or("TAG"), compiled.error().detail,
                       held_back_note(*held));
      }
      co_return reply(req, code::SUBSCRIPTION_PARSE_FAILED,
                      fmt::format("parse the consumer's subscription failed: {}", compiled.error().detail));
    }
    filter = *compiled;
  } else {
    auto found = subscriptions_->find(h.consumer_group, h.topic);
    if (!found) {
      co_return reply(req, code::SUBSCRIPTION_NOT_EXIST,
                      fmt::format("the consumer group[{}] has no subscription to topic[{}]", h.consumer_group, h.topic));
    }
    if (found->sub_version < h.sub_version) {
      co_return reply(req, code::SUBSCRIPTION_NOT_LATEST,
                      fmt::format("the consumer's subscription is not latest ({} < {})", found->sub_version, h.sub_version));
    }
    if (!found->filter) {
      const bool tag = parse_expression_type(found->expression_type).value_or(ExpressionType::sql92) == ExpressionType::tag;
      co_return reply(req, tag ? code::SUBSCRIPTION_NOT_EXIST : code::FILTER_DATA_NOT_EXIST,
                      fmt::format("the broker's consumer filter data does not exist: the subscription of [{}] to "
                                  "[{}] does not compile: {}", h.consumer_group, h.topic, found->problem));
    }
    filter = std::move(found->filter);
  }
  if (filter->type() != ExpressionType::tag && !config_.enable_property_filter) {
    co_return reply(req, code::SYSTEM_ERROR,
                    fmt::format("The broker does not support consumer to filter message by {} (enablePropertyFilter "
                                "is false)", expression_type_name(filter->type())));
  }

  RemotingCommand out = fetch(req, h, *filter);
  if ((h.sys_flag & pull_flag::kCommitOffset) != 0 && config_.broker_role != BrokerRole::slave) {
    // Forward only: this pull may be served after a later UPDATE_CONSUMER_OFFSET of the consumer.
    if (h.commit_offset >= QueueOffset(0)) {
      if (Status c = offsets_.commit_forward(h.consumer_group, h.topic, h.queue_id, h.commit_offset); !c) {
        if (auto held = commit_error_log_.admit(rt_.now(), static_cast<std::int64_t>(c.error().code))) {
          rt_.log().warn("pull from {}: the piggy-backed commit was not stored: {}{}", h.consumer_group,
                         c.error().to_string(), held_back_note(*held));
        }
      }
    }
  }
  if (out.code != code::PULL_NOT_FOUND || (h.sys_flag & pull_flag::kSuspend) == 0) co_return out;
  // buggify: the pull is not held: PULL_NOT_FOUND at once, as a hold that wakes at once would.
  if (FERRY_BUGGIFY(rt_)) co_return out;

  Duration timeout = config_.short_polling_time;
  if (config_.long_polling_enable) {
    // Capped in milliseconds, before any conversion: a client's value may be anything up to
    // INT64_MAX, which overflows as nanoseconds.
    const std::int64_t cap_ms = to_ms(config_.suspend_timeout_max);
    timeout = std::chrono::milliseconds(std::clamp<std::int64_t>(h.suspend_timeout_millis, 0, cap_ms));
  }
  Task<PullHoldService::Wake> parked = hold_.wait(h.topic, h.queue_id, h.queue_offset, timeout);
  const PullHoldService::Wake why = co_await std::move(parked);
  (void)why;  // whatever woke it, the pull runs once more and replies
  RemotingCommand again = topics_.find(h.topic) == nullptr
                              ? reply(req, code::TOPIC_NOT_EXIST, fmt::format("topic[{}] not exist, apply first please!", h.topic))
                              : fetch(req, h, *filter);
  again.suspended = true;  // rocketmq_rpc_latency's is_long_polling
  co_return again;
}

RemotingCommand PullProcessor::fetch(const RemotingCommand& request, const PullMessageRequestHeader& h,
                                     const SubscriptionFilter& filter) {
  using store::GetStatus;
  store::GetMessageResult got =
      store_.get_messages(h.topic, h.queue_id, h.queue_offset, h.max_msg_nums, filter.selects_all() ? nullptr : &filter);

  std::int32_t result_code = code::SYSTEM_ERROR;
  std::string remark;
  std::vector<FileView> messages;
  switch (got.status) {
    case GetStatus::found: {
      // The store kept the units whose tag hash the subscription names; the client checks the
      // exact tag (RocketMQ's broker filters by hash only, and so does this one: a record is
      // never decoded here). The records go out as views of the CommitLog, never copied.
      FERRY_ASSERT(!got.messages.empty(), "pull of {}: status found with no message", h.topic);
      result_code = code::SUCCESS;
      stats_.on_get(rt_.now(), h.topic, h.consumer_group, static_cast<std::int64_t>(got.messages.size()),
                    got.total_bytes);
      metrics_.on_get(h.topic, h.consumer_group, h.queue_id, got.next_begin_offset,
                      static_cast<std::int64_t>(got.messages.size()), got.total_bytes);
      messages = std::move(got.messages);
      break;
    }
    case GetStatus::no_matched_message:
    case GetStatus::message_was_removing:
      result_code = code::PULL_RETRY_IMMEDIATELY;
      break;
    case GetStatus::no_matched_logic_queue:
    case GetStatus::no_message_in_queue:
      result_code = h.queue_offset != QueueOffset(0) ? code::PULL_OFFSET_MOVED : code::PULL_NOT_FOUND;
      break;
    case GetStatus::offset_found_null:
    case GetStatus::offset_overflow_one:
      result_code = code::PULL_NOT_FOUND;
      break;
    case GetStatus::offset_overflow_badly:
    case GetStatus::offset_too_small:
      result_code = code::PULL_OFFSET_MOVED;
      break;
  }
  if (remark.empty() && result_code != code::SUCCESS) remark = std::string(store::get_status_name(got.status));
  QueueOffset next_begin_offset = got.next_begin_offset;
  if (config_.broker_role == BrokerRole::slave && result_code == code::PULL_OFFSET_MOVED) {
    // A slave corrects no offset (RocketMQ's offsetCheckInSlave, false): it may only lag its
    // master, and a consumer moved to what the slave has would skip or re-consume.
    next_begin_offset = h.queue_offset;
    const bool below = got.status == GetStatus::offset_too_small;
    result_code = below ? code::PULL_RETRY_IMMEDIATELY : code::PULL_NOT_FOUND;
    remark = fmt::format("{} on a slave: offset {} kept (queue [{}, {}] here)", store::get_status_name(got.status),
                         h.queue_offset, got.min_offset, got.max_offset);
  }

  stats_.on_pull_look(result_code == code::SUCCESS);
  PullMessageResponseHeader rh;
  rh.suggest_which_broker_id = suggest_broker(h.consumer_group, got);
  rh.next_begin_offset = next_begin_offset;
  rh.min_offset = got.min_offset;
  rh.max_offset = got.max_offset;
  RemotingCommand out = reply(request, result_code, std::move(remark));
  out.ext_fields = rh.to_fields();
  out.body_views = std::move(messages);
  return out;
}

std::int64_t PullProcessor::suggest_broker(std::string_view group, const store::GetMessageResult& got) const {
  constexpr std::int64_t kMasterId = 0;
  if (!config_.slave_read_enable) return kMasterId;
  const GroupReadPreference pref = subscriptions_->read_preference(group);
  if (!got.last_scanned_phy_offset) return pref.broker_id;
  const std::int64_t behind_bytes = store_.max_phy_offset() - *got.last_scanned_phy_offset;
  FERRY_ASSERT(behind_bytes >= 0, "pull of {}: scanned CommitLog offset {} beyond the log's max {}", group,
               got.last_scanned_phy_offset->value(), store_.max_phy_offset().value());
  return behind_bytes > in_memory_reach_bytes(config_) ? pref.which_broker_when_consume_slowly : pref.broker_id;
}

}  // namespace ferry::broker
