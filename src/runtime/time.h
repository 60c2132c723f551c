// Time types. Component code reads time only through `Clock` (runtime.h); these are the types.
//
// MonoTime: monotonic node time, nanoseconds since an arbitrary per-node origin. Use it for
//           deadlines, timeouts and intervals.
// WallMs:   wall-clock milliseconds since the Unix epoch, as RocketMQ stores them (store and born
//           timestamps). It may jump and may be skewed per node in simulation; never use it to
//           measure an interval that matters for correctness.
#pragma once

#include <chrono>
#include <cstdint>

namespace ferry {

using Duration = std::chrono::nanoseconds;
using std::chrono_literals::operator""ns;
using std::chrono_literals::operator""us;
using std::chrono_literals::operator""ms;
using std::chrono_literals::operator""s;
using std::chrono_literals::operator""min;
using std::chrono_literals::operator""h;

// A tag clock: it gives MonoTime a distinct type but has no now(); ask the node's Clock.
struct MonoClock {
  using rep = std::int64_t;
  using period = std::nano;
  using duration = std::chrono::nanoseconds;
  using time_point = std::chrono::time_point<MonoClock>;
  static constexpr bool is_steady = true;
};
using MonoTime = MonoClock::time_point;

using WallMs = std::int64_t;

constexpr std::int64_t to_ms(Duration d) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(d).count();
}
constexpr std::int64_t to_ns(MonoTime t) { return t.time_since_epoch().count(); }
constexpr double to_seconds(Duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace ferry
