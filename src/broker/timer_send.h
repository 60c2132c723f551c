// What the send path does with a message's timer properties (RocketMQ 5's
// HookUtils.checkIfTimerMessage / transformTimerMessage), as a pure function of the properties,
// the rules and the timer clock:
//
//  * A message with a delay level (DELAY > 0) is no timer: its TIMER_* request properties are
//    dropped and the level decides.
//  * One that already carries TIMER_OUT_MS (a delivered timer sent on again), or is sent to
//    rmq_sys_wheel_timer itself, is no timer either.
//  * Otherwise, with any of TIMER_DELAY_SEC, TIMER_DELAY_MS, TIMER_DELIVER_MS (read in that
//    order; the first present decides): refused with SYSTEM_ERROR when timerWheelEnable is off;
//    MESSAGE_ILLEGAL when the value is not an integer or the due time lies more than
//    timerMaxDelaySec ahead; stored as it is (delivered at once) when the due time has come;
//    else a timer due at TIMER_OUT_MS = the due time rounded down to the precision (a due time
//    on a slot boundary goes to the slot before: the slot's end is the due time itself).
#pragma once

#include <cstdint>
#include <string>
#include <variant>

#include "common/properties.h"
#include "runtime/time.h"

namespace ferry::broker {

struct TimerRules {
  bool enabled = true;
  std::int64_t precision_ms = 1000;
  std::int64_t max_delay_ms = 259'200'000;
};

struct TimerRefusal {
  std::int32_t code = 0;  // a remoting response code
  std::string remark;
};

// Not a timer (nothing to do), a timer due at TIMER_OUT_MS, or refused.
struct NotTimer {};
struct TimerDue {
  std::int64_t out_ms = 0;
};
using TimerDecision = std::variant<NotTimer, TimerDue, TimerRefusal>;

// Decides for `props` (a message to `topic`, with delay level `delay_level`); drops the TIMER_*
// request properties of a delayed message. `now_ms` is the timer clock.
TimerDecision decide_timer(Properties& props, std::string_view topic, std::int32_t delay_level,
                           const TimerRules& rules, WallMs now_ms);

// The rules a broker's config sets (timerWheelEnable, timerPrecisionMs, timerMaxDelaySec).
struct BrokerConfig;
TimerRules timer_rules(const BrokerConfig& config);

// Whether `key` is one of the three properties that ask for a timer.
bool is_timer_request_key(std::string_view key);

}  // namespace ferry::broker
