#include "runtime/asio/asio_timers.h"

#include <boost/asio/error.hpp>

#include <algorithm>
#include <chrono>
#include <utility>

namespace ferry::asio_rt {

namespace {
std::chrono::steady_clock::time_point to_steady(MonoTime t) {
  return std::chrono::steady_clock::time_point(
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(t.time_since_epoch()));
}
}  // namespace

AsioTimers::AsioTimers(boost::asio::io_context& io, const Clock& clock) : clock_(clock), timer_(io) {}

AsioTimers::~AsioTimers() {
  // The pending wait completes with operation_aborted, and its handler touches nothing.
  queue_.clear();
  timer_.cancel();
}

TimerId AsioTimers::schedule(Duration delay, std::function<void()> fn) {
  FERRY_ASSERT(fn != nullptr, "Timers::schedule with an empty callback");
  // Delays are clamped to [0, 100 years] so that "forever" cannot overflow the deadline.
  constexpr Duration kLongest = std::chrono::hours(24 * 365 * 100);
  const MonoTime when = clock_.now() + std::clamp(delay, Duration::zero(), kLongest);
  const TimerId id = queue_.add(when, std::move(fn));
  arm();
  return id;
}

bool AsioTimers::cancel(TimerId id) { return queue_.cancel(id); }

void AsioTimers::arm() {
  const std::optional<MonoTime> next = queue_.next_deadline();
  if (!next) return;
  if (armed_at_ && *armed_at_ <= *next) return;  // already waiting for this deadline or earlier
  // expires_at cancels the previous wait (its handler sees operation_aborted and does nothing).
  timer_.expires_at(to_steady(*next));
  armed_at_ = *next;
  timer_.async_wait([this](const boost::system::error_code& ec) {
    if (ec == boost::asio::error::operation_aborted) return;
    fire();
  });
}

void AsioTimers::fire() {
  armed_at_.reset();
  // Everything due at this instant runs; entries a callback adds for "now or later" wait for
  // the next wake-up, so a callback that reschedules itself with no delay cannot starve the loop.
  const MonoTime now = clock_.now();
  while (auto due = queue_.pop_due(now)) {
    due->second();
  }
  arm();
}

}  // namespace ferry::asio_rt
