// TimerWheel: the in-memory slot table over the TimerLog (timer_log.h; docs/store.md, "Timer
// messages").
//
// Time is cut into slots of `precision_ms`; slot X holds the timers whose TIMER_OUT_MS is X, and
// is due once the timer clock reaches X + precision_ms (TIMER_OUT_MS is the requested time
// rounded down, so nothing is delivered before the time it asked for). The wheel covers a
// window of `slots` slots from current(), the first slot not yet taken; slot X lives at index
// (X / precision_ms) mod slots. A timer due beyond the window is filed under the window's last
// slot (rolled) and filed again when that slot is taken: each roll moves it a whole window on,
// so a timer is rolled at most (delay / window) times, whatever the delay.
//
// Per slot the wheel keeps the TimerLog position of the slot's last entry and how many entries
// it has: 16 bytes a slot, whatever the number of timers pending (they are on disk). Per block of
// kBlockSlots slots it keeps a count too, so that next_due() skips empty stretches quickly.
//
// Threading: the node's loop only.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "store/timer/timer_log.h"

namespace ferry::store::timer {

class TimerWheel {
 public:
  static constexpr std::int64_t kBlockSlots = 1024;

  struct Head {
    std::int64_t last = kNoEntry;  // TimerLog position of the slot's newest entry
    std::int64_t count = 0;
  };

  // `precision_ms` > 0, `slots` >= 2; `current_ms` is rounded down to a slot.
  TimerWheel(std::int64_t precision_ms, std::int64_t slots, std::int64_t current_ms);

  std::int64_t precision_ms() const { return precision_ms_; }
  std::int64_t slots() const { return static_cast<std::int64_t>(heads_.size()); }
  // The first slot not yet taken.
  std::int64_t current() const { return current_; }
  // The last slot of the window.
  std::int64_t last_slot() const { return current_ + (slots() - 1) * precision_ms_; }
  // The slot a timer due at `deliver_ms` (a TIMER_OUT_MS) is filed under now: its own slot, the
  // current one when that has been taken already, the window's last one when it lies beyond.
  std::int64_t slot_for(std::int64_t deliver_ms) const;

  // The head of `slot_ms`, which must lie in the window.
  Head head(std::int64_t slot_ms) const;
  // Entry `pos` was appended under `slot_ms` (in the window) with prev = head(slot_ms).last.
  void add(std::int64_t slot_ms, std::int64_t pos);

  // The first non-empty slot of the window, or nullopt when every slot is empty.
  std::optional<std::int64_t> next_due() const;
  // Takes the current slot: returns its head, empties it and moves current() one slot on.
  Head take();
  // Moves current() to `slot_ms` (a slot, at or after current(), at most next_due()): the slots
  // passed must be empty.
  void skip_to(std::int64_t slot_ms);

  // Entries filed, all slots together.
  std::int64_t pending() const { return pending_; }
  // Bytes of memory the table takes (heads and block counts).
  std::int64_t memory_bytes() const;

 private:
  std::size_t index(std::int64_t slot_ms) const;

  std::int64_t precision_ms_;
  std::int64_t current_;
  std::vector<Head> heads_;
  std::vector<std::int64_t> block_counts_;
  std::int64_t pending_ = 0;
};

}  // namespace ferry::store::timer
