// Reading typed options by their specs (sim/history/option_value.h): a named check's options
// ([checks.<name>], sim/check/registry.h) and a fault action's own keys ([[faults]],
// fault_registry.h) go through the same reader, so both take the same types, ranges and names.
#pragma once

#include <functional>
#include <string>

#include "sim/history/option_value.h"
#include "sim/scenario/scenario.h"
#include "sim/scenario/toml_reader.h"

namespace ferry::sim::scenario {

// Reads option `o` of `r` into `value`, which holds o.default_value on entry and keeps it when
// the key is absent. Reports, through `r`: the wrong type, a value out of range or not among
// o.choices, a group (names_group) or topic (names_topic) `s` does not have, and, as `missing(o)`,
// a required option that is absent or a required group left empty.
void read_option(TableReader& r, const OptionSpec& o, const Scenario& s, OptionValue& value,
                 const std::function<std::string(const OptionSpec&)>& missing);

// Every option of `specs`, read as above (absent ones at their defaults), by name.
OptionValues read_options(TableReader& r, const std::vector<OptionSpec>& specs, const Scenario& s,
                          const std::function<std::string(const OptionSpec&)>& missing);

}  // namespace ferry::sim::scenario
