// The named checks a scenario may ask for ([checks.<name>] tables) and the options each takes,
// with their types and defaults. The parser refuses names and options not listed here and fills
// in the defaults; the runner finds the checker by name. Add a row here when a checker learns a
// new bound.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "sim/scenario/scenario.h"

namespace ferry::sim::scenario {

struct CheckOptionInfo {
  std::string_view name;
  CheckValue default_value;  // also fixes the option's type
  std::string_view story;
  // Integers and durations: the accepted range (durations in ms).
  std::int64_t min = 0;
  std::int64_t max = 0;
  // Strings naming a broker group ("broker-a") are checked against the cluster.
  bool names_group = false;
  // A group option that may be left empty (""): the figures about a group are then not measured.
  bool optional = false;
};

struct CheckerInfo {
  std::string_view name;
  std::string_view story;
  std::vector<CheckOptionInfo> options;
};

const std::vector<CheckerInfo>& checker_catalog();
const CheckerInfo* find_checker(std::string_view name);

// The value of option `name` of `check` (the parser filled every option); asserts that it exists
// with type T.
template <typename T>
const T& check_option(const NamedCheck& check, std::string_view name);

}  // namespace ferry::sim::scenario
