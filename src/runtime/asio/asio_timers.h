// AsioTimers: the production Timers. The shared scheduling core (TimerQueue, ordered by deadline
// then sequence) holds every pending callback; one boost::asio::steady_timer is armed at the
// queue's earliest deadline. When it fires, every entry due at that moment runs, in queue order,
// inline in the timer's handler on the loop thread; then the timer is re-armed.
//
// Loop thread only (schedule, cancel and the callbacks). A cancelled entry never runs; the OS
// timer is not disarmed on cancel (a spurious wake-up finds nothing due and re-arms).
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <functional>
#include <optional>

#include "runtime/clock.h"
#include "runtime/executor.h"
#include "runtime/timer_queue.h"

namespace ferry::asio_rt {

class AsioTimers final : public Timers {
 public:
  // `clock` must measure MonoTime on std::chrono::steady_clock's origin (SystemClock does).
  AsioTimers(boost::asio::io_context& io, const Clock& clock);
  ~AsioTimers() override;

  TimerId schedule(Duration delay, std::function<void()> fn) override;
  bool cancel(TimerId id) override;

  std::size_t pending() const { return queue_.size(); }

 private:
  void arm();
  void fire();

  const Clock& clock_;
  boost::asio::steady_timer timer_;
  TimerQueue queue_;
  std::optional<MonoTime> armed_at_;  // the deadline the OS timer waits for, if it waits
};

}  // namespace ferry::asio_rt
