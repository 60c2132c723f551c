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
// Time is the node's monotonic clock, passed in by the caller, so the simulator gives the same
// numbers for the same seed. Loop thread only.
#pragma once

#include <array>
#include <cstdint>

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

  // `boot` is second 0 of the rates.
  explicit BrokerStats(MonoTime boot) : boot_(boot) {}

  // `messages` >= 0 and `bytes` >= 0 (asserted); `now` must not be before the boot time.
  void on_put(MonoTime now, std::int64_t messages, std::int64_t bytes);
  void on_get(MonoTime now, std::int64_t messages, std::int64_t bytes);
  void on_pull_look(bool found) { ++(found ? totals_.pull_looks_found : totals_.pull_looks_missed); }

  const Totals& totals() const { return totals_; }
  MonoTime boot_time() const { return boot_; }
  // Messages per second over the last `window_seconds` (1..kWindowSecondsMax, asserted) whole
  // seconds before `now`.
  double put_tps(MonoTime now, std::int64_t window_seconds) const;
  double get_tps(MonoTime now, std::int64_t window_seconds) const;

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
};

}  // namespace ferry::broker
