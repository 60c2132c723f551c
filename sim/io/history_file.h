// History files on disk: the encoding follows the name (sim/history/history_codec.h: ".json" is
// json, anything else binary). Used by mqsim and by the tests that record a run.
//
// load_history_file: not_found / io_error when the file cannot be read (the path and the reason),
// corrupt / unsupported when its bytes are not a history this build reads (history_codec.h), the
// message prefixed with the path. A file larger than kHistoryFileBytesMax is refused unread.
// save_history_file: io_error when the file cannot be written in full.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/result.h"
#include "sim/history/history.h"

namespace ferry::sim::io {

inline constexpr std::uint64_t kHistoryFileBytesMax = 4ull << 30;  // 4 GiB

Result<sim::History> load_history_file(const std::string& path);
Status save_history_file(const std::string& path, const sim::History& h);

}  // namespace ferry::sim::io
