#include "broker/keyed_stats.h"

#include <algorithm>

#include "runtime/assert.h"

namespace ferry::broker {

namespace {

constexpr Duration kMinuteBucket = std::chrono::seconds(10);
constexpr Duration kHourBucket = std::chrono::minutes(10);
constexpr Duration kDayBucket = std::chrono::hours(1);

std::int64_t bucket_of(Duration since_boot, Duration bucket) { return since_boot / bucket; }

// The window's figures from its summed slot; the window covers from the start of its oldest
// bucket (not before boot) to now.
template <std::size_t N>
KeyedStats::Window window_of(const auto& slot, std::int64_t bucket, Duration since_boot, Duration length,
                             KeyedStats::Series series) {
  KeyedStats::Window w;
  w.sum = series == KeyedStats::Series::nums ? slot.nums : slot.size;
  const Duration start = std::max<std::int64_t>(0, bucket - static_cast<std::int64_t>(N) + 1) * length;
  const double seconds = std::max(1.0, to_seconds(since_boot - start));
  w.tps = static_cast<double>(w.sum) / seconds;
  w.avgpt = slot.times > 0 ? static_cast<double>(w.sum) / static_cast<double>(slot.times) : 0.0;
  return w;
}

}  // namespace

template <std::size_t N>
void KeyedStats::Ring<N>::add(std::int64_t bucket, std::int64_t nums, std::int64_t size) {
  FERRY_ASSERT(bucket >= last, "KeyedStats: bucket {} is before the last counted {}", bucket, last);
  if (last < 0 || bucket - last >= static_cast<std::int64_t>(N)) {
    slots.fill(Slot{});
  } else {
    for (std::int64_t b = last + 1; b <= bucket; ++b) slots[static_cast<std::size_t>(b) % N] = Slot{};
  }
  last = bucket;
  Slot& s = slots[static_cast<std::size_t>(bucket) % N];
  s.nums += nums;
  s.size += size;
  s.times += 1;
}

template <std::size_t N>
KeyedStats::Slot KeyedStats::Ring<N>::sum(std::int64_t bucket) const {
  Slot out;
  if (last < 0) return out;
  const std::int64_t from = std::max<std::int64_t>(bucket, last) - static_cast<std::int64_t>(N) + 1;
  for (std::int64_t b = std::max<std::int64_t>(0, from); b <= std::min(bucket, last); ++b) {
    const Slot& s = slots[static_cast<std::size_t>(b) % N];
    out.nums += s.nums;
    out.size += s.size;
    out.times += s.times;
  }
  return out;
}

KeyedStats::KeyedStats(MonoTime boot, std::size_t keys_max) : boot_(boot), keys_max_(keys_max) {
  FERRY_ASSERT(keys_max >= 1, "KeyedStats: keys_max {}", keys_max);
  // Sized once for up to kDefaultKeysMax keys: a lookup never allocates, and inserting a new key
  // rehashes only when a larger cap lets the table grow past that.
  items_.reserve(std::min(keys_max, kDefaultKeysMax));
}

Duration KeyedStats::since_boot(MonoTime now) const {
  FERRY_ASSERT(now >= boot_, "KeyedStats: time {} ns is before the boot time {} ns", to_ns(now), to_ns(boot_));
  return now - boot_;
}

void KeyedStats::unlink(Item& item) {
  (item.newer != nullptr ? item.newer->older : newest_) = item.older;
  (item.older != nullptr ? item.older->newer : oldest_) = item.newer;
  item.newer = nullptr;
  item.older = nullptr;
}

void KeyedStats::touch(Item& item) {
  if (newest_ == &item) return;
  if (item.newer != nullptr || item.older != nullptr || oldest_ == &item) unlink(item);
  item.older = newest_;
  if (newest_ != nullptr) newest_->newer = &item;
  newest_ = &item;
  if (oldest_ == nullptr) oldest_ = &item;
}

void KeyedStats::evict_oldest() {
  FERRY_ASSERT(oldest_ != nullptr, "KeyedStats: evicting from an empty set of {} keys", items_.size());
  Item& victim = *oldest_;
  unlink(victim);
  auto it = items_.find(*victim.key);
  FERRY_ASSERT(it != items_.end(), "KeyedStats: the oldest key '{}' is not in the table", *victim.key);
  items_.erase(it);
  ++evicted_;
}

void KeyedStats::add(MonoTime now, const std::string& key, std::int64_t nums, std::int64_t size) {
  FERRY_ASSERT(nums >= 0, "KeyedStats::add('{}'): {} messages", key, nums);
  FERRY_ASSERT(size >= 0, "KeyedStats::add('{}'): {} bytes", key, size);
  const Duration t = since_boot(now);
  FERRY_ASSERT(t >= last_add_, "KeyedStats::add('{}'): time {} ns since boot is before the last add's {} ns", key,
               t.count(), last_add_.count());
  last_add_ = t;
  auto it = items_.find(key);
  if (it == items_.end()) {
    if (items_.size() >= keys_max_) evict_oldest();
    it = items_.try_emplace(key).first;
    it->second.key = &it->first;
  }
  Item& item = it->second;
  touch(item);
  item.minute.add(bucket_of(t, kMinuteBucket), nums, size);
  item.hour.add(bucket_of(t, kHourBucket), nums, size);
  item.day.add(bucket_of(t, kDayBucket), nums, size);
  FERRY_ASSERT(items_.size() <= keys_max_, "KeyedStats: {} keys, more than the cap {}", items_.size(), keys_max_);
}

std::optional<KeyedStats::Windows> KeyedStats::find(MonoTime now, const std::string& key, Series series) const {
  const Duration t = since_boot(now);
  FERRY_ASSERT(t >= last_add_, "KeyedStats::find('{}'): time {} ns since boot is before the last add's {} ns", key,
               t.count(), last_add_.count());
  auto it = items_.find(key);
  if (it == items_.end()) return std::nullopt;
  const Item& item = it->second;
  const std::int64_t m = bucket_of(t, kMinuteBucket);
  const std::int64_t h = bucket_of(t, kHourBucket);
  const std::int64_t d = bucket_of(t, kDayBucket);
  Windows w;
  w.minute = window_of<6>(item.minute.sum(m), m, t, kMinuteBucket, series);
  w.hour = window_of<6>(item.hour.sum(h), h, t, kHourBucket, series);
  w.day = window_of<24>(item.day.sum(d), d, t, kDayBucket, series);
  return w;
}

}  // namespace ferry::broker
