// BrokerStats: the broker's traffic counters for GET_BROKER_RUNTIME_INFO (RocketMQ's
// BrokerStatsManager / StoreStatsService, reduced to what Ferry reports).
//
//   put: messages a producer's send stored (SendProcessor; a batch counts each message; a
//        FLUSH_DISK_TIMEOUT reply counts too: the message is stored), and their record bytes;
//   get: messages a pull returned to a consumer (PullProcessor, after the tag check), and their
//        record bytes;
//   pull looks: the store looks pulls made, found (returned messages) or missed (anything else)
//        (RocketMQ's getMessageTimesTotalFound / Miss): a long poll looks once when it arrives
//        and once when it is answered.
// Totals are since the broker started (not persisted). Rates are messages per second over the
// last `window` whole seconds before `now` (RocketMQ reports 10 s, 60 s and 600 s), computed from
// per-second slots of a fixed ring (kWindowSecondsMax + 1 slots: bounded memory, no timer): the
// current, incomplete second is left out, and a broker younger than the window divides by its
// age in whole seconds (0 for the first second).
//
// Per key (RocketMQ's BrokerStatsManager sets, for VIEW_BROKER_STATS_DATA 315 and the consume
// TPS of 208 / 317): every put is also counted under its topic (TOPIC_PUT_NUMS / TOPIC_PUT_SIZE:
// the topic the producer addressed, also for a delayed message) and every get under
// "topic@group" (GROUP_GET_NUMS / GROUP_GET_SIZE), over minute / hour / day windows with at most
// `keys_max` keys per kind (keyed_stats.h: the least recently counted key is evicted beyond it).
// One table lookup per request; the group key is built in a reused buffer (no allocation once
// the buffer is large enough).
//
// Time is the node's monotonic clock, passed in by the caller, so the simulator gives the same
// numbers for the same seed. Loop thread only.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "broker/keyed_stats.h"
#include "runtime/time.h"

namespace ferry::broker {

class BrokerStats {
 public:
  static constexpr std::int64_t kWindowSecondsMax = 600;

  struct Totals {
    std::int64_t put_messages = 0;
    std::int64_t put_bytes = 0;
    std::int64_t get_messages = 0;
    std::int64_t get_bytes = 0;
    std::int64_t pull_looks_found = 0;
    std::int64_t pull_looks_missed = 0;
  };

  // `boot` is second 0 of the rates and the start of the per-key windows; `keys_max` bounds each
  // per-key table (topics put to; topic@group pairs got).
  explicit BrokerStats(MonoTime boot, std::size_t keys_max = KeyedStats::kDefaultKeysMax)
      : boot_(boot), topic_puts_(boot, keys_max), group_gets_(boot, keys_max) {}

  // `messages` >= 0 and `bytes` >= 0 (asserted); `now` must not be before the boot time nor
  // before an earlier call's. One request: counted as one "time" under its key.
  void on_put(MonoTime now, const std::string& topic, std::int64_t messages, std::int64_t bytes);
  void on_get(MonoTime now, std::string_view topic, std::string_view group, std::int64_t messages,
              std::int64_t bytes);
  void on_pull_look(bool found) { ++(found ? totals_.pull_looks_found : totals_.pull_looks_missed); }
  // A send answered SEND_OK for `messages` (>= 0, asserted) messages stored while the broker was
  // master in `epoch` (controller mode's masterEpoch; 0 outside it). Kept for the last
  // kAckEpochsMax epochs: the simulator's one-master-per-epoch check reads it.
  void on_acked(std::int32_t epoch, std::int64_t messages);
  static constexpr std::size_t kAckEpochsMax = 64;
  const std::map<std::int32_t, std::int64_t>& acked_by_epoch() const { return acked_by_epoch_; }

  const Totals& totals() const { return totals_; }
  MonoTime boot_time() const { return boot_; }
  // Messages per second over the last `window_seconds` (1..kWindowSecondsMax, asserted) whole
  // seconds before `now`.
  double put_tps(MonoTime now, std::int64_t window_seconds) const;
  double get_tps(MonoTime now, std::int64_t window_seconds) const;

  // VIEW_BROKER_STATS_DATA (315): the windows of `stats_name` (TOPIC_PUT_NUMS, TOPIC_PUT_SIZE with
  // a topic; GROUP_GET_NUMS, GROUP_GET_SIZE with "topic@group") under `key` at `now`. nullopt for
  // any other name, and for a key never counted (or evicted).
  std::optional<KeyedStats::Windows> view(MonoTime now, std::string_view stats_name, const std::string& key) const;
  // The group's messages per second got from the topic over the minute window (0 when none):
  // RocketMQ's tpsGroupGetNums, the consumeTps of 208 and 317.
  double group_get_tps(MonoTime now, std::string_view topic, std::string_view group) const;
  const KeyedStats& topic_puts() const { return topic_puts_; }
  const KeyedStats& group_gets() const { return group_gets_; }

 private:
  struct Slot {
    std::int64_t second = -1;  // which second since boot the counts belong to; -1: unused
    std::int64_t put = 0;
    std::int64_t get = 0;
  };
  static constexpr std::size_t kSlots = kWindowSecondsMax + 1;

  std::int64_t second_of(MonoTime now) const;
  Slot& slot_for(std::int64_t second);
  double rate(MonoTime now, std::int64_t window_seconds, std::int64_t Slot::*field) const;

  MonoTime boot_;
  Totals totals_;
  std::array<Slot, kSlots> slots_{};
  KeyedStats topic_puts_;
  KeyedStats group_gets_;
  std::string group_key_;  // "topic@group" of the last on_get: a buffer reused across calls
  std::map<std::int32_t, std::int64_t> acked_by_epoch_;
};

}  // namespace ferry::broker
