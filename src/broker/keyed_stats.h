// KeyedStats: traffic of one kind counted per key over the last minute, hour and day — RocketMQ's
// StatsItemSet (one StatsItem per key, each with its minute / hour / day snapshot lists), for the
// keys RocketMQ's BrokerStatsManager uses: a topic (TOPIC_PUT_*) or "topic@group" (GROUP_GET_*).
//
// add(now, key, nums, size) counts one request ("times" in RocketMQ) that carried `nums` messages
// of `size` bytes. One item serves both of RocketMQ's NUMS and SIZE sets of a key, so the hot path
// looks its key up once per request, never per message; a known key costs no allocation.
//
// Windows, on the node's monotonic clock from `boot` (no timer runs): time is cut into buckets and
// each window keeps a fixed ring of them —
//   minute: 6 buckets of 10 s     hour: 6 buckets of 10 min     day: 24 buckets of 1 h
// A window's view at `now` covers the bucket `now` falls in (so far) and the buckets before it in
// the ring: between (n−1) and n bucket lengths back, never before `boot`. In it:
//   sum   = messages (NUMS) or bytes (SIZE) counted,
//   tps   = sum / the seconds the window covers (at least 1 s, so a young broker shows no spike),
//   avgpt = sum / requests counted (0 with none) — RocketMQ's "average per time".
// Difference from RocketMQ, which samples every 10 s / 10 min / 1 h and serves only complete
// samples: a count shows at once in all three windows, and the day window is the last 23 to 24
// hours instead of RocketMQ's last 24 hourly samples.
//
// Bound: at most `keys_max` keys. Adding a new key to a full set evicts the key counted least
// recently (its counts are gone; evicted() counts the evictions), so a stream of new topics or
// groups never locks the set nor grows it. A broker has about 1 KiB per key.
//
// Deterministic: time comes in as arguments; the table is only looked up, never iterated.
// Loop thread only.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include "runtime/time.h"

namespace ferry::broker {

class KeyedStats {
 public:
  // One window's figures for one series (messages or bytes), as RocketMQ's BrokerStatsItem.
  struct Window {
    std::int64_t sum = 0;
    double tps = 0;
    double avgpt = 0;
    bool operator==(const Window&) const = default;
  };
  // The three windows of one series of one key, as RocketMQ's BrokerStatsData.
  struct Windows {
    Window minute;
    Window hour;
    Window day;
    bool operator==(const Windows&) const = default;
  };
  enum class Series { nums, size };

  static constexpr std::size_t kDefaultKeysMax = 4096;

  // `keys_max` >= 1 (asserted). `boot` is the start of every window.
  KeyedStats(MonoTime boot, std::size_t keys_max);
  KeyedStats(const KeyedStats&) = delete;
  KeyedStats& operator=(const KeyedStats&) = delete;

  // Counts one request of `nums` >= 0 messages and `size` >= 0 bytes (asserted) under `key`.
  // `now` must not be before `boot` nor before the time of an earlier add (asserted).
  void add(MonoTime now, const std::string& key, std::int64_t nums, std::int64_t size);

  // The windows of `key` at `now` (not before the last add, asserted); nullopt when the key was
  // never counted or has been evicted (RocketMQ's "stats not exist").
  std::optional<Windows> find(MonoTime now, const std::string& key, Series series) const;

  std::size_t size() const { return items_.size(); }
  std::size_t keys_max() const { return keys_max_; }
  std::int64_t evicted() const { return evicted_; }

 private:
  struct Slot {
    std::int64_t nums = 0;
    std::int64_t size = 0;
    std::int64_t times = 0;
  };
  // `N` buckets; bucket b lives in slots[b % N] while b > last − N.
  template <std::size_t N>
  struct Ring {
    std::array<Slot, N> slots{};
    std::int64_t last = -1;  // the newest bucket counted; -1: none yet
    void add(std::int64_t bucket, std::int64_t nums, std::int64_t size);
    Slot sum(std::int64_t bucket) const;  // buckets (bucket − N, bucket]
  };
  struct Item {
    Ring<6> minute;
    Ring<6> hour;
    Ring<24> day;
    // Recency list, newest first (for eviction); the map's nodes never move.
    Item* newer = nullptr;
    Item* older = nullptr;
    const std::string* key = nullptr;  // the map's key of this item
  };

  Duration since_boot(MonoTime now) const;
  void touch(Item& item);    // moves `item` to the newest end
  void unlink(Item& item);
  void evict_oldest();

  MonoTime boot_;
  std::size_t keys_max_;
  std::unordered_map<std::string, Item> items_;
  Item* newest_ = nullptr;
  Item* oldest_ = nullptr;
  std::int64_t evicted_ = 0;
  Duration last_add_{0};
};

}  // namespace ferry::broker
