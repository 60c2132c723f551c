// SystemClock: the production Clock. now() is std::chrono::steady_clock (so MonoTime shares the
// steady clock's origin, which AsioTimers relies on to arm its steady_timer); wall_ms() is
// std::chrono::system_clock in milliseconds since the Unix epoch. Safe from any thread.
#pragma once

#include <chrono>

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
        .count();
  }
};

}  // namespace ferry::asio_rt
