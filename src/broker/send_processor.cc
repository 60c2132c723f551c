#include "broker/send_processor.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "broker/batch_decoder.h"
#include "broker/retry_topics.h"
#include "broker/timer_send.h"
#include "common/delay_levels.h"
#include "common/message.h"
#include "common/message_const.h"
#include "common/names.h"
#include "common/permission.h"
#include "common/properties.h"
#include "common/record_format.h"
#include "common/sys_flag.h"
#include "remoting/request_code.h"
#include "remoting/response_code.h"

namespace ferry::broker {

namespace code = remoting::response_code;
using remoting::SendMessageRequestHeader;
using remoting::SendMessageResponseHeader;

namespace {

constexpr std::int32_t kTopicSysFlagUnitSub = 0x2;  // RocketMQ TopicSysFlag.FLAG_UNIT_SUB

HostPort born_host_of(const RequestContext& ctx) {
  if (ctx.channel && ctx.channel->peer_host_port()) return *ctx.channel->peer_host_port();
  return HostPort::v4(0, 0, 0, 0, 0);
}

// The PROPERTIES field as text ("" when absent), without copying it.
std::string_view properties_text(const SendMessageRequestHeader& h) {
  return h.properties ? std::string_view(*h.properties) : std::string_view();
}

// WAIT: absent means true; otherwise Java's Boolean.parseBoolean.
bool wait_store_ok(std::optional<std::string_view> v) {
  if (!v) return true;
  std::string lower(*v);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower == "true";
}

bool wait_store_ok(const Properties& p) { return wait_store_ok(p.get(prop::kWait)); }

// The stored properties of a plain send — not to a retry topic, no DELAY, no transient key, no
// CLUSTER of its own, no key twice, no empty entry — are its text with CLUSTER appended: what
// decoding, editing and re-encoding would produce, without building the map (most sends are
// plain). Also reads WAIT. nullopt: the send takes the map's way (send_one).
struct PlainSend {
  std::string stored_properties;
  bool wait = true;
};
std::optional<PlainSend> plain_send(std::string_view topic, std::string_view text, std::string_view cluster) {
  if (is_retry_topic(topic)) return std::nullopt;
  bool delayed = false;
  std::optional<std::string_view> wait;
  bool transactional = false;
  const Status read = visit_properties(text, [&](std::string_view k, std::string_view v) {
    if (k == prop::kDelay) delayed = true;
    if (k == prop::kWait) wait = v;
    if (k == prop::kTransactionPrepared || is_timer_request_key(k)) transactional = true;  // the map's way
    return !delayed && !transactional;
  });
  if (!read.ok() || delayed || transactional) return std::nullopt;
  std::optional<std::string> stored = append_property_if_plain(text, prop::kCluster, cluster, prop::kTransientPrefix);
  if (!stored) return std::nullopt;
  return PlainSend{std::move(*stored), wait_store_ok(wait)};
}

// A properties text longer than a record can hold is refused before it is parsed: a hostile
// header field (up to the 16 MiB frame) then costs one length check on the event loop, and the
// bound also bounds the key count (at least 3 bytes per entry: fewer than 11,000 keys).
std::optional<std::string> oversized_properties(std::string_view text) {
  if (text.size() <= record::kPropertiesBytesMax) return std::nullopt;
  return fmt::format("properties of {} bytes (max {})", text.size(), record::kPropertiesBytesMax);
}

// Java's Boolean.parseBoolean: "true" in any letter case.
bool java_true(std::optional<std::string_view> v) { return v.has_value() && wait_store_ok(v); }

// Drops properties a broker never stores, adds CLUSTER.
void add_broker_properties(Properties& p, std::string_view cluster) {
  std::vector<std::string> transient;
  for (const auto& [k, v] : p) {
    if (k.starts_with(prop::kTransientPrefix)) transient.push_back(k);
  }
  for (const auto& k : transient) (void)p.erase(k);
  p.set(prop::kCluster, cluster);
}

}  // namespace

SendProcessor::SendProcessor(Runtime& rt, const BrokerConfig& config, store::MessageStore& store,
                             store::ha::HaMaster& ha, TopicConfigManager& topics, BrokerStats& stats, BrokerMetrics& metrics)
    : rt_(rt), config_(config), store_(store), ha_(ha), topics_(topics), stats_(stats), metrics_(metrics) {}

std::variant<SendProcessor::Target, RemotingCommand> SendProcessor::route(
    const RemotingCommand& request, const SendMessageRequestHeader& h) {
  if (write_fence_) {
    if (auto why = write_fence_()) return reply(request, code::SERVICE_NOT_AVAILABLE, "controller mode: " + *why);
  }
  if (config_.broker_role == BrokerRole::slave) {
    return reply(request, code::SERVICE_NOT_AVAILABLE, "the broker is a slave; send to its master");
  }
  if (!perm::is_writeable(config_.broker_permission)) {
    return reply(request, code::NO_PERMISSION,
                 fmt::format("the broker[{}] sending message is forbidden", config_.broker_name));
  }
  if (Status valid = validate_topic(h.topic); !valid) {
    return reply(request, code::SYSTEM_ERROR, valid.error().detail);
  }
  // Every system topic is refused but RMQ_SYS_TRACE_TOPIC, where clients with message trace on
  // (enableMsgTrace) send their trace records. (RocketMQ refuses only its NOT_ALLOWED_SEND_TOPIC_SET:
  // the schedule, half, op-half, check-max-time, self-test and offset-moved topics; Ferry refuses
  // TBW102 and the other RMQ_SYS_ names too, which no client has a reason to send to.)
  if (is_system_topic(h.topic) && h.topic != kTraceTopic) {
    return reply(request, code::NO_PERMISSION,
                 fmt::format("sending message to topic[{}] is forbidden (a system topic)", h.topic));
  }
  const TopicConfig* tc = topics_.find(h.topic);
  if (tc == nullptr) {
    tc = topics_.create_in_send(h.topic, h.default_topic, h.default_topic_queue_nums,
                                 h.unit_mode ? kTopicSysFlagUnitSub : 0);
  }
  if (tc == nullptr) {
    return reply(request, code::TOPIC_NOT_EXIST,
                 fmt::format("topic[{}] not exist, apply first please!", h.topic));
  }
  if (!perm::is_writeable(tc->perm)) {
    return reply(request, code::NO_PERMISSION,
                 fmt::format("topic[{}] is not writable (perm {})", h.topic, perm::to_string(tc->perm)));
  }
  const QueueId queues_end(std::max(tc->read_queue_nums, tc->write_queue_nums));
  if (h.queue_id >= queues_end) {
    return reply(request, code::SYSTEM_ERROR,
                 fmt::format("request queueId[{}] is illegal, topic[{}] has {} write / {} read queues",
                             h.queue_id, h.topic, tc->write_queue_nums, tc->read_queue_nums));
  }
  if (h.queue_id >= QueueId(0)) return Target{h.topic, h.queue_id};
  if (tc->write_queue_nums <= 0) {
    return reply(request, code::NO_PERMISSION, fmt::format("topic[{}] has no writable queue", h.topic));
  }
  const auto picked = rt_.random().below(static_cast<std::uint64_t>(tc->write_queue_nums));
  return Target{h.topic, QueueId(static_cast<std::int32_t>(picked))};
}

Task<Reply> SendProcessor::process(RequestContext ctx) {
  // The request is this processor's: its header strings move into `h`, not copied; a binary
  // header's fields kept raw (RpcOptions::raw_ext_fields_requests) are read without a map.
  auto h = ctx.request.raw_ext_fields.empty()
               ? SendMessageRequestHeader::from_request(ctx.request.code, std::move(ctx.request.ext_fields))
               : SendMessageRequestHeader::from_request_binary(
                     ctx.request.code, Bytes(ctx.request.raw_ext_fields.data(), ctx.request.raw_ext_fields.size()));
  if (!h) co_return bad_header(ctx.request, h.error());
  auto routed = route(ctx.request, *h);
  if (auto* err = std::get_if<RemotingCommand>(&routed)) co_return std::move(*err);
  Target target = std::get<Target>(std::move(routed));
  if (ctx.request.code == remoting::request_code::SEND_REPLY_MESSAGE ||
      ctx.request.code == remoting::request_code::SEND_REPLY_MESSAGE_V2) {
    Task<Reply> t = send_reply(std::move(ctx), std::move(*h), std::move(target));
    co_return co_await std::move(t);
  }
  if (ctx.request.code == remoting::request_code::SEND_BATCH_MESSAGE) {
    Task<Reply> t = send_batch(std::move(ctx), std::move(*h), std::move(target));
    co_return co_await std::move(t);
  }
  Task<Reply> t = send_one(std::move(ctx), std::move(*h), std::move(target));
  co_return co_await std::move(t);
}

Task<Reply> SendProcessor::send_one(RequestContext ctx, SendMessageRequestHeader h, Target target) {
  if (auto why = oversized_properties(properties_text(h))) co_return reply(ctx.request, code::MESSAGE_ILLEGAL, *why);
  // A record flagged prepared or rolled back takes the map's way: it is a half message, or refused.
  const std::int32_t flagged_tx = sysflag::transaction_type(h.sys_flag);
  const bool flagged = flagged_tx == sysflag::kTransactionPreparedType || flagged_tx == sysflag::kTransactionRollbackType;
  std::optional<PlainSend> plain;
  if (!flagged) plain = plain_send(target.topic, properties_text(h), config_.broker_cluster_name);
  if (plain) {
    if (auto refused = in_sync_refusal(ctx.request, plain->wait)) co_return std::move(*refused);
    store::PutResult put = put_one(ctx, h, target.topic, target.queue_id, plain->stored_properties);
    Task<Reply> t = finish(std::move(ctx.request), std::move(put), std::move(target), plain->wait);
    co_return co_await std::move(t);
  }
  auto props = decode_properties(properties_text(h));
  if (!props) co_return reply(ctx.request, code::MESSAGE_ILLEGAL, "properties: " + props.error().detail);
  add_broker_properties(*props, config_.broker_cluster_name);

  std::string topic = target.topic;
  QueueId queue_id = target.queue_id;
  Message m;
  m.properties = std::move(*props);
  if (groups_ != nullptr && is_retry_topic(topic)) {
    // RocketMQ handleRetryAndDLQ: past maxReconsumeTimes a retry goes to the group's DLQ.
    const std::string group = topic.substr(kRetryTopicPrefix.size());
    const SubscriptionGroupConfig* g = groups_->find_or_create(group);
    if (g == nullptr) {
      co_return reply(ctx.request, code::SUBSCRIPTION_GROUP_NOT_EXIST, fmt::format("subscription group not exist, {}", group));
    }
    const std::int32_t max_reconsume = h.max_reconsume_times.value_or(g->retry_max_times);
    if (h.reconsume_times.value_or(0) >= max_reconsume) {
      topic = dlq_topic(group);
      queue_id = QueueId(0);
      const TopicConfig* dlq = ensure_topic(topics_, topic, kDlqQueueNums, perm::kReadWrite, 0);
      if (dlq == nullptr) co_return reply(ctx.request, code::SYSTEM_ERROR, fmt::format("topic[{}] not exist", topic));
      (void)m.properties.erase(prop::kDelay);
      metrics_.on_dlq(group, topic);
    }
  }
  auto level = m.delay_level();
  if (!level) co_return reply(ctx.request, code::MESSAGE_ILLEGAL, level.error().detail);
  // A half message: TRAN_MSG=true (RocketMQ 5 exempts an old client's send-back, which carries a
  // reconsume count and a delay level). It is kept on RMQ_SYS_TRANS_HALF_TOPIC queue 0, typed as
  // no transaction, with REAL_TOPIC / REAL_QID, where no consumer reads until END_TRANSACTION
  // commits it (end_transaction_processor.h); the reply names the real queue and the half's queue
  // offset. A record flagged prepared or rolled back without TRAN_MSG would be stored with no
  // queue entry at all: refused.
  const bool half = java_true(m.properties.get(prop::kTransactionPrepared)) &&
                    !(h.reconsume_times.value_or(0) > 0 && *level > 0);
  if (half && config_.reject_transaction_message) co_return transaction_refusal(ctx.request, "rejectTransactionMessage = true");
  if (!half && flagged) co_return transaction_refusal(ctx.request, "a prepared or rollback sysflag needs TRAN_MSG=true");
  if (half) {
    m.set_real_topic(topic);
    m.set_real_queue_id(queue_id);
    if (ensure_topic(topics_, kTransHalfTopic, 1, perm::kReadWrite, 0) == nullptr) {
      co_return reply(ctx.request, code::SYSTEM_ERROR, fmt::format("topic[{}] not exist", kTransHalfTopic));
    }
    topic = std::string(kTransHalfTopic);
    queue_id = QueueId(0);
    h.sys_flag = sysflag::with_transaction_type(h.sys_flag, sysflag::kTransactionNotType);
    target.type = BrokerMetrics::MessageType::transaction;
  }
  if (!half) {
    // Timer messages (timer_send.h): stored on rmq_sys_wheel_timer until due.
    const TimerDecision timer = decide_timer(m.properties, topic, *level, timer_rules(config_),
                                             timer_clock_ ? timer_clock_() : rt_.wall_ms());
    if (const auto* refused = std::get_if<TimerRefusal>(&timer)) co_return reply(ctx.request, refused->code, refused->remark);
    if (const auto* due = std::get_if<TimerDue>(&timer)) {
      if (ensure_topic(topics_, kTimerTopic, 1, perm::kReadWrite, 0) == nullptr) {
        co_return reply(ctx.request, code::SYSTEM_ERROR, fmt::format("topic[{}] not exist", kTimerTopic));
      }
      m.properties.set(prop::kTimerOutMs, std::to_string(due->out_ms));
      m.set_real_topic(topic);
      m.set_real_queue_id(queue_id);
      target.type = BrokerMetrics::MessageType::delay;
      topic = std::string(kTimerTopic);
      queue_id = QueueId(0);
    }
  }
  const std::int32_t tx = sysflag::transaction_type(h.sys_flag);
  if (!half && *level > 0 && (tx == sysflag::kTransactionNotType || tx == sysflag::kTransactionCommitType)) {
    const std::int32_t effective = std::min(*level, static_cast<std::int32_t>(config_.message_delay_levels.size()));
    if (effective != *level) m.set_delay_level(effective);
    m.set_real_topic(topic);
    m.set_real_queue_id(queue_id);
    target.type = BrokerMetrics::MessageType::delay;
    topic = std::string(kScheduleTopic);
    queue_id = QueueId(effective - 1);
  }
  auto text = encode_properties(m.properties);
  if (!text) co_return reply(ctx.request, code::MESSAGE_ILLEGAL, "properties: " + text.error().detail);
  const bool wait = wait_store_ok(m.properties);
  if (auto refused = in_sync_refusal(ctx.request, wait)) co_return std::move(*refused);
  store::PutResult put = put_one(ctx, h, topic, queue_id, *text);
  // The reply names the queue the client asked for (a delayed message's real queue).
  Task<Reply> t = finish(std::move(ctx.request), std::move(put), std::move(target), wait);
  co_return co_await std::move(t);
}

// Until transactions are served end to end (END_TRANSACTION, the check service), a half message is
// refused before anything is stored, as a RocketMQ broker with rejectTransactionMessage=true
// refuses it: the producer's send fails and says why, instead of a SEND_OK for a message no
// consumer would ever get.
RemotingCommand SendProcessor::transaction_refusal(const RemotingCommand& request, std::string_view why) const {
  return reply(request, code::NO_PERMISSION,
               fmt::format("the broker[{}] sending transaction message is forbidden ({})",
                           config_.broker_ip1.empty() ? rt_.network().host() : config_.broker_ip1, why));
}

std::optional<RemotingCommand> SendProcessor::in_sync_refusal(const RemotingCommand& request, bool wait) const {
  if (!wait || !config_.enable_controller_mode || config_.broker_role != BrokerRole::sync_master) return std::nullopt;
  const std::size_t members = ha_.sync_state_set().size();
  if (members >= static_cast<std::size_t>(config_.min_in_sync_replicas)) return std::nullopt;
  return reply(request, code::SYSTEM_ERROR,
               fmt::format("in-sync replicas not enough: the SyncStateSet has {} member(s), minInSyncReplicas is {}",
                           members, config_.min_in_sync_replicas));
}

Task<Reply> SendProcessor::send_reply(RequestContext ctx, SendMessageRequestHeader h, Target target) {
  if (replies_ == nullptr) co_return reply(ctx.request, code::REQUEST_CODE_NOT_SUPPORTED, "reply messages are not served here");
  if (auto why = oversized_properties(properties_text(h))) co_return reply(ctx.request, code::MESSAGE_ILLEGAL, *why);
  auto props = decode_properties(properties_text(h));
  if (!props) co_return reply(ctx.request, code::MESSAGE_ILLEGAL, "properties: " + props.error().detail);
  Task<std::optional<std::string>> pushing = replies_->push(ctx, h);
  const std::optional<std::string> push_failed = co_await std::move(pushing);
  if (!config_.store_reply_message_enable) {
    if (push_failed) co_return reply(ctx.request, code::SYSTEM_ERROR, *push_failed);
    // As RocketMQ: a reply pushed but not stored has no msgId or offset.
    SendMessageResponseHeader rh;
    rh.msg_id = "0";
    rh.queue_id = target.queue_id;
    rh.queue_offset = QueueOffset(0);
    RemotingCommand out = reply(ctx.request, code::SUCCESS);
    out.ext_fields = std::move(rh).to_fields();
    co_return out;
  }
  // Stored whatever the push did (the requester may read the reply topic itself).
  add_broker_properties(*props, config_.broker_cluster_name);
  auto text = encode_properties(*props);
  if (!text) co_return reply(ctx.request, code::MESSAGE_ILLEGAL, "properties: " + text.error().detail);
  store::PutResult put = put_one(ctx, h, target.topic, target.queue_id, *text);
  Task<Reply> finishing = finish(std::move(ctx.request), std::move(put), std::move(target), wait_store_ok(*props));
  Reply out = co_await std::move(finishing);
  if (push_failed && out && out->code == code::SUCCESS) {
    out->code = code::SYSTEM_ERROR;
    out->remark = *push_failed;
  }
  co_return out;
}

store::PutResult SendProcessor::put_one(const RequestContext& ctx, const SendMessageRequestHeader& h,
                                        std::string_view topic, QueueId queue_id, std::string_view properties) {
  store::PutRequest req;
  req.topic = topic;
  req.queue_id = queue_id;
  req.flag = h.flag;
  req.body = Bytes(ctx.request.body.data(), ctx.request.body.size());
  req.properties = properties;
  req.sys_flag = h.sys_flag;
  req.born_timestamp_ms = h.born_timestamp;
  req.born_host = born_host_of(ctx);
  req.reconsume_times = h.reconsume_times.value_or(0);
  return store_.put_message(req);
}

Task<Reply> SendProcessor::send_batch(RequestContext ctx, SendMessageRequestHeader h, Target target) {
  if (is_retry_topic(target.topic)) {
    co_return reply(ctx.request, code::MESSAGE_ILLEGAL, "batch messages cannot be sent to a retry topic");
  }
  if (auto why = oversized_properties(properties_text(h))) co_return reply(ctx.request, code::MESSAGE_ILLEGAL, *why);
  auto outer = decode_properties(properties_text(h));
  if (!outer) co_return reply(ctx.request, code::MESSAGE_ILLEGAL, "properties: " + outer.error().detail);
  if (sysflag::transaction_type(h.sys_flag) != sysflag::kTransactionNotType) {
    // RocketMQ's CommitLog refuses these too (a batch cannot be part of a transaction).
    co_return reply(ctx.request, code::MESSAGE_ILLEGAL, "batch messages cannot be transactional");
  }
  auto entries = decode_batch(Bytes(ctx.request.body.data(), ctx.request.body.size()));
  if (!entries) co_return reply(ctx.request, code::MESSAGE_ILLEGAL, entries.error().detail);

  std::vector<std::string> texts;
  texts.reserve(entries->size());
  for (std::size_t i = 0; i < entries->size(); ++i) {
    auto props = decode_properties((*entries)[i].properties);
    if (!props) {
      co_return reply(ctx.request, code::MESSAGE_ILLEGAL,
                      fmt::format("batch message {}: properties: {}", i, props.error().detail));
    }
    Message m;
    m.properties = std::move(*props);
    auto level = m.delay_level();
    if (!level || *level > 0) {
      co_return reply(ctx.request, code::MESSAGE_ILLEGAL,
                      fmt::format("batch message {}: delayed messages cannot be batched", i));
    }
    for (const std::string_view key : {prop::kTimerDelaySec, prop::kTimerDelayMs, prop::kTimerDeliverMs}) {
      if (m.properties.get(key)) {
        co_return reply(ctx.request, code::MESSAGE_ILLEGAL,
                        fmt::format("batch message {}: timer messages ({}) cannot be batched", i, key));
      }
    }
    add_broker_properties(m.properties, config_.broker_cluster_name);
    auto text = encode_properties(m.properties);
    if (!text) {
      co_return reply(ctx.request, code::MESSAGE_ILLEGAL,
                      fmt::format("batch message {}: properties: {}", i, text.error().detail));
    }
    texts.push_back(std::move(*text));
  }
  const HostPort born = born_host_of(ctx);
  std::vector<store::PutRequest> batch(entries->size());
  for (std::size_t i = 0; i < entries->size(); ++i) {
    store::PutRequest& r = batch[i];
    r.topic = target.topic;
    r.queue_id = target.queue_id;
    r.flag = (*entries)[i].flag;
    r.body = (*entries)[i].body;
    r.properties = texts[i];
    r.sys_flag = h.sys_flag;
    r.born_timestamp_ms = h.born_timestamp;
    r.born_host = born;
    r.reconsume_times = h.reconsume_times.value_or(0);
  }
  const bool wait = wait_store_ok(*outer);
  if (auto refused = in_sync_refusal(ctx.request, wait)) co_return std::move(*refused);
  store::PutResult put = store_.put_messages(batch);
  Task<Reply> t = finish(std::move(ctx.request), std::move(put), std::move(target), wait);
  co_return co_await std::move(t);
}

Task<Reply> SendProcessor::finish(RemotingCommand request, store::PutResult put, Target target, bool wait) {
  const QueueId queue_id = target.queue_id;
  using store::PutStatus;
  switch (put.status) {
    case PutStatus::ok:
    case PutStatus::flush_disk_timeout:
      break;
    case PutStatus::service_not_available:
      co_return reply(request, code::SERVICE_NOT_AVAILABLE,
                      fmt::format("service not available now (disk full or store stopped): {}", put.detail));
    case PutStatus::message_illegal:
    case PutStatus::properties_size_exceeded:
      co_return reply(request, code::MESSAGE_ILLEGAL, fmt::format("the message is illegal: {}", put.detail));
    case PutStatus::create_mapped_file_failed:
      co_return reply(request, code::SYSTEM_ERROR, fmt::format("create mapped file failed: {}", put.detail));
    case PutStatus::flush_slave_timeout:
    case PutStatus::slave_not_available:  // replication's, never a put's
      co_return reply(request, code::SYSTEM_ERROR, fmt::format("unexpected put status {}", put_status_name(put.status)));
  }
  stats_.on_put(rt_.now(), target.topic, put.message_count, put.wrote_bytes);
  metrics_.on_put(target.topic, target.type, put.message_count, put.wrote_bytes);
  const std::int32_t epoch = epoch_ ? epoch_() : 0;  // before any wait: the epoch the put was stored in
  std::string ids = store_.offset_msg_ids(put);
  std::int32_t result_code = put.status == PutStatus::ok ? code::SUCCESS : code::FLUSH_DISK_TIMEOUT;
  std::string remark;
  // Decided at the put, before any wait: a broker that becomes a slave while the send waits for
  // its disk (controller mode) must not skip the replication the acknowledgement needs
  // (controller-swarm seed 3498: an old master acknowledged a send its successor never had).
  const bool replicate = wait && config_.broker_role == BrokerRole::sync_master;
  if (result_code == code::SUCCESS && wait && config_.flush_disk_type == store::FlushMode::sync_flush) {
    const PutStatus durable = co_await store_.wait_durable(put.end());
    if (durable != PutStatus::ok) result_code = code::FLUSH_DISK_TIMEOUT;
  }
  if (result_code == code::FLUSH_DISK_TIMEOUT) remark = "flush disk timeout";
  if (replicate) {
    switch (co_await ha_.wait_replicated(put.end())) {
      case PutStatus::ok: break;
      case PutStatus::slave_not_available:
        result_code = code::SLAVE_NOT_AVAILABLE;
        remark = "stored on the master; no slave is connected or it is too far behind";
        break;
      default:
        result_code = code::FLUSH_SLAVE_TIMEOUT;
        remark = fmt::format("stored on the master; no slave confirmed it within {} ms", to_ms(config_.ha.slave_timeout));
        break;
    }
  }
  if (result_code == code::SUCCESS && config_.enable_controller_mode &&
      (config_.broker_role == BrokerRole::slave || (epoch_ && epoch_() != epoch))) {
    // The master role of the put's epoch ended while the send waited: what the next master holds
    // of it is not this broker's to promise (a rejoining old master cuts what its successor lacks).
    result_code = code::FLUSH_SLAVE_TIMEOUT;
    remark = fmt::format("stored, but this broker stopped being the master of epoch {} before the send was confirmed",
                         epoch);
  }
  if (result_code == code::SUCCESS) stats_.on_acked(epoch, put.message_count);
  SendMessageResponseHeader rh;
  rh.msg_id = std::move(ids);
  rh.queue_id = queue_id;
  rh.queue_offset = put.queue_offset;
  rh.msg_region = config_.region_id;
  rh.trace_on = config_.trace_on ? "true" : "false";
  RemotingCommand out = reply(request, result_code, remark);
  if (request.serialize_type == remoting::SerializeType::rocketmq) {
    rh.to_binary(out.raw_ext_fields);  // written as they are; a map would only be walked once
  } else {
    out.ext_fields = std::move(rh).to_fields();
  }
  co_return out;
}

}  // namespace ferry::broker
