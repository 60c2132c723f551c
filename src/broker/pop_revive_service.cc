#include "broker/pop_revive_service.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "broker/retry_topics.h"
#include "broker/stored_message.h"
#include "common/message_const.h"
#include "common/names.h"
#include "common/permission.h"
#include "common/pop_receipt.h"

namespace ferry::broker {

PopReviveService::PopReviveService(Runtime& rt, const BrokerConfig& config, store::MessageStore& store,
                                   TopicConfigManager& topics, ConsumerOffsetManager& offsets,
                                   SubscriptionGroupManager& groups)
    : rt_(rt), config_(config), store_(store), topics_(topics), offsets_(offsets), groups_(groups),
      topic_(revive_topic(config.broker_cluster_name)),
      open_log_offsets_(static_cast<std::size_t>(std::max(1, config.revive_queue_num))),
      committed_(static_cast<std::size_t>(std::max(1, config.revive_queue_num))),
      wake_(rt) {}

void PopReviveService::start(bool active) {
  FERRY_ASSERT(!started_, "PopReviveService started twice");
  started_ = true;
  set_active(active);
  rt_.spawn(run_loop(this), "pop-revive");
}

void PopReviveService::set_active(bool active) {
  if (active == active_) return;
  active_ = active;
  open_.clear();
  due_.clear();
  for (auto& s : open_log_offsets_) s.clear();
  for (auto& c : committed_) c.reset();
  if (!active) return;
  if (Status s = replay(); !s.ok()) {
    rt_.log().error("pop: replaying the revive log failed ({}); checkpoints it held will not come back",
                    s.error().to_string());
  }
  wake_.wake();
}

void PopReviveService::stop() {
  stopped_ = true;
  if (active_) commit_progress();
  wake_.wake();
}

Result<std::int64_t> PopReviveService::put_record(std::int32_t revive_qid, std::string_view tag, const std::string& body) {
  (void)ensure_topic(topics_, topic_, config_.revive_queue_num, perm::kReadWrite, 0);
  Message m;
  m.set_tags(tag);
  Result<std::string> props = encode_properties(m.properties);
  FERRY_ASSERT(props.ok(), "one TAGS property always encodes: {}", props.ok() ? "" : props.error().detail);
  store::PutRequest req;
  req.topic = topic_;
  req.queue_id = QueueId(revive_qid);
  req.body = as_bytes(body);
  req.properties = *props;
  req.born_timestamp_ms = rt_.wall_ms();
  req.born_host = store_.config().store_host;
  const store::PutResult put = store_.put_message(req);
  if (!put.stored()) {
    return Error(Errc::busy, fmt::format("storing a revive-log record failed: {} {}", store::put_status_name(put.status),
                                         put.detail));
  }
  return put.queue_offset.value();
}

Status PopReviveService::open(PopCheckpoint ck) {
  if (!active_) return Error(Errc::invalid_argument, "POP checkpoints are kept by a master only");
  if (!has_room()) {
    return Error(Errc::busy, fmt::format("{} POP checkpoints open (popCkMaxBufferSize)", open_.size()));
  }
  FERRY_ASSERT(ck.revive_qid >= 0 && ck.revive_qid < config_.revive_queue_num, "revive queue {} of {}", ck.revive_qid,
               config_.revive_queue_num);
  if (open_.contains(ck.key)) {
    return Error(Errc::invalid_argument,
                 fmt::format("a checkpoint of {}@{} queue {} from {} popped at {} is open already", ck.key.topic,
                             ck.key.group, ck.key.queue_id, ck.key.start_offset, ck.key.pop_time));
  }
  auto at = put_record(ck.revive_qid, kReviveTagCheckpoint, encode_checkpoint(ck));
  if (!at) return at.error();
  keep(std::move(ck), *at);
  return Status();
}

void PopReviveService::keep(PopCheckpoint ck, std::int64_t log_offset) {
  const auto q = static_cast<std::size_t>(ck.revive_qid);
  if (q >= open_log_offsets_.size()) {
    if (auto held = bad_record_log_.admit(rt_.now(), 7)) {
      rt_.log().warn("pop: a checkpoint in revive queue {} (reviveQueueNum is {}) is ignored{}", ck.revive_qid,
                     config_.revive_queue_num, held_back_note(*held));
    }
    return;
  }
  if (ck.all_acked()) return;
  if (open_.empty() && !dirty_) wake_.wake();  // the loop was idle
  dirty_ = true;
  due_.emplace(ck.revive_time(), ck.key);
  open_log_offsets_[q].insert(log_offset);
  PopCheckpointKey key = ck.key;
  open_.emplace(std::move(key), Open{std::move(ck), log_offset});
}

void PopReviveService::close(const PopCheckpointKey& key) {
  auto it = open_.find(key);
  if (it == open_.end()) return;
  dirty_ = true;
  due_.erase({it->second.ck.revive_time(), key});
  open_log_offsets_[static_cast<std::size_t>(it->second.ck.revive_qid)].erase(it->second.log_offset);
  open_.erase(it);
}

const PopCheckpoint* PopReviveService::find(const PopCheckpointKey& key) const {
  auto it = open_.find(key);
  return it == open_.end() ? nullptr : &it->second.ck;
}

Result<std::int32_t> PopReviveService::ack(const PopCheckpointKey& key, std::span<const std::int64_t> offsets) {
  auto it = open_.find(key);
  if (it == open_.end()) return 0;
  PopCheckpoint& ck = it->second.ck;
  PopAckRecord record{.key = key, .broker_name = ck.broker_name, .offsets = {}};
  std::uint32_t bits = 0;
  for (const std::int64_t o : offsets) {
    const std::int32_t i = ck.index_of(o);
    if (i < 0 || ((ck.acked_bits | bits) & (1u << i)) != 0) continue;
    bits |= 1u << i;
    record.offsets.push_back(o);
  }
  if (bits == 0) return 0;
  auto at = put_record(ck.revive_qid, kReviveTagAck, encode_ack(record));
  if (!at) return at.error();
  ck.acked_bits |= bits;
  if (ck.all_acked()) close(key);
  return static_cast<std::int32_t>(record.offsets.size());
}

PopReviveService::Reput PopReviveService::reput(const PopCheckpoint& ck, std::int64_t queue_offset) {
  store::ConsumeQueue* q = store_.find_queue(ck.key.topic, QueueId(ck.key.queue_id));
  if (q == nullptr || queue_offset < q->min_offset().value() || queue_offset >= q->max_offset().value()) return Reput::gone;
  auto unit = q->read(QueueOffset(queue_offset));
  if (!unit || !unit->is_message()) return Reput::gone;
  auto looked = look_message(store_, unit->commit_log_offset);
  if (!looked) return Reput::gone;
  MessageExt m = std::move(*looked);
  const SubscriptionGroupConfig* group = groups_.find(ck.key.group);
  const std::int32_t max_reconsume = group != nullptr ? group->retry_max_times : kRetryMaxTimesDefault;
  const bool dlq = m.reconsume_times >= max_reconsume;
  const PopRetry kind = pop_retry_of(ck.key.topic);
  const std::string origin = kind == PopRetry::none ? ck.key.topic : std::string(m.retry_topic().value_or(ck.key.topic));
  std::string target;
  const TopicConfig* tc = nullptr;
  if (dlq) {
    target = dlq_topic(ck.key.group);
    tc = ensure_topic(topics_, target, kDlqQueueNums, perm::kReadWrite, 0);
  } else {
    target = kind != PopRetry::none
                 ? ck.key.topic
                 : pop_retry_topic(ck.key.group, ck.key.topic, config_.enable_retry_topic_v2 ? PopRetry::v2 : PopRetry::v1);
    tc = ensure_topic(topics_, target, 1, perm::kReadWrite, 0);
  }
  if (tc == nullptr || !perm::is_writeable(tc->perm)) {
    if (auto held = reput_error_log_.admit(rt_.now(), -1)) {
      rt_.log().warn("pop: {} is not writable; message {} of {} waits{}", target, queue_offset, ck.key.topic,
                     held_back_note(*held));
    }
    return Reput::failed;
  }
  if (!m.retry_topic()) m.set_retry_topic(origin);
  if (!m.properties.get(kPropertyFirstPopTime)) m.properties.set(kPropertyFirstPopTime, std::to_string(ck.key.pop_time));
  if (dlq && (!m.origin_message_id() || m.origin_message_id()->empty())) m.set_origin_message_id(m.offset_msg_id);
  auto props = encode_properties(m.properties);
  if (!props) {
    if (auto held = bad_record_log_.admit(rt_.now(), 1)) {
      rt_.log().error("pop: message {} of {} has properties that do not encode ({}): not revived{}", queue_offset,
                      ck.key.topic, props.error().detail, held_back_note(*held));
    }
    return Reput::gone;
  }
  const std::int32_t next =
      m.reconsume_times == std::numeric_limits<std::int32_t>::max() ? m.reconsume_times : m.reconsume_times + 1;
  const store::PutResult put = store_.put_message(copy_of(m, target, QueueId(0), *props, next));
  if (!put.stored()) {
    if (auto held = reput_error_log_.admit(rt_.now(), static_cast<std::int64_t>(put.status))) {
      rt_.log().warn("pop: re-putting message {} of {} to {} failed ({} {}); retried next round{}", queue_offset,
                     ck.key.topic, target, store::put_status_name(put.status), put.detail, held_back_note(*held));
    }
    return Reput::failed;
  }
  if (dlq) {
    ++dead_lettered_;
    if (on_dlq_) on_dlq_(ck.key.group, origin);  // the topic it was consumed from, not the POP retry topic
  } else {
    ++revived_messages_;
  }
  return Reput::done;
}

bool PopReviveService::revive(Open& o) {
  PopCheckpoint& ck = o.ck;
  bool failed = false;
  for (std::int32_t i = 0; i < ck.count(); ++i) {
    if ((ck.acked_bits & (1u << i)) != 0) continue;
    const std::int64_t offset = ck.key.start_offset + ck.offset_diffs[static_cast<std::size_t>(i)];
    const Reput r = reput(ck, offset);
    if (r == Reput::failed) {
      failed = true;
      continue;
    }
    if (r == Reput::gone) {
      if (auto held = bad_record_log_.admit(rt_.now(), 2)) {
        rt_.log().warn("pop: message {} of {} is no longer stored: not revived for {}{}", offset, ck.key.topic,
                       ck.key.group, held_back_note(*held));
      }
    }
    ck.acked_bits |= 1u << i;  // in memory only: not re-put twice by this run
  }
  if (failed) {
    ++ck.reput_times;
    return false;
  }
  PopAckRecord mark{.key = ck.key, .broker_name = ck.broker_name, .offsets = {}};
  if (auto at = put_record(ck.revive_qid, kReviveTagRevived, encode_ack(mark)); !at) {
    if (auto held = mark_error_log_.admit(rt_.now(), static_cast<std::int64_t>(at.error().code))) {
      rt_.log().warn("pop: the revived mark of {}@{} queue {} from {} was not stored ({}); a restart revives it "
                     "again{}", ck.key.topic, ck.key.group, ck.key.queue_id, ck.key.start_offset, at.error().detail,
                     held_back_note(*held));
    }
  }
  return true;
}

void PopReviveService::revive_due(WallMs now_ms) {
  if (!active_) return;
  std::vector<PopCheckpointKey> due;
  for (const auto& [when, key] : due_) {
    if (when > now_ms) break;
    due.push_back(key);
  }
  for (const PopCheckpointKey& key : due) {
    auto it = open_.find(key);
    if (it == open_.end()) continue;
    if (revive(it->second)) close(key);
  }
  commit_progress();
}

void PopReviveService::commit_progress() {
  dirty_ = false;
  for (std::size_t q = 0; q < open_log_offsets_.size(); ++q) {
    store::ConsumeQueue* cq = store_.find_queue(topic_, QueueId(static_cast<std::int32_t>(q)));
    if (cq == nullptr) continue;
    // Everything below it is settled. The queue's end may lag a record just stored (under
    // SYNC_FLUSH the ConsumeQueue takes it once it is durable): never back below what was
    // committed already, which was settled then and stays so.
    const std::int64_t progress = std::max(
        open_log_offsets_[q].empty() ? cq->max_offset().value() : *open_log_offsets_[q].begin(), committed_[q].value_or(0));
    if (committed_[q] == progress) continue;
    if (Status s = offsets_.commit(kReviveGroup, topic_, QueueId(static_cast<std::int32_t>(q)), QueueOffset(progress));
        !s.ok()) {
      if (auto held = progress_error_log_.admit(rt_.now(), static_cast<std::int64_t>(s.error().code))) {
        rt_.log().warn("pop: committing revive progress {} of queue {} failed: {}{}", progress, q, s.error().to_string(),
                       held_back_note(*held));
      }
      continue;
    }
    committed_[q] = progress;
  }
}

void PopReviveService::apply_replayed(std::int32_t revive_qid, std::int64_t log_offset, const MessageExt& record) {
  const std::string_view tag = record.tags().value_or("");
  const std::string_view body(reinterpret_cast<const char*>(record.body.data()), record.body.size());
  if (tag == kReviveTagCheckpoint) {
    auto ck = decode_checkpoint(body);
    if (!ck) {
      if (auto held = bad_record_log_.admit(rt_.now(), 3)) {
        rt_.log().error("pop: revive queue {} record {} is not a checkpoint ({}): skipped{}", revive_qid, log_offset,
                        ck.error().detail, held_back_note(*held));
      }
      return;
    }
    ck->revive_qid = revive_qid;
    if (!open_.contains(ck->key)) keep(std::move(*ck), log_offset);
    return;
  }
  if (tag == kReviveTagAck || tag == kReviveTagRevived) {
    auto ack = decode_ack(body);
    if (!ack) {
      if (auto held = bad_record_log_.admit(rt_.now(), 4)) {
        rt_.log().error("pop: revive queue {} record {} is not an ack ({}): skipped{}", revive_qid, log_offset,
                        ack.error().detail, held_back_note(*held));
      }
      return;
    }
    auto it = open_.find(ack->key);
    if (it == open_.end()) return;  // closed before, or its checkpoint lies before the progress offset
    if (tag == kReviveTagRevived) {
      close(ack->key);
      return;
    }
    for (const std::int64_t o : ack->offsets) {
      const std::int32_t i = it->second.ck.index_of(o);
      if (i >= 0) it->second.ck.acked_bits |= 1u << i;
    }
    if (it->second.ck.all_acked()) close(ack->key);
    return;
  }
  if (auto held = bad_record_log_.admit(rt_.now(), 5)) {
    rt_.log().warn("pop: revive queue {} record {} has tag \"{}\": skipped{}", revive_qid, log_offset, tag,
                   held_back_note(*held));
  }
}

Status PopReviveService::replay() {
  for (std::int32_t q = 0; q < static_cast<std::int32_t>(open_log_offsets_.size()); ++q) {
    store::ConsumeQueue* cq = store_.find_queue(topic_, QueueId(q));
    if (cq == nullptr) continue;
    const std::int64_t min = cq->min_offset().value();
    const std::int64_t max = cq->max_offset().value();
    const std::optional<QueueOffset> progress = offsets_.query(kReviveGroup, topic_, QueueId(q));
    std::int64_t at = std::clamp(progress ? progress->value() : min, min, max);
    if (progress && progress->value() < min) {
      rt_.log().warn("pop: revive queue {} was cleaned past its progress offset {} (now from {}): checkpoints in "
                     "between are lost", q, progress->value(), min);
    }
    for (; at < max; ++at) {
      auto unit = cq->read(QueueOffset(at));
      if (!unit) return Error(Errc::corrupt, fmt::format("revive queue {} unit {}: {}", q, at, unit.error().to_string()));
      if (!unit->is_message()) continue;
      auto record = look_message(store_, unit->commit_log_offset);
      if (!record) {
        if (auto held = bad_record_log_.admit(rt_.now(), 6)) {
          rt_.log().error("pop: revive queue {} record {} unreadable ({}): skipped{}", q, at, record.error().to_string(),
                          held_back_note(*held));
        }
        continue;
      }
      ++replayed_records_;
      apply_replayed(q, at, *record);
    }
  }
  if (!open_.empty()) {
    rt_.log().info("pop: {} checkpoint(s) open after replaying the revive log ({} records)", open_.size(),
                   replayed_records_);
  }
  return Status();
}

Task<void> PopReviveService::run_loop(PopReviveService* self) {
  while (!self->stopped_) {
    // Idle (nothing open, the progress committed): no wake-up until open() or a role change.
    const bool idle = self->open_.empty() && !self->dirty_;
    Task<bool> woken = self->wake_.wait_for(idle ? kIdleWait : self->config_.revive_interval);
    (void)co_await std::move(woken);
    if (self->stopped_) break;
    self->revive_due(self->rt_.wall_ms());
  }
}

}  // namespace ferry::broker
