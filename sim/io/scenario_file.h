// Scenario files on disk, for mqsim and the tests: reading one (the parser itself is pure and
// lives in sim/scenario/scenario_parser.h) and listing a folder of them.
#pragma once

#include <string>
#include <vector>

#include "runtime/result.h"
#include "sim/scenario/scenario.h"

namespace ferry::sim::io {

// Reads and parses `path`. Errors: not_found / io_error naming the path (and the system's
// reason), a file over kScenarioFileBytesMax (invalid_argument), and every parse error
// (invalid_argument, "path:line: key: what", one a line).
inline constexpr std::size_t kScenarioFileBytesMax = 1 << 20;
Result<sim::scenario::Scenario> load_scenario(const std::string& path);

// The "*.toml" files directly in `dir`, sorted by name, as "dir/name.toml". Errors: not_found
// when `dir` is not a folder.
Result<std::vector<std::string>> scenario_files(const std::string& dir);

}  // namespace ferry::sim::io
