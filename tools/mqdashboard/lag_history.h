// LagHistory: what the lag chart draws — each consumer group's total lag (messages not yet
// consumed, summed over every queue of every broker) sampled every interval, as rocketmq-dashboard
// samples it every minute. Bounded: at most `groups_max` groups (a new group beyond that is not
// recorded, and counted in groups_dropped) and `points_max` points each (the oldest goes first).
// Kept in memory only: a restarted dashboard starts a fresh history.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

namespace ferry::dashboard {

struct LagPoint {
  std::int64_t at_ms = 0;  // wall clock, ms since the epoch
  std::int64_t lag = 0;
};

class LagHistory {
 public:
  LagHistory(std::size_t groups_max, std::size_t points_max) : groups_max_(groups_max), points_max_(points_max) {}

  void record(const std::string& group, LagPoint point);
  // Oldest first; empty for a group never recorded.
  std::vector<LagPoint> points(const std::string& group) const;
  std::size_t groups() const { return table_.size(); }
  std::uint64_t groups_dropped() const { return groups_dropped_; }

 private:
  std::size_t groups_max_;
  std::size_t points_max_;
  std::map<std::string, std::deque<LagPoint>, std::less<>> table_;
  std::uint64_t groups_dropped_ = 0;
};

}  // namespace ferry::dashboard
