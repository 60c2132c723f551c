// History files, in two encodings of the same fields (cereal):
//   json    for people: one object {"format": "ferry-history", "version": 8, "history": {...}}
//   binary  for size: an 8-byte magic "FERRYHST", the version (u32 LE), the payload length
//           (u64 LE), the CRC-32 of the payload (u32 LE), then the payload (cereal's portable
//           binary archive). The header lets a reader refuse a truncated or damaged file before
//           decoding a single length from it.
// The encoding of a file follows its name: ".json" is json, anything else binary.
//
// decode_history() never crashes on bad input: a wrong magic or version, a short or damaged
// file, a missing field or a value out of range come back as Errc::corrupt (or
// Errc::unsupported for a version outside [kHistoryVersionReadMin, kHistoryVersion]) with what
// was wrong. Fields added to version 2 later
// (History::consumers and commits, the later CheckSettings) may be missing from a json file: they
// keep their defaults. The codec does not know the checkers: a named check this build lacks
// loads, and run_all_checks (sim/check/checkers.h) says so in a failing verdict. encode_history() cannot fail.
// Files are read and written by the caller (sim/io/history_file.h): nothing here does I/O.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "runtime/result.h"
#include "sim/history/history.h"

namespace ferry::sim {

enum class HistoryEncoding : std::uint8_t { json, binary };

// 3: CheckSettings::expected_errors, History::error_logs and error_logs_not_kept.
// 4: CheckSettings::send_outcomes.
// 5: ConsumeRecord::lock_at (orderly-exclusive), History::takes (queues consumers took).
// 6: History::store_restarts.
// 7: CheckSettings::named (every named check with its options, by name) instead of one typed field
//    per named check; a file of version 5 or 6 loads its named checks as the same options.
// 8: History::controller_views and broker_epochs (controller mode).
// 9: CheckSettings::figures_only, History::queue_floors.
// 10: History::unobserved (a real run's record kinds it could not observe).
// 11: History::metric_samples and metric_samples_not_kept (the nodes' metrics in virtual time).
// 12: SendRecord::fate, by_check, verdict_at (transactional sends), as a side table
//     "transactions" of the sends that have them.
// 13: ConsumerInfo::sql (SQL92 subscriptions), as a side table "selectors" of the consumers
//     that have one.
// 14: History::requests (request-reply).
// 15: SendRecord::timer_delay (timer messages), as a side table "timers" of the sends that have one.
// 16: ConsumeRecord::pop (POP deliveries), as a side table "pops" of the consumes that have one,
//     and History::pop_acks.
// 17: PopDelivery::pop_time_ms (the broker's time of a POP), as a side table "pop_times".
inline constexpr std::uint32_t kHistoryVersion = 17;
// The oldest version a reader still takes: a version 5 file loads with no store_restarts (the
// store-prefix checker then has no restart to judge). Older ones are refused (unsupported).
inline constexpr std::uint32_t kHistoryVersionReadMin = 5;
inline constexpr std::string_view kHistoryFormatName = "ferry-history";
inline constexpr std::string_view kHistoryBinaryMagic = "FERRYHST";
inline constexpr std::size_t kHistoryBinaryHeaderBytes = 8 + 4 + 8 + 4;  // magic, version, length, crc
static_assert(kHistoryBinaryMagic.size() == 8, "the binary magic is 8 bytes");

// json for a name ending in ".json", binary otherwise.
HistoryEncoding encoding_for_path(std::string_view path);

std::string encode_history(const History& h, HistoryEncoding e);
Result<History> decode_history(std::string_view bytes, HistoryEncoding e);

}  // namespace ferry::sim
