#include "broker/timer_send.h"

#include <fmt/format.h>

#include <charconv>
#include <limits>
#include <optional>

#include "broker/broker_config.h"
#include "common/message_const.h"
#include "common/names.h"
#include "remoting/response_code.h"

namespace ferry::broker {

namespace code = remoting::response_code;

namespace {

// Java's Long.parseLong: an optional sign, then decimal digits, nothing else.
std::optional<std::int64_t> parse_long(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  std::int64_t v = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size()) return std::nullopt;
  return v;
}

// a + b, or nullopt on overflow.
std::optional<std::int64_t> add(std::int64_t a, std::int64_t b) {
  std::int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) return std::nullopt;
  return out;
}

std::string illegal_remark(const TimerRules& rules) {
  return fmt::format(
      "timer message illegal, the delay time should not be bigger than the max delay {}ms; or if set del msg, the "
      "delay time should be bigger than the current time",
      rules.max_delay_ms);
}

}  // namespace

TimerRules timer_rules(const BrokerConfig& config) {
  return TimerRules{.enabled = config.timer_wheel_enable,
                    .precision_ms = config.timer_precision_ms,
                    .max_delay_ms = config.timer_max_delay_sec * 1000};
}

bool is_timer_request_key(std::string_view key) {
  return key == prop::kTimerDelaySec || key == prop::kTimerDelayMs || key == prop::kTimerDeliverMs;
}

TimerDecision decide_timer(Properties& props, std::string_view topic, std::int32_t delay_level,
                           const TimerRules& rules, WallMs now_ms) {
  const auto sec = props.get(prop::kTimerDelaySec);
  const auto ms = props.get(prop::kTimerDelayMs);
  const auto deliver = props.get(prop::kTimerDeliverMs);
  if (!sec && !ms && !deliver) return NotTimer{};
  if (delay_level > 0) {
    (void)props.erase(prop::kTimerDelaySec);
    (void)props.erase(prop::kTimerDelayMs);
    (void)props.erase(prop::kTimerDeliverMs);
    return NotTimer{};
  }
  if (topic == kTimerTopic || props.get(prop::kTimerOutMs)) return NotTimer{};
  if (!rules.enabled) {
    return TimerRefusal{code::SYSTEM_ERROR, "accurate timer message is not enabled, timerWheelEnable is false"};
  }
  std::optional<std::int64_t> due;
  if (sec) {
    const auto v = parse_long(*sec);
    if (v && *v <= std::numeric_limits<std::int64_t>::max() / 1000 && *v >= std::numeric_limits<std::int64_t>::min() / 1000) {
      due = add(now_ms, *v * 1000);
    }
  } else if (ms) {
    if (const auto v = parse_long(*ms)) due = add(now_ms, *v);
  } else if (const auto v = parse_long(*deliver)) {
    due = *v;
  }
  if (!due) return TimerRefusal{code::MESSAGE_ILLEGAL, illegal_remark(rules)};
  if (*due <= now_ms) {
    if (props.get(prop::kTimerDelUniqKey)) return TimerRefusal{code::MESSAGE_ILLEGAL, illegal_remark(rules)};
    return NotTimer{};
  }
  if (*due - now_ms > rules.max_delay_ms) return TimerRefusal{code::MESSAGE_ILLEGAL, illegal_remark(rules)};
  const std::int64_t p = rules.precision_ms;
  const std::int64_t out = *due % p == 0 ? *due - p : *due / p * p;
  return TimerDue{out};
}

}  // namespace ferry::broker
