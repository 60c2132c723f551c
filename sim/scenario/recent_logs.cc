#include "sim/scenario/recent_logs.h"

#include <algorithm>

#include "runtime/assert.h"

namespace ferry::sim::scenario {

RecentLogs::RecentLogs(std::size_t capacity) : capacity_(capacity) {
  FERRY_ASSERT(capacity > 0, "a ring of recent log lines needs room for one line, got capacity {}", capacity);
}

void RecentLogs::push(MonoTime at, std::string_view node, std::string_view level, std::string_view text) {
  if (!lines_.empty()) {
    const MonoTime last = this->at(lines_.size() - 1).at;
    FERRY_ASSERT(at >= last, "log line of {} at {} ns pushed after a line at {} ns: the World's time went back", node, to_ns(at),
                 to_ns(last));
  }
  sim::LogLine* slot;
  if (lines_.size() < capacity_) {
    slot = &lines_.emplace_back();
  } else {
    slot = &lines_[oldest_];
    oldest_ = (oldest_ + 1) % capacity_;
    ++dropped_;
  }
  slot->at = at;
  slot->node.assign(node);
  slot->level.assign(level);
  slot->text.assign(text);
}

const sim::LogLine& RecentLogs::at(std::size_t i) const {
  FERRY_ASSERT(i < lines_.size(), "recent log line {} asked of a ring holding {}", i, lines_.size());
  return lines_[(oldest_ + i) % lines_.size()];
}

RecentLogs::Window RecentLogs::around(MonoTime t, Duration before, Duration after, std::size_t max) const {
  FERRY_ASSERT(before >= Duration{} && after >= Duration{}, "a log window needs non-negative sides, got {} ns before and {} ns after",
               before.count(), after.count());
  Window w;
  const MonoTime from = t - before, to = t + after;
  // The ring is sorted by time: binary searches over its logical indices.
  auto first_at_or_after = [&](MonoTime x, bool strictly) {
    std::size_t lo = 0, hi = lines_.size();
    while (lo < hi) {
      const std::size_t mid = lo + (hi - lo) / 2;
      const MonoTime m = at(mid).at;
      if (strictly ? m <= x : m < x) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  };
  const std::size_t begin = first_at_or_after(from, false), end = first_at_or_after(to, true);
  w.may_miss_earlier = dropped_ > 0 && !lines_.empty() && at(0).at >= from;
  if (begin >= end) return w;
  // Grow outward from t, taking the nearer side each time.
  std::size_t left = std::clamp(first_at_or_after(t, true), begin, end), right = left;  // [left, right) taken
  while (right - left < max && (left > begin || right < end)) {
    const bool take_left = left > begin && (right >= end || t - at(left - 1).at <= at(right).at - t);
    if (take_left) {
      --left;
    } else {
      ++right;
    }
  }
  for (std::size_t i = left; i < right; ++i) w.lines.push_back(at(i));
  w.left_out = (end - begin) - (right - left);
  return w;
}

}  // namespace ferry::sim::scenario
