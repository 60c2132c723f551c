// ScheduleMessageService: delivery of delayed messages (RocketMQ's ScheduleMessageService).
//
// A message with DELAY = level waits in SCHEDULE_TOPIC_XXXX queue level − 1, whose ConsumeQueue
// tagsCode is its delivery time (store time + the level's delay, wall ms). The levels are the
// broker's messageDelayLevel table (BrokerConfig::message_delay_levels; RocketMQ's 18 by default);
// a level above the table's last is taken as the last (the send path and send-back cap it). One loop per level
// reads its queue in order from the level's delay offset; when the head is due it stores a copy
// in REAL_TOPIC / REAL_QID with DELAY cleared (every other property, the body, flag, born
// fields and reconsumeTimes kept) and moves past it. Order within a level is the order of
// arrival. A delivery time further away than the level's delay (the wall clock moved back)
// counts as due now (RocketMQ's correctDeliverTimestamp).
//   * A head not due yet: the loop sleeps until it is due, or until on_arrival() wakes it.
//   * An empty queue: sleeps until on_arrival() (the Broker forwards the store's arrival
//     listener) or idle_recheck_interval (1 s), whichever comes first.
//   * A record gone (cleaned up) or without a usable REAL_TOPIC / REAL_QID: logged and skipped.
//   * A put that fails (disk full...): retried after put_retry_interval (10 s), same offset.
//
// Delay offsets: `{config_dir}/delayOffset.json` = {"offsetTable":{"1":12,"3":0}} (level →
// next queue offset), written every flush_delay_offset_interval (10 s) when changed and by
// persist() on a graceful stop. Before writing, persist() waits until the CommitLog is durable
// past everything delivered so far, so a recorded offset never covers a delivery a crash could
// lose: a crash re-delivers at most what was delivered since the last write (at-least-once),
// and loses nothing that was durable in the schedule queue.
//
// Lifecycle: load() → start() (spawns the loops) → stop() (the loops end at their next wake-up)
// → persist(). pause() and start() again suspend and resume delivery (a master demoted and
// elected again). A crash destroys the loops with the node's tasks. Threading: the node's loop.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>

#include "broker/broker_config.h"
#include "broker/json_state_file.h"
#include "broker/metadata_json.h"
#include "runtime/log_limiter.h"
#include "runtime/wake_signal.h"
#include "common/delay_levels.h"
#include "store/message_store.h"

namespace ferry::broker {

inline constexpr std::string_view kDelayOffsetFileName = "delayOffset.json";

// level (1..table size) → next queue offset of SCHEDULE_TOPIC_XXXX queue level − 1.
using DelayOffsetTable = OffsetMap;

class ScheduleMessageService {
 public:
  ScheduleMessageService(Runtime& rt, const BrokerConfig& config, store::MessageStore& store);
  ScheduleMessageService(const ScheduleMessageService&) = delete;
  ScheduleMessageService& operator=(const ScheduleMessageService&) = delete;

  // Loads delayOffset.json (falling back to the backup). Errors: corrupt naming the files.
  Status load();
  void start();
  void stop();
  // A master that became a slave (controller mode) delivers nothing until start() again; the
  // loops stay (start() after pause() resumes them).
  void pause() { paused_ = true; }
  bool paused() const { return paused_; }
  // A message reached SCHEDULE_TOPIC_XXXX queue `queue` (= level − 1): wake that level.
  void on_arrival(QueueId queue);
  // Waits for the CommitLog to be durable past the deliveries so far, then writes the offsets.
  // Errors: the sync timed out (nothing written), io_error, no_space.
  Task<Status> persist();

  const DelayOffsetTable& offsets() const { return offsets_; }
  // A slave takes its master's delay offsets (SlaveSync; RocketMQ's syncDelayOffset writes the
  // master's delayOffset.json over its own): `offsets` replaces the table. Returns false when it
  // was already equal (nothing to persist). For a service whose loops do not run (a slave's):
  // running loops would move the offsets on by themselves.
  bool replace_offsets(DelayOffsetTable offsets);
  std::uint64_t delivered() const { return delivered_; }

  static std::string encode(const DelayOffsetTable& t);
  static Status decode(std::string_view text, DelayOffsetTable& t);
  // decode() with `source` ("GET_ALL_DELAY_OFFSET body") as the root of error paths.
  // Levels above `levels_max` are refused (a slave checks its master's table against its own).
  static Status decode_from(std::string_view source, std::string_view text, DelayOffsetTable& t,
                            std::int32_t levels_max = kDelayLevelsConfigurableMax);
  // The levels this broker delivers (its messageDelayLevel table's size).
  std::int32_t levels() const { return static_cast<std::int32_t>(wake_.size()); }

  static constexpr Duration kIdleRecheckInterval = std::chrono::seconds(1);
  static constexpr Duration kPutRetryInterval = std::chrono::seconds(10);
  static constexpr std::int32_t kDeliveriesPerStepMax = 256;  // then the loop yields

 private:
  static Task<void> run_level(ScheduleMessageService* self, std::int32_t level);
  static Task<void> run_persist_loop(ScheduleMessageService* self);
  // Delivers what is due at the head of `level`; returns how long to wait before the next step.
  Duration step(std::int32_t level);
  // false when the put failed (retry later); true when delivered or skipped.
  bool deliver(std::int32_t level, const store::cq::Unit& unit);

  Runtime& rt_;
  const BrokerConfig& config_;
  store::MessageStore& store_;
  DelayOffsetTable offsets_;
  JsonStateFile<DelayOffsetTable> file_;  // after offsets_: refers to it
  std::vector<std::unique_ptr<WakeSignal>> wake_;  // one per level of config_.message_delay_levels
  std::uint64_t delivered_ = 0;
  bool started_ = false;
  bool stopped_ = false;
  bool paused_ = false;
  LogLimiter bad_record_log_;     // units and messages skipped as unusable (1..4: which line)
  LogLimiter deliver_error_log_;  // deliveries that failed (retried), by PutStatus
  LogLimiter persist_error_log_;  // offsets not persisted (each round), by Errc
};

}  // namespace ferry::broker
