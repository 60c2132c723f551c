#include "broker/timer_message_service.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <limits>

#include "broker/stored_message.h"
#include "common/message_const.h"
#include "common/names.h"
#include "common/properties.h"
#include "remoting/body/body_json.h"
#include "remoting/json/json_reader.h"
#include "remoting/json/json_text.h"
#include "store/file_names.h"
#include "store/property_scan.h"

namespace ferry::broker {

namespace json = remoting::json;
using store::timer::Entry;
using store::timer::kEntryBytes;
using store::timer::kNoEntry;

namespace {

std::string timer_log_dir(const BrokerConfig& c) { return store::join_path(c.store.root, "timerlog"); }

std::optional<std::int64_t> parse_i64(std::string_view text) {
  std::int64_t v = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || p != text.data() + text.size()) return std::nullopt;
  return v;
}

}  // namespace

TimerMessageService::TimerMessageService(Runtime& rt, const BrokerConfig& config, store::MessageStore& store)
    : rt_(rt), config_(config), store_(store),
      log_(rt.fs(), timer_log_dir(config), config.timer_log_entries_per_file),
      file_(rt, fmt::format("{}/{}", config.config_dir, kTimerCheckpointFileName), "timer checkpoint", boundary_,
            {.encode = &TimerMessageService::encode, .decode = &TimerMessageService::decode}),
      enqueue_wake_(rt), dequeue_wake_(rt) {}

std::int64_t TimerMessageService::wheel_slots() const {
  const std::int64_t needed = config_.timer_max_delay_sec * 1000 / config_.timer_precision_ms + 2;
  return std::clamp<std::int64_t>(needed, 2, config_.timer_wheel_slots_max);
}

std::int64_t TimerMessageService::floor_slot(std::int64_t ms) const {
  const std::int64_t p = config_.timer_precision_ms;
  return (ms >= 0 ? ms / p : (ms - p + 1) / p) * p;
}

WallMs TimerMessageService::now_ms() const { return anchor_wall_ + to_ms(rt_.now() - anchor_mono_); }

Status TimerMessageService::load() {
  const MonoTime began = rt_.now();
  auto loaded = file_.load();
  if (!loaded) return std::move(loaded).error();
  FERRY_TRY(log_.load());
  const std::string timer_topic(kTimerTopic);
  const QueueOffset queue_min = store_.min_offset(timer_topic, QueueId(0));
  const QueueOffset queue_max = store_.max_offset(timer_topic, QueueId(0));
  std::optional<std::string> why;
  if (!loaded->has_value()) {
    why = "no checkpoint";
  } else {
    const TimerCheckpoint& c = (*loaded)->state;
    if (c.precision_ms != config_.timer_precision_ms || c.wheel_slots != wheel_slots()) {
      why = fmt::format("the checkpoint's wheel ({} slots of {} ms) is not this one ({} of {} ms)", c.wheel_slots,
                        c.precision_ms, wheel_slots(), config_.timer_precision_ms);
    } else if (log_.max_offset() < c.timer_log_length) {
      why = fmt::format("the TimerLog holds {} bytes, the checkpoint says {}", log_.max_offset(), c.timer_log_length);
    } else if (c.enqueue_offset > queue_max.value()) {
      why = fmt::format("the timer queue ends at {}, the checkpoint enqueued up to {}", queue_max.value(),
                        c.enqueue_offset);
    } else if (c.log_end > store_.max_phy_offset().value()) {
      why = fmt::format("the CommitLog ends at {}, the checkpoint saw {}", store_.max_phy_offset().value(), c.log_end);
    }
  }
  // The timer clock never starts behind the slots already delivered.
  const std::int64_t next_slot = loaded->has_value() ? (*loaded)->state.next_slot_ms : 0;
  anchor_wall_ = std::max(rt_.wall_ms(), next_slot);
  anchor_mono_ = rt_.now();
  if (why) {
    FERRY_TRY(rebuild_from_scratch(*why));
  } else {
    boundary_ = (*loaded)->state;
    persisted_ = boundary_;
    FERRY_TRY(log_.truncate(boundary_.timer_log_length));
    enqueue_offset_ = std::max(boundary_.enqueue_offset, queue_min.value());
    wheel_ = std::make_unique<store::timer::TimerWheel>(config_.timer_precision_ms, wheel_slots(),
                                                        boundary_.next_slot_ms);
    if (Status s = recover_wheel(); !s.ok()) {
      FERRY_TRY(rebuild_from_scratch(s.error().detail));
    } else {
      scan_delivered(PhysicalOffset(boundary_.log_end));
    }
  }
  recovery_time_ = rt_.now() - began;
  rt_.log().info(
      "timers: {} pending in {} TimerLog bytes, next slot {}, enqueue offset {}, {} delivered copies found past {} "
      "(recovered in {} ms)",
      wheel_->pending(), timer_log_bytes(), wheel_->current(), enqueue_offset_, delivered_sources_.size(),
      boundary_.log_end, to_ms(recovery_time_));
  return Status();
}

Status TimerMessageService::rebuild_from_scratch(std::string_view why) {
  const std::string timer_topic(kTimerTopic);
  const bool fresh = log_.max_offset() == 0 &&
                     store_.max_offset(timer_topic, QueueId(0)) == store_.min_offset(timer_topic, QueueId(0));
  if (fresh) {
    rt_.log().info("timers: a new TimerLog ({})", why);
  } else {
    rt_.log().warn("timers: rebuilding the TimerLog from the whole timer queue ({})", why);
  }
  FERRY_TRY(log_.remove_all());
  file_last_slot_.clear();
  delivered_sources_.clear();
  enqueue_offset_ = store_.min_offset(timer_topic, QueueId(0)).value();
  boundary_ = TimerCheckpoint{.next_slot_ms = floor_slot(now_ms()),
                              .log_end = store_.min_phy_offset().value(),
                              .enqueue_offset = enqueue_offset_,
                              .timer_log_length = 0,
                              .precision_ms = config_.timer_precision_ms,
                              .wheel_slots = wheel_slots()};
  // Slots before the first one this life takes may still hold undelivered timers (the
  // checkpoint that said otherwise is gone): enqueue files them under the current slot.
  wheel_ = std::make_unique<store::timer::TimerWheel>(config_.timer_precision_ms, wheel_slots(), boundary_.next_slot_ms);
  scan_delivered(store_.min_phy_offset());
  if (!fresh) file_.changed();  // a new broker writes its first checkpoint with its first timer
  return Status();
}

Status TimerMessageService::recover_wheel() {
  file_last_slot_.clear();
  const std::int64_t end = log_.max_offset();
  for (std::int64_t pos = log_.min_offset(); pos < end; pos += kEntryBytes) {
    auto e = log_.read(pos);
    if (!e) return std::move(e).error();
    ++recovered_entries_;
    const std::int64_t file_start = pos - pos % log_.file_bytes();
    auto [it, fresh] = file_last_slot_.try_emplace(file_start, e->slot_ms);
    if (!fresh) it->second = std::max(it->second, e->slot_ms);
    if (e->slot_ms < wheel_->current()) continue;  // delivered, or filed again since
    if (e->slot_ms > wheel_->last_slot() || e->slot_ms % config_.timer_precision_ms != 0) {
      return Error(Errc::corrupt, fmt::format("timer log entry at {}: slot {} outside the wheel [{}, {}]", pos,
                                              e->slot_ms, wheel_->current(), wheel_->last_slot()));
    }
    const std::int64_t expected_prev = wheel_->head(e->slot_ms).last;
    if (e->prev != expected_prev) {
      return Error(Errc::corrupt, fmt::format("timer log entry at {}: slot {} links to {}, its previous entry is {}",
                                              pos, e->slot_ms, e->prev, expected_prev));
    }
    wheel_->add(e->slot_ms, pos);
  }
  return Status();
}

void TimerMessageService::scan_delivered(PhysicalOffset from) {
  const PhysicalOffset start = std::max(from, store_.min_phy_offset());
  (void)store_.for_each_record(start, store_.max_phy_offset(), [&](const RecordFields& f) {
    if (f.topic == kTimerTopic) return;
    const auto source = store::find_property(f.properties, prop::kTimerSource);
    if (!source) return;
    if (const auto v = parse_i64(*source)) delivered_sources_.insert(*v);
  });
}

void TimerMessageService::start(bool deliver) {
  delivering_ = deliver;
  if (started_) return;
  started_ = true;
  note_boundary();
  rt_.spawn(run_enqueue(this), "timer-enqueue");
  rt_.spawn(run_dequeue(this), "timer-dequeue");
  rt_.spawn(run_persist_loop(this), "timer-checkpoint");
}

void TimerMessageService::set_delivering(bool deliver) {
  if (deliver && !delivering_ && started_) {
    // A slave becoming master: what its old master delivered came with the log, after this
    // service's checkpoint (whose CommitLog end does not move while it delivers nothing).
    scan_delivered(PhysicalOffset(boundary_.log_end));
    rt_.log().info("timers: delivering from slot {}; {} timers found delivered past {}", wheel_->current(),
                   delivered_sources_.size(), boundary_.log_end);
  }
  delivering_ = deliver;
  dequeue_wake_.wake();
}

void TimerMessageService::stop() {
  stopped_ = true;
  enqueue_wake_.wake();
  dequeue_wake_.wake();
}

void TimerMessageService::on_arrival() { enqueue_wake_.wake(); }

void TimerMessageService::note_boundary() {
  // Only work moves the checkpoint: a timer filed, or a slot with timers taken. Empty slots the
  // wheel skipped need no record (recovery finds them empty again), so a broker without timers
  // writes no checkpoint however much else it stores.
  if (in_slot_ || !wheel_ || !worked_) return;
  worked_ = false;
  // The CommitLog end moves only while this broker delivers: on a slave the log brings copies its
  // master delivered of slots this wheel has not taken, which recovery must find past log_end.
  TimerCheckpoint b{.next_slot_ms = wheel_->current(),
                    .log_end = delivering_ ? store_.max_phy_offset().value() : boundary_.log_end,
                    .enqueue_offset = enqueue_offset_,
                    .timer_log_length = log_.max_offset(),
                    .precision_ms = config_.timer_precision_ms,
                    .wheel_slots = wheel_slots()};
  if (b == boundary_) return;
  boundary_ = b;
  file_.changed();
}

Status TimerMessageService::file_entry(Entry e) {
  e.prev = wheel_->head(e.slot_ms).last;
  auto pos = log_.append(e);
  if (!pos) return std::move(pos).error();
  wheel_->add(e.slot_ms, *pos);
  const std::int64_t file_start = *pos - *pos % log_.file_bytes();
  auto [it, fresh] = file_last_slot_.try_emplace(file_start, e.slot_ms);
  if (!fresh) it->second = std::max(it->second, e.slot_ms);
  if (e.slot_ms < waiting_for_) dequeue_wake_.wake();
  worked_ = true;
  return Status();
}

bool TimerMessageService::enqueue_step() {
  const std::string topic(kTimerTopic);
  store::ConsumeQueue* q = store_.find_queue(topic, QueueId(0));
  if (q == nullptr) return false;
  enqueue_offset_ = std::max(enqueue_offset_, q->min_offset().value());
  bool filed = false;
  for (std::int32_t n = 0; n < kStepMax; ++n) {
    if (enqueue_offset_ >= q->max_offset().value()) break;
    auto unit = q->read(QueueOffset(enqueue_offset_));
    if (!unit) {
      if (auto held = bad_record_log_.admit(rt_.now(), 1)) {
        rt_.log().error("timers: timer queue unit {} unreadable ({}): skipped{}", enqueue_offset_,
                        unit.error().to_string(), held_back_note(*held));
      }
      ++enqueue_offset_;
      continue;
    }
    if (!unit->is_message()) {
      ++enqueue_offset_;
      continue;
    }
    // A unit's tagsCode is the record's TIMER_OUT_MS (Broker's tags-code hook); one without a
    // usable due time (none, or negative) is due at once.
    const std::int64_t due = floor_slot(std::max<std::int64_t>(unit->tags_code, 0));
    Entry e{.slot_ms = wheel_->slot_for(due),
            .deliver_ms = std::max(due, wheel_->slot_for(due)),  // above the slot: rolled
            .log_offset = unit->commit_log_offset.value(),
            .prev = kNoEntry,
            .size = unit->size};
    if (Status s = file_entry(e); !s.ok()) {
      if (auto held = file_error_log_.admit(rt_.now(), static_cast<std::int64_t>(s.error().code))) {
        rt_.log().error("timers: filing timer queue unit {} failed (retried): {}{}", enqueue_offset_,
                        s.error().to_string(), held_back_note(*held));
      }
      return false;
    }
    ++enqueue_offset_;
    filed = true;
  }
  if (filed) note_boundary();
  return enqueue_offset_ < q->max_offset().value();
}

Task<void> TimerMessageService::run_enqueue(TimerMessageService* self) {
  while (!self->stopped_) {
    if (self->enqueue_step()) {
      co_await self->rt_.sleep(Duration::zero());  // yield to the rest of the node
      continue;
    }
    Task<bool> woken = self->enqueue_wake_.wait_for(kIdleRecheckInterval);
    (void)co_await std::move(woken);
  }
}

Task<void> TimerMessageService::run_dequeue(TimerMessageService* self) {
  const std::int64_t p = self->config_.timer_precision_ms;
  while (!self->stopped_) {
    if (!self->delivering_) {
      Task<bool> woken = self->dequeue_wake_.wait_for(kIdleRecheckInterval);
      (void)co_await std::move(woken);
      continue;
    }
    store::timer::TimerWheel& wheel = *self->wheel_;
    const WallMs now = self->now_ms();
    // Slot X is due once the clock reaches X + p: the last due slot is floor(now) - p.
    const std::int64_t last_due = self->floor_slot(now) - p;
    const std::optional<std::int64_t> next = wheel.next_due();
    if (!next || *next > last_due) {
      // Nothing due: move the wheel up to the first slot not yet due, then sleep until the next
      // slot with timers is due (or until enqueue files one sooner).
      if (wheel.current() <= last_due) {
        wheel.skip_to(last_due + p);
        self->note_boundary();
      }
      // With nothing pending the loop sleeps long: filing any entry wakes it.
      const Duration wait = next ? std::chrono::milliseconds(*next + p - now) : kIdleRecheckInterval * 60;
      self->waiting_for_ = next.value_or(std::numeric_limits<std::int64_t>::max());
      // buggify: the timer wakes early; the loop delivers only what is due and waits again. (Only
      // with timers pending: an idle wheel draws nothing from the node's randomness.)
      const Duration waited = next && FERRY_BUGGIFY(self->rt_)
                                  ? std::chrono::milliseconds(self->rt_.random().between(0, to_ms(wait)))
                                  : std::min<Duration>(wait, kIdleRecheckInterval * 60);
      Task<bool> woken = self->dequeue_wake_.wait_for(std::max<Duration>(waited, Duration::zero()));
      (void)co_await std::move(woken);
      self->waiting_for_ = std::numeric_limits<std::int64_t>::min();  // deciding again: no wake needed
      continue;
    }
    wheel.skip_to(*next);
    self->note_boundary();
    // Take the slot: its chain, newest first, read into arrival order.
    self->in_slot_ = true;
    const std::int64_t slot = wheel.current();
    const store::timer::TimerWheel::Head head = wheel.take();
    std::vector<std::int64_t> positions;
    positions.reserve(static_cast<std::size_t>(head.count));
    for (std::int64_t pos = head.last; pos != kNoEntry;) {
      positions.push_back(pos);
      auto e = self->log_.read(pos);
      if (!e) {
        if (auto held = self->bad_record_log_.admit(self->rt_.now(), 2)) {
          self->rt_.log().error("timers: slot {}: entry {} unreadable ({}); the rest of the slot is lost{}", slot, pos,
                                e.error().to_string(), held_back_note(*held));
        }
        break;
      }
      pos = e->prev;
    }
    std::reverse(positions.begin(), positions.end());
    self->worked_ = true;
    Task<void> delivering = self->deliver_slot(slot, std::move(positions));
    co_await std::move(delivering);
    self->in_slot_ = false;
    self->note_boundary();
  }
}

Task<void> TimerMessageService::deliver_slot(std::int64_t slot_ms, std::vector<std::int64_t> positions) {
  std::int32_t step = 0;
  for (std::size_t i = 0; i < positions.size(); ++i) {
    auto e = log_.read(positions[i]);
    if (!e) {
      if (auto held = bad_record_log_.admit(rt_.now(), 3)) {
        rt_.log().error("timers: slot {}: entry {} unreadable ({}): skipped{}", slot_ms, positions[i],
                        e.error().to_string(), held_back_note(*held));
      }
      continue;
    }
    if (!delivering_ || stopped_) {
      // Demoted (or stopping) in the middle of a slot: what is left is filed again under the
      // current slot, delivered by whoever delivers next (from this TimerLog after a restart).
      Entry again = *e;
      again.slot_ms = wheel_->slot_for(e->deliver_ms);
      if (Status s = file_entry(again); !s.ok()) {
        if (auto held = file_error_log_.admit(rt_.now(), static_cast<std::int64_t>(s.error().code))) {
          rt_.log().error("timers: slot {}: filing entry {} again failed: {}{}", slot_ms, positions[i],
                          s.error().to_string(), held_back_note(*held));
        }
      }
      continue;
    }
    if (e->deliver_ms > slot_ms) {  // rolled: file it under its own slot (or the window's end)
      Entry again = *e;
      again.slot_ms = wheel_->slot_for(e->deliver_ms);
      if (Status s = file_entry(again); !s.ok()) {
        if (auto held = file_error_log_.admit(rt_.now(), static_cast<std::int64_t>(s.error().code))) {
          rt_.log().error("timers: slot {}: rolling entry {} failed: {}{}", slot_ms, positions[i], s.error().to_string(),
                          held_back_note(*held));
        }
      }
      ++rolled_;
      continue;
    }
    while (deliver(*e) == Outcome::retry && delivering_ && !stopped_) {
      co_await rt_.sleep(kPutRetryInterval);
    }
    if (++step >= kStepMax) {
      step = 0;
      co_await rt_.sleep(Duration::zero());  // yield to the rest of the node
    }
  }
}

TimerMessageService::Outcome TimerMessageService::deliver(const Entry& e) {
  if (auto it = delivered_sources_.find(e.log_offset); it != delivered_sources_.end()) {
    delivered_sources_.erase(it);
    ++skipped_as_delivered_;
    return Outcome::done;
  }
  auto looked = look_message(store_, PhysicalOffset(e.log_offset));
  if (!looked) {
    if (auto held = bad_record_log_.admit(rt_.now(), 4)) {
      rt_.log().warn("timers: timer record at {} is gone ({}): skipped{}", e.log_offset, looked.error().to_string(),
                     held_back_note(*held));
    }
    return Outcome::done;
  }
  MessageExt m = std::move(*looked);
  const auto real_topic = m.real_topic();
  const auto real_queue = m.real_queue_id();
  if (!real_topic || real_topic->empty() || !real_queue.ok() || !real_queue->has_value()) {
    if (auto held = bad_record_log_.admit(rt_.now(), 5)) {
      rt_.log().error("timers: timer message {} has no usable REAL_TOPIC/REAL_QID: skipped{}", m.offset_msg_id,
                      held_back_note(*held));
    }
    return Outcome::done;
  }
  const std::string topic(*real_topic);
  const QueueId queue = **real_queue;
  (void)m.properties.erase(prop::kRealTopic);
  (void)m.properties.erase(prop::kRealQueueId);
  m.properties.set(prop::kTimerEnqueueMs, std::to_string(m.store_timestamp_ms));
  m.properties.set(prop::kTimerDequeueMs, std::to_string(now_ms()));
  m.properties.set(prop::kTimerSource, std::to_string(e.log_offset));
  auto props = encode_properties(m.properties);
  if (!props) {
    if (auto held = bad_record_log_.admit(rt_.now(), 6)) {
      rt_.log().error("timers: timer message {}: {}: skipped{}", m.offset_msg_id, props.error().to_string(),
                      held_back_note(*held));
    }
    return Outcome::done;
  }
  const store::PutRequest req = copy_of(m, topic, queue, *props, m.reconsume_times);
  const store::PutResult put = store_.put_message(req);
  if (!put.stored()) {
    if (auto held = deliver_error_log_.admit(rt_.now(), static_cast<std::int64_t>(put.status))) {
      rt_.log().warn("timers: delivering {} to {}/{} failed: {} {}{}", m.offset_msg_id, topic, queue,
                     store::put_status_name(put.status), put.detail, held_back_note(*held));
    }
    const bool hopeless = put.status == store::PutStatus::message_illegal ||
                          put.status == store::PutStatus::properties_size_exceeded;
    return hopeless ? Outcome::done : Outcome::retry;
  }
  ++delivered_;
  return Outcome::done;
}

Task<void> TimerMessageService::run_persist_loop(TimerMessageService* self) {
  while (!self->stopped_) {
    co_await self->rt_.sleep(self->config_.timer_flush_interval);
    if (self->stopped_ || !self->file_.dirty()) continue;
    Task<Status> persist = self->persist();
    Status s = co_await std::move(persist);
    // Logged once per run of failures (a full disk fails every round until it has room again).
    if (!s && self->persist_failures_++ == 0) {
      // A slow disk (the CommitLog not synced in time) is waited out; a failing one is an error.
      const bool slow = s.error().code == Errc::timed_out;
      const std::string line = fmt::format("timers: writing the checkpoint failed (retried every {} ms): {}",
                                           to_ms(self->config_.timer_flush_interval), s.error().to_string());
      if (slow) {
        self->rt_.log().warn("{}", line);
      } else {
        self->rt_.log().error("{}", line);
      }
    } else if (s && self->persist_failures_ > 0) {
      self->rt_.log().warn("timers: checkpoint written after {} failed attempt(s)", self->persist_failures_);
      self->persist_failures_ = 0;
    }
  }
}

Task<Status> TimerMessageService::persist() {
  if (!wheel_) co_return Status();
  note_boundary();
  if (!file_.dirty()) co_return Status();  // the file already says this
  const TimerCheckpoint captured = boundary_;
  JsonStateFile<TimerCheckpoint>::Snapshot snapshot = file_.snapshot();
  // Everything the checkpoint covers must be durable before it says so: the copies of the slots
  // before next_slot_ms and the timer records below enqueue_offset (all below log_end), and the
  // TimerLog up to timer_log_length.
  Task<store::PutStatus> synced = store_.wait_durable(PhysicalOffset(captured.log_end));
  const store::PutStatus durable = co_await std::move(synced);
  if (durable != store::PutStatus::ok) {
    if (const std::optional<Error>& failed = store_.flusher().sync_failure()) {
      co_return Error(Errc::io_error, "timer checkpoint not written: a CommitLog sync failed: " + failed->detail);
    }
    co_return Error(Errc::timed_out, "timer checkpoint not written: the CommitLog did not sync in time");
  }
  Task<Status> flushing = log_.flush();
  Status flushed = co_await std::move(flushing);
  if (!flushed) co_return flushed;
  Task<Status> w = file_.write(std::move(snapshot));
  Status written = co_await std::move(w);
  if (!written) co_return written;
  persisted_ = captured;
  // TimerLog files whose every entry is in a slot the checkpoint calls done.
  std::int64_t keep_from = log_.min_offset();
  for (const auto& [start, last_slot] : file_last_slot_) {
    if (last_slot >= persisted_.next_slot_ms || start + log_.file_bytes() > persisted_.timer_log_length) break;
    keep_from = start + log_.file_bytes();
  }
  if (keep_from > log_.min_offset()) {
    auto removed = log_.remove_files_before(keep_from);
    if (!removed) {
      if (auto held = remove_error_log_.admit(rt_.now(), static_cast<std::int64_t>(removed.error().code))) {
        rt_.log().warn("timers: removing TimerLog files before {} failed: {}{}", keep_from, removed.error().to_string(),
                       held_back_note(*held));
      }
    } else {
      for (auto it = file_last_slot_.begin(); it != file_last_slot_.end() && it->first < log_.min_offset();) {
        it = file_last_slot_.erase(it);
      }
    }
  }
  co_return Status();
}

std::string TimerMessageService::encode(const TimerCheckpoint& c) {
  std::vector<std::uint8_t> bytes = remoting::body::write_body([&](json::Writer& w) {
    w.StartObject();
    w.Key("nextSlotMs");
    w.Int64(c.next_slot_ms);
    w.Key("logEnd");
    w.Int64(c.log_end);
    w.Key("enqueueOffset");
    w.Int64(c.enqueue_offset);
    w.Key("timerLogLength");
    w.Int64(c.timer_log_length);
    w.Key("precisionMs");
    w.Int64(c.precision_ms);
    w.Key("wheelSlots");
    w.Int64(c.wheel_slots);
    w.EndObject();
  });
  return std::string(bytes.begin(), bytes.end());
}

Status TimerMessageService::decode(std::string_view text, TimerCheckpoint& c) {
  auto doc = json::parse(text, json::Numbers::typed, kTimerCheckpointFileName);
  if (!doc) return std::move(doc).error();
  json::JsonErrors errors;
  json::ObjectReader r(*doc, std::string(kTimerCheckpointFileName), errors);
  c.next_slot_ms = r.int64("nextSlotMs");
  c.log_end = r.int64("logEnd");
  c.enqueue_offset = r.int64("enqueueOffset");
  c.timer_log_length = r.int64("timerLogLength");
  c.precision_ms = r.int64("precisionMs");
  c.wheel_slots = r.int64("wheelSlots");
  if (errors.failed()) return errors.take();
  if (c.log_end < 0 || c.enqueue_offset < 0 || c.timer_log_length < 0 || c.timer_log_length % kEntryBytes != 0 ||
      c.precision_ms <= 0 || c.wheel_slots < 2) {
    return Error(Errc::corrupt, fmt::format("{}: offsets must be >= 0, the TimerLog length a multiple of {}, the "
                                            "precision positive and the wheel at least 2 slots",
                                            kTimerCheckpointFileName, kEntryBytes));
  }
  return Status();
}

}  // namespace ferry::broker
