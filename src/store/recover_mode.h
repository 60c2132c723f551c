// RecoverMode: what CommitLog recovery does when it finds a bad record with good data after it
// (corruption in the middle of the log, not a torn tail). docs/operations.md, "Recovery", says
// when an operator picks which. broker.conf `recoverMode`, `mqbroker --recover=` overrides it.
//
//   abort     (default) the store refuses to open: an Errc::corrupt error names the file, the
//             offset of the bad record, how much good data follows it and the option to choose.
//   truncate  the log is cut at the bad record as for a torn tail: the good data after it is
//             discarded, logged at error level with the bytes, records and files it held.
//   skip      the damaged range is overwritten with filler records (or a BLANK to the end of its
//             file) that dispatch and readers step over; the good records after it are kept.
//
// A torn tail (no valid record after the bad one, or a bad record past what the checkpoint says
// was synced) is always cut, whatever the mode: that is the normal end of a log after a crash.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ferry::store {

enum class RecoverMode : std::uint8_t { abort, truncate, skip };

// "abort", "truncate", "skip" (lower case, as the command line and broker.conf take them).
constexpr std::string_view recover_mode_name(RecoverMode m) {
  switch (m) {
    case RecoverMode::abort: return "abort";
    case RecoverMode::truncate: return "truncate";
    case RecoverMode::skip: return "skip";
  }
  return "?";
}

// The mode named `text` exactly (lower case); nullopt for anything else.
constexpr std::optional<RecoverMode> parse_recover_mode(std::string_view text) {
  for (const RecoverMode m : {RecoverMode::abort, RecoverMode::truncate, RecoverMode::skip}) {
    if (text == recover_mode_name(m)) return m;
  }
  return std::nullopt;
}

inline constexpr std::string_view kRecoverModeChoices = "abort|truncate|skip";

static_assert(parse_recover_mode("skip") == RecoverMode::skip);
static_assert(!parse_recover_mode("SKIP").has_value());

}  // namespace ferry::store
