// RecentLogs: the last log lines of a scenario run (every node, info and above, timed by the
// World), so that a failed seed can show what the nodes said around its first violation even when
// the printed log level hid it (`mqsim run`, tools/mqsim/log_window.h). Kept beside the History,
// not in it: the History keeps only error lines (History::error_logs).
//
// Bounded: at most `capacity` lines; when full, a new line replaces the oldest one, which is
// counted in dropped(). A full ring reuses its lines' strings (no allocation per line once the
// texts fit). Lines are pushed in time order (the World's time never goes back), so the ring is
// sorted by time. Single-threaded (the World's thread).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "runtime/time.h"
#include "sim/history/history.h"

namespace ferry::sim::scenario {

// About 100 bytes a line: a few MB at most. Every scenario in scenarios/ logs fewer than a
// thousand lines at info a seed.
inline constexpr std::size_t kRecentLogsMax = 50'000;

class RecentLogs {
 public:
  explicit RecentLogs(std::size_t capacity = kRecentLogsMax);

  // Appends a line (`at` no earlier than the last line's), replacing the oldest when full.
  void push(MonoTime at, std::string_view node, std::string_view level, std::string_view text);

  std::size_t size() const { return lines_.size(); }
  std::size_t capacity() const { return capacity_; }
  // Lines replaced because the ring was full.
  std::uint64_t dropped() const { return dropped_; }
  // The i-th line, oldest first (i < size()).
  const sim::LogLine& at(std::size_t i) const;

  // The lines timed within [t - before, t + after], oldest first; when more than `max`, the
  // `max` nearest to t (ties: the earlier), and how many of the window's lines were left out.
  // `may_miss_earlier`: the ring dropped lines and its oldest kept line is inside the window, so
  // the window may have held lines older than any kept.
  struct Window {
    std::vector<sim::LogLine> lines;
    std::size_t left_out = 0;
    bool may_miss_earlier = false;
  };
  Window around(MonoTime t, Duration before, Duration after, std::size_t max) const;

 private:
  std::size_t capacity_;
  std::vector<sim::LogLine> lines_;
  std::size_t oldest_ = 0;  // index in lines_ of the oldest line (0 until the ring is full)
  std::uint64_t dropped_ = 0;
};

}  // namespace ferry::sim::scenario
