// TimerQueue: the scheduling core shared by both runtimes.
//
// An ordered set of callbacks keyed by (deadline, sequence number): callbacks with the same
// deadline run in the order they were added, so the order never depends on pointer values or
// hash iteration. The production runtime arms one OS timer at next_deadline(); the simulator
// keeps one TimerQueue for the whole world and jumps virtual time to next_deadline().
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <utility>

#include "runtime/time.h"

namespace ferry {

// Identifies one scheduled callback. A default-constructed id refers to nothing.
struct TimerId {
  MonoTime when{};
  std::uint64_t seq = 0;  // 0 = none; real ids start at 1
  bool valid() const { return seq != 0; }
  auto operator<=>(const TimerId&) const = default;
};

class TimerQueue {
 public:
  using Callback = std::function<void()>;

  TimerId add(MonoTime when, Callback cb) {
    TimerId id{when, ++last_seq_};
    entries_.emplace(id, std::move(cb));
    return id;
  }
  // True when the callback was still pending and is now removed.
  bool cancel(TimerId id) { return id.valid() && entries_.erase(id) > 0; }

  std::optional<MonoTime> next_deadline() const {
    if (entries_.empty()) return std::nullopt;
    return entries_.begin()->first.when;
  }
  // Removes and returns the earliest entry whose deadline is <= now.
  std::optional<std::pair<TimerId, Callback>> pop_due(MonoTime now) {
    if (entries_.empty() || entries_.begin()->first.when > now) return std::nullopt;
    auto node = entries_.extract(entries_.begin());
    return std::make_pair(node.key(), std::move(node.mapped()));
  }
  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  void clear() { entries_.clear(); }

 private:
  std::map<TimerId, Callback> entries_;
  std::uint64_t last_seq_ = 0;
};

}  // namespace ferry
