#include "store/timer/timer_wheel.h"

#include "runtime/assert.h"

namespace ferry::store::timer {

namespace {

std::int64_t floor_to(std::int64_t ms, std::int64_t precision) {
  const std::int64_t q = ms / precision;
  return (ms % precision < 0 ? q - 1 : q) * precision;
}

}  // namespace

TimerWheel::TimerWheel(std::int64_t precision_ms, std::int64_t slots, std::int64_t current_ms)
    : precision_ms_(precision_ms), current_(0) {
  FERRY_ASSERT(precision_ms > 0 && slots >= 2, "a timer wheel of {} slots of {} ms", slots, precision_ms);
  current_ = floor_to(current_ms, precision_ms);
  heads_.resize(static_cast<std::size_t>(slots));
  block_counts_.resize(static_cast<std::size_t>((slots + kBlockSlots - 1) / kBlockSlots), 0);
}

std::size_t TimerWheel::index(std::int64_t slot_ms) const {
  FERRY_ASSERT(slot_ms % precision_ms_ == 0 && slot_ms >= current_ && slot_ms <= last_slot(),
               "slot {} outside the wheel's window [{}, {}] of {} ms slots", slot_ms, current_, last_slot(),
               precision_ms_);
  const std::int64_t n = slots();
  return static_cast<std::size_t>(((slot_ms / precision_ms_) % n + n) % n);
}

std::int64_t TimerWheel::slot_for(std::int64_t deliver_ms) const {
  const std::int64_t own = floor_to(deliver_ms, precision_ms_);
  if (own < current_) return current_;
  if (own > last_slot()) return last_slot();
  return own;
}

TimerWheel::Head TimerWheel::head(std::int64_t slot_ms) const { return heads_[index(slot_ms)]; }

void TimerWheel::add(std::int64_t slot_ms, std::int64_t pos) {
  const std::size_t i = index(slot_ms);
  FERRY_ASSERT(pos > heads_[i].last, "entry {} filed under slot {} after entry {}", pos, slot_ms, heads_[i].last);
  heads_[i].last = pos;
  ++heads_[i].count;
  ++block_counts_[i / kBlockSlots];
  ++pending_;
}

std::optional<std::int64_t> TimerWheel::next_due() const {
  if (pending_ == 0) return std::nullopt;
  const std::int64_t n = slots();
  std::int64_t k = 0;  // slots from current_
  while (k < n) {
    const std::size_t i = index(current_ + k * precision_ms_);
    const std::size_t block = i / kBlockSlots;
    if (block_counts_[block] == 0) {
      // Skip to the next block's first index (or the window's end).
      const std::int64_t to_block_end = static_cast<std::int64_t>((block + 1) * kBlockSlots - i);
      k += std::min<std::int64_t>(to_block_end, static_cast<std::int64_t>(heads_.size() - i));
      continue;
    }
    if (heads_[i].count > 0) return current_ + k * precision_ms_;
    ++k;
  }
  FERRY_ASSERT(false, "the timer wheel counts {} entries but no slot holds one", pending_);
  return std::nullopt;
}

TimerWheel::Head TimerWheel::take() {
  const std::size_t i = index(current_);
  const Head h = heads_[i];
  heads_[i] = Head{};
  block_counts_[i / kBlockSlots] -= h.count;
  pending_ -= h.count;
  current_ += precision_ms_;
  return h;
}

void TimerWheel::skip_to(std::int64_t slot_ms) {
  FERRY_ASSERT(slot_ms % precision_ms_ == 0 && slot_ms >= current_, "timer wheel skip from {} to {}", current_,
               slot_ms);
  if (slot_ms == current_) return;
  const std::optional<std::int64_t> due = next_due();
  FERRY_ASSERT(!due || *due >= slot_ms, "timer wheel skip from {} to {} passes slot {}, which holds entries",
               current_, slot_ms, *due);
  current_ = slot_ms;
}

std::int64_t TimerWheel::memory_bytes() const {
  return static_cast<std::int64_t>(heads_.size() * sizeof(Head) + block_counts_.size() * sizeof(std::int64_t));
}

}  // namespace ferry::store::timer
