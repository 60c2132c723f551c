// LogLimiter: a log line that a lasting fault or a misbehaving peer could repeat at will (a disk
// that stays full, descriptors exhausted, a client sending bad frames) is written at most once per
// period; the next line that passes says how many were held back, so nothing is hidden, only
// summed. Every such line in the component code goes through one of these, with the same period.
//
//   if (auto held = limiter_.admit(rt_.now(), kind)) {
//     rt_.log().warn("accept failed: {}{}", why, held_back_note(*held));
//   }
//
// `kind` (optional) distinguishes causes: a line of another kind than the last one admitted passes
// at once (a new cause is news), lines of the same kind once per period. Callers pass a small
// stable number (an Errc, a request code), never text that changes each time (a file name, an
// offset): that would let every line through.
//
// A plain value owned by its node and used on its loop; it reads no clock itself.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "runtime/time.h"

namespace ferry {

class LogLimiter {
 public:
  // The period every repeating line shares unless a caller has a reason for another.
  static constexpr Duration kPeriod = std::chrono::seconds(10);

  explicit LogLimiter(Duration period = kPeriod) : period_(period) {}

  // Whether a line of `kind` may be written at `now`: the number of lines held back since the
  // last one admitted (0 for the first), or nullopt when this one is held back (and counted).
  std::optional<std::uint64_t> admit(MonoTime now, std::int64_t kind = 0) {
    if (last_ && kind == kind_ && now - *last_ < period_) {
      ++held_;
      return std::nullopt;
    }
    const std::uint64_t held = held_;
    held_ = 0;
    last_ = now;
    kind_ = kind;
    return held;
  }

  // Lines held back since the last one admitted.
  std::uint64_t held() const { return held_; }
  // Forgets the last line: the next one passes at once (the fault cleared; its return is news).
  void reset() {
    last_.reset();
    held_ = 0;
  }

 private:
  Duration period_;
  std::optional<MonoTime> last_;
  std::int64_t kind_ = 0;
  std::uint64_t held_ = 0;
};

// "" for 0, else " (N more like it held back)": the tail of an admitted line.
inline std::string held_back_note(std::uint64_t held) {
  if (held == 0) return {};
  return " (" + std::to_string(held) + " more like it held back)";
}

}  // namespace ferry
