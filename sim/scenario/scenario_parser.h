// The scenario file reader: TOML text in, a checked Scenario out (scenario.h; the format and
// every key's default in docs/scenarios.md).
//
// Everything is checked before anything runs: an unknown key, a value of the wrong type, a bad
// duration ("30s", "500ms", "2m"), a name that is not one of its choices, a number out of its
// range, a topic no cluster serves, a fault target that is not a node of the cluster, an option a
// fault action does not take. Each problem is reported as `file:line: key: what is wrong`, all of
// them at once (up to kDiagnosticsMax), in an invalid_argument Error, one a line. Bounded: text
// up to kScenarioTextBytesMax, entries up to the k...Max of scenario.h.
//
// Pure: no files, no clock. Reading the file is the caller's (sim/io/scenario_file.h).
#pragma once

#include <string>
#include <string_view>

#include "runtime/result.h"
#include "sim/scenario/scenario.h"

namespace ferry::sim::scenario {

// `file_name` is used in messages and, without its folders and ".toml", as the default name.
Result<Scenario> parse_scenario(std::string_view toml_text, std::string file_name);

}  // namespace ferry::sim::scenario
