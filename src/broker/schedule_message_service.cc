#include "broker/schedule_message_service.h"

#include <fmt/format.h>

#include "broker/stored_message.h"
#include "common/message_const.h"
#include "common/names.h"
#include "remoting/body/body_json.h"
#include "remoting/json/json_reader.h"
#include "remoting/json/json_text.h"

namespace ferry::broker {

namespace json = remoting::json;

ScheduleMessageService::ScheduleMessageService(Runtime& rt, const BrokerConfig& config, store::MessageStore& store)
    : rt_(rt), config_(config), store_(store),
      file_(rt, fmt::format("{}/{}", config.config_dir, kDelayOffsetFileName), "delay offsets", offsets_,
            {.encode = &ScheduleMessageService::encode, .decode = &ScheduleMessageService::decode}) {
  for (std::size_t i = 0; i < config.message_delay_levels.size(); ++i) wake_.push_back(std::make_unique<WakeSignal>(rt));
}

Status ScheduleMessageService::load() {
  auto r = file_.load();
  if (!r) return std::move(r).error();
  if (r->has_value()) {
    offsets_ = std::move((*r)->state);
    rt_.log().info("delay offsets: loaded {} levels from {}{}", offsets_.size(), file_.path(),
                   (*r)->from_backup ? " (backup)" : "");
  }
  return Status();
}

void ScheduleMessageService::start() {
  paused_ = false;
  if (started_) {
    for (auto& w : wake_) w->wake();
    return;
  }
  started_ = true;
  for (std::int32_t level = 1; level <= static_cast<std::int32_t>(wake_.size()); ++level) {
    rt_.spawn(run_level(this, level), fmt::format("schedule-level-{}", level));
  }
  rt_.spawn(run_persist_loop(this), "persist-delay-offsets");
}

void ScheduleMessageService::stop() {
  stopped_ = true;
  for (auto& w : wake_) w->wake();
}

void ScheduleMessageService::on_arrival(QueueId queue) {
  if (queue.value() < 0 || queue.value() >= static_cast<std::int32_t>(wake_.size())) return;
  wake_[static_cast<std::size_t>(queue.value())]->wake();
}

Task<void> ScheduleMessageService::run_level(ScheduleMessageService* self, std::int32_t level) {
  WakeSignal& wake = *self->wake_[static_cast<std::size_t>(level - 1)];
  while (!self->stopped_) {
    if (self->paused_) {
      (void)co_await wake.wait_for(kIdleRecheckInterval);
      continue;
    }
    const Duration wait = self->step(level);
    if (self->stopped_) break;
    if (wait <= Duration::zero()) {
      co_await self->rt_.sleep(Duration::zero());  // yield to the rest of the node
      continue;
    }
    // buggify: the level's timer wakes early; step() delivers only what is due and waits again.
    const Duration waited =
        FERRY_BUGGIFY(self->rt_) ? std::chrono::milliseconds(self->rt_.random().between(0, to_ms(wait))) : wait;
    Task<bool> woken = wake.wait_for(waited);
    (void)co_await std::move(woken);
  }
}

Duration ScheduleMessageService::step(std::int32_t level) {
  const std::string topic(kScheduleTopic);
  const QueueId queue(level - 1);
  store::ConsumeQueue* q = store_.find_queue(topic, queue);
  if (q == nullptr) return kIdleRecheckInterval;
  const std::int64_t delay_ms = to_ms(config_.message_delay_levels[static_cast<std::size_t>(level - 1)]);
  const QueueOffset from(offsets_[level]);
  QueueOffset at = std::max(from, q->min_offset());
  auto save = [&] {
    if (at != from) {
      offsets_[level] = at.value();
      file_.changed();
    }
  };
  for (std::int32_t n = 0; n < kDeliveriesPerStepMax; ++n) {
    q = store_.find_queue(topic, queue);
    if (q == nullptr || at >= q->max_offset()) {
      save();
      return kIdleRecheckInterval;
    }
    auto unit = q->read(at);
    if (!unit) {
      if (auto held = bad_record_log_.admit(rt_.now(), 1)) {
        rt_.log().error("schedule level {}: unit {} unreadable ({}): skipped{}", level, at, unit.error().to_string(),
                        held_back_note(*held));
      }
      at += 1;
      continue;
    }
    if (!unit->is_message()) {
      at += 1;
      continue;
    }
    const WallMs now = rt_.wall_ms();
    WallMs due = unit->tags_code;
    if (due > now + delay_ms) due = now;  // the clock went back: deliver now
    if (due > now) {
      save();
      return std::chrono::milliseconds(due - now);
    }
    if (!deliver(level, *unit)) {
      save();
      return kPutRetryInterval;
    }
    at += 1;
  }
  save();
  return Duration::zero();
}

bool ScheduleMessageService::deliver(std::int32_t level, const store::cq::Unit& unit) {
  auto looked = look_message(store_, unit.commit_log_offset);
  if (!looked) {
    if (auto held = bad_record_log_.admit(rt_.now(), 2)) {
      rt_.log().warn("schedule level {}: message at {} is gone ({}): skipped{}", level, unit.commit_log_offset,
                     looked.error().to_string(), held_back_note(*held));
    }
    return true;
  }
  MessageExt m = std::move(*looked);
  const auto real_topic = m.real_topic();
  const auto real_queue = m.real_queue_id();
  if (!real_topic || real_topic->empty() || !real_queue.ok() || !real_queue->has_value()) {
    if (auto held = bad_record_log_.admit(rt_.now(), 3)) {
      rt_.log().error("schedule level {}: message {} has no usable REAL_TOPIC/REAL_QID: skipped{}", level,
                      m.offset_msg_id, held_back_note(*held));
    }
    return true;
  }
  const std::string topic(*real_topic);
  const QueueId queue = **real_queue;
  (void)m.properties.erase(prop::kDelay);
  auto props = encode_properties(m.properties);
  if (!props) {
    if (auto held = bad_record_log_.admit(rt_.now(), 4)) {
      rt_.log().error("schedule level {}: message {}: {}: skipped{}", level, m.offset_msg_id, props.error().to_string(),
                      held_back_note(*held));
    }
    return true;
  }
  const store::PutRequest req = copy_of(m, topic, queue, *props, m.reconsume_times);
  const store::PutResult put = store_.put_message(req);
  if (!put.stored()) {
    if (auto held = deliver_error_log_.admit(rt_.now(), static_cast<std::int64_t>(put.status))) {
      rt_.log().warn("schedule level {}: delivering {} to {}/{} failed: {} {}{}", level, m.offset_msg_id, topic, queue,
                     store::put_status_name(put.status), put.detail, held_back_note(*held));
    }
    const bool hopeless = put.status == store::PutStatus::message_illegal ||
                          put.status == store::PutStatus::properties_size_exceeded;
    return hopeless;
  }
  ++delivered_;
  return true;
}

bool ScheduleMessageService::replace_offsets(DelayOffsetTable offsets) {
  if (offsets == offsets_) return false;
  offsets_ = std::move(offsets);
  file_.changed();
  return true;
}

Task<void> ScheduleMessageService::run_persist_loop(ScheduleMessageService* self) {
  while (!self->stopped_) {
    co_await self->rt_.sleep(self->config_.flush_delay_offset_interval);
    if (self->stopped_ || !self->file_.dirty()) continue;
    Task<Status> persist = self->persist();
    Status s = co_await std::move(persist);
    if (!s) {
      if (auto held = self->persist_error_log_.admit(self->rt_.now(), static_cast<std::int64_t>(s.error().code))) {
        self->rt_.log().error("delay offsets: persisting failed: {}{}", s.error().to_string(), held_back_note(*held));
      }
    }
  }
}

Task<Status> ScheduleMessageService::persist() {
  JsonStateFile<DelayOffsetTable>::Snapshot snapshot = file_.snapshot();
  Task<store::PutStatus> synced = store_.wait_durable(store_.max_phy_offset());
  const store::PutStatus durable = co_await std::move(synced);
  if (durable != store::PutStatus::ok) {
    if (const std::optional<Error>& failed = store_.flusher().sync_failure()) {
      co_return Error(Errc::io_error, "delay offsets not written: a CommitLog sync failed: " + failed->detail);
    }
    co_return Error(Errc::timed_out, "delay offsets not written: the CommitLog did not sync in time");
  }
  Task<Status> w = file_.write(std::move(snapshot));
  co_return co_await std::move(w);
}

std::string ScheduleMessageService::encode(const DelayOffsetTable& t) {
  std::vector<std::uint8_t> bytes = remoting::body::write_body([&](json::Writer& w) {
    w.StartObject();
    json::write_key(w, "offsetTable");
    write_offset_map(w, t);
    w.EndObject();
  });
  return std::string(bytes.begin(), bytes.end());
}

Status ScheduleMessageService::decode(std::string_view text, DelayOffsetTable& t) {
  return decode_from(kDelayOffsetFileName, text, t);
}

Status ScheduleMessageService::decode_from(std::string_view source, std::string_view text, DelayOffsetTable& t,
                                           std::int32_t levels_max) {
  // Any level a configured table may have: a table shortened since, or a master's longer one
  // (a slave's copy), keeps its offsets; levels past this broker's table are not delivered.
  const std::string rule = fmt::format("in 1..{}", levels_max);
  const OffsetMapKeys levels{"level", rule, 1, levels_max};
  auto doc = json::parse(text, json::Numbers::typed, source);
  if (!doc) return std::move(doc).error();
  json::JsonErrors errors;
  json::ObjectReader r(*doc, std::string(source), errors);
  if (const rapidjson::Value* table = r.object("offsetTable")) {
    read_offset_map(*table, r.path_of("offsetTable"), levels, t, errors);
  }
  if (errors.failed()) return errors.take();
  return Status();
}

}  // namespace ferry::broker
