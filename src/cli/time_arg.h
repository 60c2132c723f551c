// Points in time on a command line (mqadmin resetOffsetByTime -s):
//   "1767225600000"              milliseconds since the epoch (all digits)
//   "now"                        `now_ms`
//   "2026-01-01T08:30:00Z"       ISO 8601 in UTC; ".123" milliseconds and "+08:00" / "-0530"
//   "2026-01-01T08:30:00+08:00"  offsets are accepted; a space may replace the 'T'
//   "2026-01-01T08:30:00"        no zone: local time (the TZ of the machine running mqadmin)
//   "2026-01-01#08:30:00:000"    RocketMQ's yyyy-MM-dd#HH:mm:ss:SSS, local time
// Errors (invalid_argument) quote the text and list the accepted forms.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/result.h"

namespace ferry::cli {

Result<std::int64_t> parse_time_arg(const std::string& text, std::int64_t now_ms);

// "2026-01-01T08:30:00.000Z" for epoch milliseconds.
std::string format_utc_ms(std::int64_t ms);

}  // namespace ferry::cli
