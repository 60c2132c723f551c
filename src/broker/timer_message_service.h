// TimerMessageService: timer messages at any time (RocketMQ 5's TimerMessageStore, on Ferry's own
// wheel; docs/store.md, "Timer messages", says how it recovers).
//
// The send path (timer_send.h) stores a timer message as a record of rmq_sys_wheel_timer queue 0
// with REAL_TOPIC / REAL_QID and TIMER_OUT_MS, its due time rounded down to the precision; that
// ConsumeQueue's tagsCode is TIMER_OUT_MS. Here:
//   * enqueue: a loop reads that queue from the enqueue offset and files each record in the
//     TimerLog under its wheel slot (timer_log.h, timer_wheel.h);
//   * dequeue (a master only): once the timer clock reaches a slot's end, the slot is taken and
//     each of its records stored as a copy on REAL_TOPIC / REAL_QID (REAL_* cleared; TIMER_OUT_MS
//     kept; TIMER_ENQUEUE_MS, TIMER_DEQUEUE_MS and FERRY_TIMER_SOURCE, the timer record's offset,
//     added), in arrival order; a rolled entry is filed again under its own slot instead.
//   * checkpoint: every timer_flush_interval, the state as of the last time no slot was being
//     delivered — {next slot, CommitLog end then, enqueue offset, TimerLog length} — is written
//     to `{config_dir}/timerCheckpoint.json`, after the CommitLog is durable up to that end and
//     the TimerLog synced past that length. TimerLog files whose every entry lies in a slot
//     before the checkpoint's are removed.
//
// Which clock decides: the timer clock, the wall clock read when the service loads (never below
// the checkpoint's next slot), then advanced by the monotonic clock. A relative delay
// (TIMER_DELAY_SEC / _MS) is measured on it, and so is an absolute TIMER_DELIVER_MS: a wall-clock
// step while the broker runs neither fires nor holds a timer. A restart reads the wall clock
// again.
//
// Recovery (load()): the TimerLog is cut to the checkpoint's length and the wheel rebuilt from it
// (entries of slots before the checkpoint's are done); the CommitLog from the checkpoint's end is
// scanned for copies carrying FERRY_TIMER_SOURCE, which are not delivered again; enqueue resumes
// at the checkpoint's offset. So a kill or a power loss neither loses a timer whose record
// survived nor delivers one twice. When the files disagree with the store (a TimerLog shorter
// than the checkpoint, a timer queue or CommitLog cut below it, another precision or wheel size),
// the TimerLog is rebuilt from the whole timer queue and the whole CommitLog scanned.
//
// A slave runs enqueue only (its TimerLog follows the replicated queue) and keeps its checkpoint's
// CommitLog end where it was; promoted, it scans its log from there for the copies its old master
// delivered and delivers the rest from its own checkpoint's slot. (RocketMQ 5 copies the master's
// timer checkpoint to its slaves instead, which bounds that scan; Ferry does not yet.)
//
// Lifecycle: load() after the store opened → start(deliver) → set_delivering() on role changes →
// stop() → persist(). Threading: the node's loop.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "broker/broker_config.h"
#include "broker/json_state_file.h"
#include "runtime/log_limiter.h"
#include "runtime/wake_signal.h"
#include "store/message_store.h"
#include "store/timer/timer_log.h"
#include "store/timer/timer_wheel.h"

namespace ferry::broker {

inline constexpr std::string_view kTimerCheckpointFileName = "timerCheckpoint.json";

// What the checkpoint file holds.
struct TimerCheckpoint {
  std::int64_t next_slot_ms = 0;       // slots before it are delivered
  std::int64_t log_end = 0;            // CommitLog end when that was true
  std::int64_t enqueue_offset = 0;     // timer queue offsets below it are in the TimerLog
  std::int64_t timer_log_length = 0;   // TimerLog bytes then
  std::int64_t precision_ms = 0;       // the wheel's geometry the TimerLog was filed with
  std::int64_t wheel_slots = 0;
  friend bool operator==(const TimerCheckpoint&, const TimerCheckpoint&) = default;
};

class TimerMessageService {
 public:
  TimerMessageService(Runtime& rt, const BrokerConfig& config, store::MessageStore& store);
  TimerMessageService(const TimerMessageService&) = delete;
  TimerMessageService& operator=(const TimerMessageService&) = delete;

  // Recovers (see above). After the store opened. Errors: corrupt (the checkpoint files),
  // io_error.
  Status load();
  // Spawns the loops; delivers when `deliver` (a master).
  void start(bool deliver);
  void set_delivering(bool deliver);
  bool delivering() const { return delivering_; }
  void stop();
  // Writes the checkpoint as of the last slot boundary (see above). Errors: timed_out (the
  // CommitLog did not sync), io_error.
  Task<Status> persist();
  // A record reached the timer queue: wake the enqueue loop.
  void on_arrival();

  // The timer clock (see above), wall ms.
  WallMs now_ms() const;

  // For operators and tests.
  std::int64_t pending() const { return wheel_ ? wheel_->pending() : 0; }
  std::uint64_t delivered() const { return delivered_; }
  std::uint64_t rolled() const { return rolled_; }
  std::uint64_t skipped_as_delivered() const { return skipped_as_delivered_; }
  std::int64_t wheel_memory_bytes() const { return wheel_ ? wheel_->memory_bytes() : 0; }
  std::int64_t timer_log_bytes() const { return log_.max_offset() - log_.min_offset(); }
  const TimerCheckpoint& checkpoint() const { return persisted_; }
  // How long load() took to rebuild (monotonic), and how many entries it read.
  Duration recovery_time() const { return recovery_time_; }
  std::int64_t recovered_entries() const { return recovered_entries_; }

  static std::string encode(const TimerCheckpoint& c);
  static Status decode(std::string_view text, TimerCheckpoint& c);

  static constexpr Duration kIdleRecheckInterval = std::chrono::seconds(1);
  static constexpr Duration kPutRetryInterval = std::chrono::seconds(1);
  static constexpr std::int32_t kStepMax = 256;  // entries handled before the loops yield

 private:
  static Task<void> run_enqueue(TimerMessageService* self);
  static Task<void> run_dequeue(TimerMessageService* self);
  static Task<void> run_persist_loop(TimerMessageService* self);
  // Files up to kStepMax records of the timer queue; false when it is drained.
  bool enqueue_step();
  // Appends `e` under e.slot_ms (prev filled in here). Errors: those of TimerLog::append.
  Status file_entry(store::timer::Entry e);
  // Delivers the slot taken as `positions` (TimerLog positions, arrival order).
  Task<void> deliver_slot(std::int64_t slot_ms, std::vector<std::int64_t> positions);
  enum class Outcome : std::uint8_t { done, retry };
  Outcome deliver(const store::timer::Entry& e);
  void note_boundary();
  Status rebuild_from_scratch(std::string_view why);
  Status recover_wheel();
  void scan_delivered(PhysicalOffset from);
  std::int64_t wheel_slots() const;
  std::int64_t floor_slot(std::int64_t ms) const;

  Runtime& rt_;
  const BrokerConfig& config_;
  store::MessageStore& store_;
  store::timer::TimerLog log_;
  std::unique_ptr<store::timer::TimerWheel> wheel_;
  TimerCheckpoint boundary_;   // the state at the last slot boundary
  TimerCheckpoint persisted_;  // what the file holds
  JsonStateFile<TimerCheckpoint> file_;  // after persisted_: refers to it
  std::int64_t enqueue_offset_ = 0;
  // TimerLog file start → the latest slot any of its entries is filed under.
  std::map<std::int64_t, std::int64_t> file_last_slot_;
  // Timer records whose copies recovery found in the CommitLog (FERRY_TIMER_SOURCE): skipped
  // once each when their slot comes.
  std::set<std::int64_t> delivered_sources_;
  WallMs anchor_wall_ = 0;
  MonoTime anchor_mono_{};
  WakeSignal enqueue_wake_;
  WakeSignal dequeue_wake_;
  // The slot the dequeue loop sleeps until (filing an entry before it wakes the loop).
  std::int64_t waiting_for_ = std::numeric_limits<std::int64_t>::min();
  bool in_slot_ = false;
  bool worked_ = false;  // a timer filed or a slot with timers taken since the last boundary
  std::uint64_t persist_failures_ = 0;
  bool started_ = false;
  bool stopped_ = false;
  bool delivering_ = false;
  std::uint64_t delivered_ = 0;
  std::uint64_t rolled_ = 0;
  std::uint64_t skipped_as_delivered_ = 0;
  Duration recovery_time_{};
  std::int64_t recovered_entries_ = 0;
  LogLimiter bad_record_log_;     // units, entries and messages skipped as unusable (1..6: which line)
  LogLimiter file_error_log_;     // entries not filed (retried, filed again or rolled), by Errc
  LogLimiter deliver_error_log_;  // deliveries that failed (retried), by PutStatus
  LogLimiter remove_error_log_;   // TimerLog files not removed (each persist), by Errc
};

}  // namespace ferry::broker
