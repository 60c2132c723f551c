#include "broker/pop_service.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/names.h"
#include "common/permission.h"
#include "common/properties.h"
#include "common/record_reader.h"
#include "common/record_writer.h"
#include "remoting/body/batch_ack_body.h"
#include "remoting/request_code.h"
#include "remoting/response_code.h"

namespace ferry::broker {

namespace code = remoting::response_code;
namespace rc = remoting::request_code;
using remoting::AckMessageRequestHeader;
using remoting::ChangeInvisibleTimeRequestHeader;
using remoting::ChangeInvisibleTimeResponseHeader;
using remoting::PopMessageRequestHeader;
using remoting::PopMessageResponseHeader;

PopService::PopService(Runtime& rt, const BrokerConfig& config, store::MessageStore& store, TopicConfigManager& topics,
                       ConsumerOffsetManager& offsets, SubscriptionGroupManager& groups,
                       const SubscriptionLookup& subscriptions)
    : rt_(rt), config_(config), store_(store), topics_(topics), offsets_(offsets), subscriptions_(subscriptions),
      revive_(rt, config, store, topics, offsets, groups), hold_(rt, config) {}

void PopService::register_processors(remoting::RpcServer& server) {
  server.register_processor(rc::POP_MESSAGE, [this](RequestContext ctx) { return pop(std::move(ctx)); });
  server.register_processor(rc::ACK_MESSAGE, [this](RequestContext ctx) { return ack(std::move(ctx)); });
  server.register_processor(rc::BATCH_ACK_MESSAGE, [this](RequestContext ctx) { return batch_ack(std::move(ctx)); });
  server.register_processor(rc::CHANGE_MESSAGE_INVISIBLETIME,
                            [this](RequestContext ctx) { return change_invisible(std::move(ctx)); });
}

void PopService::start(bool master) {
  master_ = master;
  revive_.start(master);
}

void PopService::set_master(bool master) {
  if (master == master_) return;
  master_ = master;
  order_.clear();
  revive_.set_active(master);
}

void PopService::stop() {
  hold_.stop();
  revive_.stop();
}

std::string PopService::retry_topic_of(const std::string& group, const std::string& topic) const {
  return pop_retry_topic(group, topic, config_.enable_retry_topic_v2 ? PopRetry::v2 : PopRetry::v1);
}

// ---- POP_MESSAGE -------------------------------------------------------------------------------

Task<Reply> PopService::pop(RequestContext ctx) {
  const RemotingCommand& req = ctx.request;
  auto parsed = PopMessageRequestHeader::from_fields(req.ext_fields);
  if (!parsed) co_return bad_header(req, parsed.error());
  const PopMessageRequestHeader h = std::move(*parsed);
  if (h.max_msg_nums <= 0 || h.max_msg_nums > kPopBatchMax) {
    co_return reply(req, code::SYSTEM_ERROR,
                    fmt::format("PopMessageRequestHeader: field maxMsgNums = {} is not in 1..{}", h.max_msg_nums, kPopBatchMax));
  }
  if (h.invisible_time <= 0 || h.invisible_time > to_ms(config_.pop_invisible_time_max)) {
    co_return reply(req, code::SYSTEM_ERROR,
                    fmt::format("PopMessageRequestHeader: field invisibleTime = {} is not in 1..{} ms", h.invisible_time,
                                to_ms(config_.pop_invisible_time_max)));
  }
  if (!perm::is_readable(config_.broker_permission)) {
    co_return reply(req, code::NO_PERMISSION, fmt::format("the broker[{}] pop message is forbidden", config_.broker_name));
  }
  if (!master_) {
    co_return reply(req, code::SERVICE_NOT_AVAILABLE, "the broker is a slave; pop from its master");
  }
  const TopicConfig* tc = topics_.find(h.topic);
  if (tc == nullptr) {
    co_return reply(req, code::TOPIC_NOT_EXIST, fmt::format("topic[{}] not exist, apply first please!", h.topic));
  }
  if (!perm::is_readable(tc->perm)) {
    co_return reply(req, code::NO_PERMISSION, fmt::format("the topic[{}] peeking message is forbidden", h.topic));
  }
  if (h.queue_id >= tc->read_queue_nums) {
    co_return reply(req, code::SYSTEM_ERROR,
                    fmt::format("queueId[{}] is illegal, topic:[{}] topicConfig.readQueueNums:[{}] consumer:[{}]",
                                h.queue_id, h.topic, tc->read_queue_nums, ctx.channel ? ctx.channel->peer_text() : ""));
  }
  if (auto refused = subscriptions_.check_group(h.consumer_group)) {
    co_return reply(req, refused->code, std::move(refused->remark));
  }
  const std::string exp = h.exp.value_or("").empty() ? std::string("*") : *h.exp;
  auto type = parse_expression_type(h.exp_type.value_or("TAG"));
  const Result<SubscriptionFilter>& compiled = type.ok() ? filters_.get(*type, exp) : Result<SubscriptionFilter>(type.error());
  if (!compiled.ok()) {
    co_return reply(req, code::SUBSCRIPTION_PARSE_FAILED,
                    fmt::format("parse the consumer's subscription failed: {}", compiled.error().detail));
  }
  const SubscriptionFilter filter = *compiled;
  if (filter.type() != ExpressionType::tag && !config_.enable_property_filter) {
    co_return reply(req, code::SYSTEM_ERROR,
                    fmt::format("The broker does not support consumer to filter message by {} (enablePropertyFilter "
                                "is false)", expression_type_name(filter.type())));
  }

  const std::int32_t revive_qid =
      h.is_order() ? kPopOrderReviveQueue
                   : static_cast<std::int32_t>(ck_counter_++ % static_cast<std::uint64_t>(config_.revive_queue_num));
  WallMs pop_time = rt_.wall_ms();
  Found found = look(h, filter, pop_time, revive_qid);
  if (found.count > 0) co_return found_reply(req, h, std::move(found), pop_time, revive_qid);
  if (h.poll_time <= 0) co_return reply(req, code::POLLING_TIMEOUT, "NO_MESSAGE_IN_QUEUE");

  const Duration poll = config_.long_polling_enable
                            ? std::chrono::milliseconds(std::min<std::int64_t>(h.poll_time, to_ms(config_.suspend_timeout_max)))
                            : config_.short_polling_time;
  // Parked until a message arrives on a topic it reads; another POP woken by the same arrival may
  // take it first, so one that finds nothing parks again for what is left of its poll time.
  // A FIFO POP that skipped a blocked queue also looks again when the queue unblocks.
  const MonoTime deadline = rt_.now() + poll;
  bool first_wait = true;
  while (true) {
    std::vector<std::string> watched{h.topic};
    if (!h.is_order()) watched.push_back(retry_topic_of(h.consumer_group, h.topic));
    Duration wait = deadline - rt_.now();
    bool until_unblocked = false;
    if (found.unblocks_at) {
      const Duration unblock = std::chrono::milliseconds(std::max<std::int64_t>(0, *found.unblocks_at - rt_.wall_ms()));
      if (unblock < wait) {
        wait = unblock;
        until_unblocked = true;
      }
    }
    Task<PopHoldService::Wake> parked = hold_.wait(std::move(watched), h.consumer_group, wait);
    const PopHoldService::Wake why = co_await std::move(parked);
    if (why == PopHoldService::Wake::full && first_wait) {
      co_return reply(req, code::POLLING_FULL, "the broker's POP polling queue is full");
    }
    first_wait = false;
    if (why == PopHoldService::Wake::stopped) break;  // the broker is stopping: hand nothing out
    const bool woken = why == PopHoldService::Wake::arrived || (why == PopHoldService::Wake::timed_out && until_unblocked);
    const bool last_look = !woken || rt_.now() >= deadline;
    if (!master_ || topics_.find(h.topic) == nullptr) break;
    pop_time = rt_.wall_ms();
    found = look(h, filter, pop_time, revive_qid);
    if (found.count > 0) {
      RemotingCommand out = found_reply(req, h, std::move(found), pop_time, revive_qid);
      out.suspended = true;
      co_return out;
    }
    if (last_look) break;
  }
  RemotingCommand out = reply(req, code::POLLING_TIMEOUT, "NO_MESSAGE_IN_QUEUE");
  out.suspended = true;
  co_return out;
}

PopService::Found PopService::look(const PopMessageRequestHeader& h, const SubscriptionFilter& filter, WallMs pop_time,
                                   std::int32_t revive_qid) {
  Found found;
  const TopicConfig* tc = topics_.find(h.topic);
  if (tc == nullptr) return found;
  const auto random_q = static_cast<std::int32_t>(rt_.random().below(100));
  const bool retry_first = !h.is_order() && random_q < config_.pop_from_retry_probability;
  const std::string retry_topic = retry_topic_of(h.consumer_group, h.topic);
  const PopRetry retry_kind = pop_retry_of(retry_topic);
  const SubscriptionFilter all;
  auto look_retry = [&] {
    const TopicConfig* rtc = topics_.find(retry_topic);
    if (rtc == nullptr) return;
    for (std::int32_t i = 0; i < rtc->read_queue_nums && found.count < h.max_msg_nums; ++i) {
      look_queue(h, retry_topic, (random_q + i) % rtc->read_queue_nums, retry_kind, all, pop_time, revive_qid, found);
    }
  };
  if (retry_first) look_retry();
  if (h.queue_id < 0) {
    const std::int32_t n = tc->read_queue_nums;
    for (std::int32_t i = 0; i < n && found.count < h.max_msg_nums; ++i) {
      look_queue(h, h.topic, (random_q + i) % n, PopRetry::none, filter, pop_time, revive_qid, found);
    }
  } else {
    look_queue(h, h.topic, h.queue_id, PopRetry::none, filter, pop_time, revive_qid, found);
  }
  if (!retry_first && !h.is_order() && found.count < h.max_msg_nums) look_retry();
  return found;
}

std::int64_t PopService::start_offset(const std::string& group, const std::string& topic, std::int32_t queue,
                                      std::int32_t init_mode, PopRetry retry) {
  if (auto committed = offsets_.query(group, topic, QueueId(queue))) return committed->value();
  const std::int64_t min = store_.min_offset(topic, QueueId(queue)).value();
  const std::int64_t max = store_.max_offset(topic, QueueId(queue)).value();
  // MAX: the last message, as RocketMQ ("pop last one"), but a queue that never lost a message
  // is read from its first (RocketMQ's initPopOffsetByCheckMsgInMem).
  const std::int64_t init =
      retry != PopRetry::none || init_mode != remoting::kPopInitModeMax || min == 0 ? min : std::max(min, max - 1);
  if (Status s = offsets_.commit(group, topic, QueueId(queue), QueueOffset(init)); !s.ok()) {
    if (auto held = offset_error_log_.admit(rt_.now(), static_cast<std::int64_t>(s.error().code))) {
      rt_.log().warn("pop: the initial offset of {}@{} queue {} was not stored: {}{}", topic, group, queue,
                     s.error().to_string(), held_back_note(*held));
    }
  }
  return init;
}

void PopService::look_queue(const PopMessageRequestHeader& h, const std::string& topic, std::int32_t queue,
                            PopRetry retry, const SubscriptionFilter& filter, WallMs pop_time, std::int32_t revive_qid,
                            Found& found) {
  const std::string& group = h.consumer_group;
  const std::int64_t max_offset = store_.max_offset(topic, QueueId(queue)).value();
  if (h.is_order()) {
    if (auto until = order_.blocked_until(PopOrderManager::Key{topic, group, queue}, h.attempt_id, pop_time)) {
      found.rest += std::max<std::int64_t>(0, max_offset - start_offset(group, topic, queue, h.init_mode, retry));
      found.unblocks_at = found.unblocks_at ? std::min(*found.unblocks_at, *until) : *until;
      return;
    }
  }
  if (!h.is_order() && !revive_.has_room()) return;
  std::int64_t offset = start_offset(group, topic, queue, h.init_mode, retry);
  const std::int32_t want = h.max_msg_nums - found.count;
  store::GetMessageResult got =
      store_.get_messages(topic, QueueId(queue), QueueOffset(offset), want, filter.selects_all() ? nullptr : &filter);
  if (got.status == store::GetStatus::offset_too_small || got.status == store::GetStatus::offset_overflow_badly) {
    // The committed offset lies outside the queue (cleaned up, or the queue was cut): go on from
    // where the store says, as RocketMQ does.
    if (auto held = offset_moved_log_.admit(rt_.now())) {
      rt_.log().info("pop: {}@{} queue {} offset {} is outside [{}, {}]: moved to {}{}", topic, group, queue, offset,
                     got.min_offset.value(), got.max_offset.value(), got.next_begin_offset.value(), held_back_note(*held));
    }
    offset = got.next_begin_offset.value();
    (void)offsets_.commit(group, topic, QueueId(queue), QueueOffset(offset));
    got = store_.get_messages(topic, QueueId(queue), QueueOffset(offset), want, filter.selects_all() ? nullptr : &filter);
  }
  const std::int64_t next = got.next_begin_offset.value();
  if (got.messages.empty()) {
    // Nothing for this group past the filter: move on past what it skipped (no checkpoint needed).
    if (!h.is_order() && next > offset) (void)offsets_.commit_forward(group, topic, QueueId(queue), QueueOffset(next));
    found.rest += std::max<std::int64_t>(0, max_offset - std::max(offset, next));
    return;
  }
  PopQueueInfo info{.retry = retry, .queue_id = queue, .start_offset = offset, .msg_offsets = {}, .order_counts = {},
                    .order_count_least = 0};
  for (const QueueOffset o : got.queue_offsets) info.msg_offsets.push_back(o.value());
  if (h.is_order()) {
    info.order_counts =
        order_.handed_out(PopOrderManager::Key{topic, group, queue}, pop_time, h.invisible_time, info.msg_offsets, h.attempt_id);
    std::int32_t least = std::numeric_limits<std::int32_t>::max();
    for (const auto& [o, c] : info.order_counts) least = std::min(least, c);
    info.order_count_least = info.order_counts.empty() ? 0 : least;
  } else {
    PopCheckpoint ck;
    ck.key = PopCheckpointKey{topic, group, queue, offset, pop_time};
    ck.invisible_time = h.invisible_time;
    for (const std::int64_t o : info.msg_offsets) ck.offset_diffs.push_back(static_cast<std::int32_t>(o - offset));
    ck.broker_name = config_.broker_name;
    ck.revive_qid = revive_qid;
    if (Status s = revive_.open(std::move(ck)); !s.ok()) {
      // Nothing handed out, the offset stays: the next POP reads these again.
      if (auto held = checkpoint_error_log_.admit(rt_.now(), static_cast<std::int64_t>(s.error().code))) {
        rt_.log().warn("pop: {}@{} queue {}: the checkpoint was not stored ({}); nothing handed out{}", topic, group,
                       queue, s.error().to_string(), held_back_note(*held));
      }
      return;
    }
    (void)offsets_.commit_forward(group, topic, QueueId(queue), QueueOffset(next));
  }
  found.rest += std::max<std::int64_t>(0, max_offset - next);
  found.count += static_cast<std::int32_t>(got.messages.size());
  if (retry == PopRetry::none) {
    for (FileView& v : got.messages) found.views.push_back(std::move(v));
  } else {
    // A retried message goes out as the topic asked for, with its handle in POP_CK.
    for (std::size_t i = 0; i < got.messages.size(); ++i) {
      const RecordRead r = decode_record(got.messages[i].bytes(), RecordDecodeOptions{.check_crc = false});
      if (r.kind != RecordKind::message) {
        if (auto held = bad_record_log_.admit(rt_.now(), static_cast<std::int64_t>(r.kind))) {
          rt_.log().error("pop: {} queue {} offset {}: {} record ({}); handed out as stored{}", topic, queue,
                          info.msg_offsets[i], record_kind_name(r.kind), r.detail, held_back_note(*held));
        }
        found.views.push_back(std::move(got.messages[i]));
        continue;
      }
      RecordFields f = r.fields;
      const ReceiptHandle handle{.ck_offset = offset, .pop_time = pop_time, .invisible_time = h.invisible_time,
                                 .revive_qid = revive_qid, .retry = retry, .broker_name = config_.broker_name,
                                 .queue_id = queue, .queue_offset = info.msg_offsets[i]};
      Result<Properties> props = decode_properties(f.properties);
      std::string props_text;
      if (props.ok()) {
        props->set(kPropertyPopCk, handle.encode());
        auto encoded = encode_properties(*props);
        if (encoded.ok()) props_text = std::move(*encoded);
      }
      if (props_text.empty()) props_text = std::string(f.properties);
      f.topic = h.topic;
      f.properties = props_text;
      auto size = record_size(f);
      if (!size) {
        found.views.push_back(std::move(got.messages[i]));
        continue;
      }
      const std::size_t at = found.body.size();
      found.body.resize(at + *size);
      (void)encode_record(f, MutableBytes(found.body.data() + at, *size));
    }
  }
  found.queues.push_back(std::move(info));
}

RemotingCommand PopService::found_reply(const RemotingCommand& request, const PopMessageRequestHeader& h, Found found,
                                        WallMs pop_time, std::int32_t revive_qid) {
  PopMessageResponseHeader rh;
  rh.pop_time = pop_time;
  rh.invisible_time = h.invisible_time;
  rh.revive_qid = revive_qid;
  rh.rest_num = found.rest;
  rh.start_offset_info = encode_start_offset_info(found.queues);
  rh.msg_offset_info = encode_msg_offset_info(found.queues);
  if (h.is_order()) rh.order_count_info = encode_order_count_info(found.queues);
  RemotingCommand out = reply(request, code::SUCCESS, "FOUND");
  out.ext_fields = rh.to_fields();
  out.body = std::move(found.body);
  out.body_views = std::move(found.views);
  return out;
}

// ---- ACK_MESSAGE, BATCH_ACK_MESSAGE, CHANGE_MESSAGE_INVISIBLETIME -------------------------------

std::optional<RemotingCommand> PopService::check_target(const RemotingCommand& request, const std::string& topic,
                                                        QueueId queue, QueueOffset offset) {
  if (!master_) return reply(request, code::SERVICE_NOT_AVAILABLE, "the broker is a slave; acknowledge to its master");
  const TopicConfig* tc = topics_.find(topic);
  if (tc == nullptr) return reply(request, code::TOPIC_NOT_EXIST, fmt::format("topic[{}] not exist, apply first please!", topic));
  if (queue.value() < 0 || queue.value() >= tc->read_queue_nums) {
    return reply(request, code::MESSAGE_ILLEGAL,
                 fmt::format("queueId[{}] is illegal, topic:[{}] topicConfig.readQueueNums:[{}]", queue.value(), topic,
                             tc->read_queue_nums));
  }
  const std::int64_t min = store_.min_offset(topic, queue).value();
  const std::int64_t max = store_.max_offset(topic, queue).value();
  if (offset.value() < min || offset.value() > max) {
    return reply(request, code::NO_MESSAGE,
                 fmt::format("offset is illegal, key:{}@{}, store:{}~{}", topic, queue.value(), min, max));
  }
  return std::nullopt;
}

bool PopService::ack_order(const std::string& topic, const std::string& group, std::int32_t queue, WallMs pop_time,
                           std::int64_t offset) {
  const std::int64_t committed =
      offsets_.query(group, topic, QueueId(queue)).value_or(store_.min_offset(topic, QueueId(queue))).value();
  const PopOrderManager::Ack a = order_.ack(PopOrderManager::Key{topic, group, queue}, pop_time, offset, committed);
  if (a.outcome == PopOrderManager::AckOutcome::illegal) return false;
  if (a.outcome == PopOrderManager::AckOutcome::commit && a.next > committed) {
    if (Status s = offsets_.commit(group, topic, QueueId(queue), QueueOffset(a.next)); !s.ok()) {
      if (auto held = offset_error_log_.admit(rt_.now(), static_cast<std::int64_t>(s.error().code))) {
        rt_.log().warn("pop: FIFO ack of {}@{} queue {}: offset {} not stored: {}{}", topic, group, queue, a.next,
                       s.error().to_string(), held_back_note(*held));
      }
    }
    hold_.notify(topic, group);
  }
  return true;
}

Task<Reply> PopService::ack(RequestContext ctx) {
  const RemotingCommand& req = ctx.request;
  auto parsed = AckMessageRequestHeader::from_fields(req.ext_fields);
  if (!parsed) co_return bad_header(req, parsed.error());
  const AckMessageRequestHeader h = std::move(*parsed);
  if (auto refused = check_target(req, h.topic, h.queue_id, h.offset)) co_return std::move(*refused);
  auto handle = ReceiptHandle::parse(h.extra_info);
  if (!handle) co_return reply(req, code::SYSTEM_ERROR, handle.error().detail);
  if (handle->is_order()) {
    if (!ack_order(h.topic, h.consumer_group, h.queue_id.value(), handle->pop_time, h.offset.value())) {
      co_return reply(req, code::MESSAGE_ILLEGAL,
                      fmt::format("offset {} is not in the current FIFO batch of {}@{} queue {}", h.offset.value(),
                                  h.topic, h.consumer_group, h.queue_id.value()));
    }
    co_return reply(req, code::SUCCESS);
  }
  const PopCheckpointKey key{h.topic, h.consumer_group, h.queue_id.value(), handle->ck_offset, handle->pop_time};
  const std::int64_t offset = h.offset.value();
  auto acked = revive_.ack(key, std::span<const std::int64_t>(&offset, 1));
  if (!acked) co_return reply(req, code::SERVICE_NOT_AVAILABLE, acked.error().detail);
  co_return reply(req, code::SUCCESS);
}

Task<Reply> PopService::batch_ack(RequestContext ctx) {
  const RemotingCommand& req = ctx.request;
  if (!master_) co_return reply(req, code::SERVICE_NOT_AVAILABLE, "the broker is a slave; acknowledge to its master");
  auto body = remoting::body::BatchAckMessageRequestBody::decode(req.body);
  if (!body) co_return reply(req, code::SYSTEM_ERROR, body.error().detail);
  if (body->acks.empty()) co_return reply(req, code::NO_MESSAGE, "no ack in the body");
  for (const remoting::body::BatchAck& a : body->acks) {
    const std::string topic = pop_real_topic(a.topic, a.consumer_group, a.retry);
    const TopicConfig* tc = topics_.find(topic);
    if (tc == nullptr || a.queue_id < 0 || a.queue_id >= tc->read_queue_nums) continue;
    const std::int64_t min = store_.min_offset(topic, QueueId(a.queue_id)).value();
    const std::int64_t max = store_.max_offset(topic, QueueId(a.queue_id)).value();
    std::vector<std::int64_t> offsets;
    for (const std::int64_t o : a.offsets) {
      if (o >= min && o <= max) offsets.push_back(o);
    }
    if (offsets.empty()) continue;
    if (a.revive_qid == kPopOrderReviveQueue) {
      for (const std::int64_t o : offsets) (void)ack_order(topic, a.consumer_group, a.queue_id, a.pop_time, o);
      continue;
    }
    const PopCheckpointKey key{topic, a.consumer_group, a.queue_id, a.start_offset, a.pop_time};
    if (auto acked = revive_.ack(key, offsets); !acked) {
      co_return reply(req, code::SERVICE_NOT_AVAILABLE, acked.error().detail);
    }
  }
  co_return reply(req, code::SUCCESS);
}

Task<Reply> PopService::change_invisible(RequestContext ctx) {
  const RemotingCommand& req = ctx.request;
  auto parsed = ChangeInvisibleTimeRequestHeader::from_fields(req.ext_fields);
  if (!parsed) co_return bad_header(req, parsed.error());
  const ChangeInvisibleTimeRequestHeader h = std::move(*parsed);
  if (h.invisible_time < 0 || h.invisible_time > to_ms(config_.pop_invisible_time_max)) {
    co_return reply(req, code::SYSTEM_ERROR,
                    fmt::format("ChangeInvisibleTimeRequestHeader: field invisibleTime = {} is not in 0..{} ms",
                                h.invisible_time, to_ms(config_.pop_invisible_time_max)));
  }
  if (auto refused = check_target(req, h.topic, h.queue_id, h.offset)) co_return std::move(*refused);
  auto handle = ReceiptHandle::parse(h.extra_info);
  if (!handle) co_return reply(req, code::SYSTEM_ERROR, handle.error().detail);
  const WallMs now = rt_.wall_ms();
  const std::int64_t offset = h.offset.value();
  ChangeInvisibleTimeResponseHeader rh;
  if (handle->is_order()) {
    const PopOrderManager::Key key{h.topic, h.consumer_group, h.queue_id.value()};
    if (order_.change_invisible(key, handle->pop_time, offset, now + h.invisible_time)) {
      hold_.notify(h.topic, h.consumer_group);  // parked FIFO POPs look at the queue's new visibility
    } else {
      co_return reply(req, code::NO_MESSAGE,
                      fmt::format("offset {} is not in the current FIFO batch of {}@{} queue {} popped at {}", offset,
                                  h.topic, h.consumer_group, h.queue_id.value(), handle->pop_time));
    }
    rh.pop_time = handle->pop_time;
    rh.invisible_time = now + h.invisible_time - handle->pop_time;
    rh.revive_qid = kPopOrderReviveQueue;
    RemotingCommand out = reply(req, code::SUCCESS);
    out.ext_fields = rh.to_fields();
    co_return out;
  }
  const PopCheckpointKey old_key{h.topic, h.consumer_group, h.queue_id.value(), handle->ck_offset, handle->pop_time};
  const PopCheckpoint* old = revive_.find(old_key);
  const std::int32_t index = old != nullptr ? old->index_of(offset) : -1;
  if (index < 0 || (old->acked_bits & (1u << index)) != 0) {
    co_return reply(req, code::NO_MESSAGE,
                    fmt::format("the receipt handle of {}@{} queue {} offset {} is stale: acknowledged, or its message "
                                "came back already", h.topic, h.consumer_group, h.queue_id.value(), offset));
  }
  PopCheckpoint ck;
  ck.key = PopCheckpointKey{h.topic, h.consumer_group, h.queue_id.value(), offset, now};
  while (revive_.find(ck.key) != nullptr) ++ck.key.pop_time;  // a change in the same millisecond
  ck.invisible_time = h.invisible_time;
  ck.offset_diffs = {0};
  ck.broker_name = config_.broker_name;
  ck.revive_qid = handle->revive_qid >= 0 && handle->revive_qid < config_.revive_queue_num ? handle->revive_qid : 0;
  const WallMs new_pop_time = ck.key.pop_time;
  const std::int32_t revive_qid = ck.revive_qid;
  if (Status s = revive_.open(std::move(ck)); !s.ok()) {
    co_return reply(req, code::SYSTEM_ERROR, fmt::format("the new checkpoint was not stored: {}", s.error().detail));
  }
  if (auto acked = revive_.ack(old_key, std::span<const std::int64_t>(&offset, 1)); !acked) {
    if (auto held = checkpoint_error_log_.admit(rt_.now(), static_cast<std::int64_t>(acked.error().code))) {
      rt_.log().warn("pop: change of {}@{} queue {} offset {}: the old handle's ack was not stored ({}); the message "
                     "may come back twice{}", h.topic, h.consumer_group, h.queue_id.value(), offset, acked.error().detail,
                     held_back_note(*held));
    }
  }
  rh.pop_time = new_pop_time;
  rh.invisible_time = h.invisible_time;
  rh.revive_qid = revive_qid;
  RemotingCommand out = reply(req, code::SUCCESS);
  out.ext_fields = rh.to_fields();
  co_return out;
}

}  // namespace ferry::broker
