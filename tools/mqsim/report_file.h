// Report pages on disk (mqsim run/check --report FILE.html; the page itself is
// sim/report/html_report.h).
//
// report_path: with several seeds, each seed's page gets the seed before the extension
// ("out.html" -> "out-seed3.html"; without an extension "out" -> "out-seed3"); one seed: FILE as
// given. save_report: io_error naming the path when the file cannot be written in full.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/result.h"

namespace ferry::mqsim {

std::string report_path(const std::string& file, std::uint64_t seed, bool several);
Status save_report(const std::string& path, const std::string& html);

}  // namespace ferry::mqsim
