// The typed options of a named check ([checks.<name>] of a scenario file, sim/check/registry.h)
// and of a fault action ([[faults]] entries, sim/scenario/fault_registry.h): each value is a
// bool, an integer, a duration or a string, and each kind of option is described once by an
// OptionSpec — its name, its default (which also fixes its type), what it means and the range it
// accepts. The scenario parser reads options by their specs; a History keeps a named check's
// options as values, so that a recorded run is judged again by the same rules.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "runtime/time.h"

namespace ferry::sim {

using OptionValue = std::variant<bool, std::int64_t, Duration, std::string>;
// Option values by name; a parsed check or fault holds every option its spec lists.
using OptionValues = std::map<std::string, OptionValue>;

// "bool", "integer", "duration" or "string".
const char* option_type_name(const OptionValue& v);

// Written with designated initializers: {.name = "latency", .default_value = Duration{}, ...}.
struct OptionSpec {
  std::string_view name;
  OptionValue default_value;  // also fixes the option's type
  std::string_view story;     // one line, for messages and the docs
  // Integers: the accepted range.
  std::int64_t min = 0;
  std::int64_t max = 0;
  // Durations: the accepted range.
  Duration min_duration{};
  Duration max_duration{};
  // Durations: a sign is accepted ("-5s"), and the value must be whole milliseconds.
  bool signed_ms = false;
  // The file must give it; its absence is reported as "<owner> needs <story>".
  bool required = false;
  // Strings naming a broker group ("broker-a") are checked against the scenario's cluster; with
  // `optional` the group may be left empty (""), and the figures about a group are not measured.
  bool names_group = false;
  bool optional = false;
  // Strings naming a topic of the scenario ([[topics]]).
  bool names_topic = false;
  // Strings: the accepted values (empty: any).
  std::vector<std::string_view> choices;
};

// The value of option `name` in `values`, asserting that it is there with type T (the parser fills
// every option of a spec, so a missing one is a bug).
template <typename T>
const T& option(const OptionValues& values, std::string_view name);

// A duration option in whole milliseconds.
std::int64_t option_ms(const OptionValues& values, std::string_view name);

}  // namespace ferry::sim
