// SystemClock: the production Clock. now() is std::chrono::steady_clock (so MonoTime shares the
// steady clock's origin, which AsioTimers relies on to arm its steady_timer); wall_ms() is
// std::chrono::system_clock in milliseconds since the Unix epoch, plus a skew that is 0 unless
// skew_wall() moved it (what libfaketime does to a daemon, for an app of `mqsim run --real` that
// runs in the runner's process). Safe from any thread.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

#include "runtime/clock.h"

namespace ferry::asio_rt {

class SystemClock final : public Clock {
 public:
  MonoTime now() const override {
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::chrono::steady_clock::now().time_since_epoch());
    return MonoTime(ns);
  }
  WallMs wall_ms() const override {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
               .count() +
           skew_ms_.load(std::memory_order_relaxed);
  }
  // The wall clock jumps by `delta_ms` (kept); the monotonic clock does not move.
  void skew_wall(std::int64_t delta_ms) { skew_ms_.fetch_add(delta_ms, std::memory_order_relaxed); }

 private:
  std::atomic<std::int64_t> skew_ms_{0};
};

}  // namespace ferry::asio_rt
