// Helpers of the scenario tests (scenario_parse_test.cc, scenario_run_test.cc): parsing a text
// that must parse, or must not.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "sim/scenario/scenario.h"
#include "sim/scenario/scenario_parser.h"

namespace ferry::sim::testing {

// The scenario of `text` (as "t.toml"); a parse error fails the test and gives the defaults.
inline scenario::Scenario parse_ok(const std::string& text) {
  auto s = scenario::parse_scenario(text, "t.toml");
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().detail);
  if (!s.ok()) return scenario::Scenario{};
  return std::move(*s);
}

// The parser's complaint about `text`; a text that parses fails the test.
inline std::string parse_error(const std::string& text) {
  auto s = scenario::parse_scenario(text, "t.toml");
  EXPECT_FALSE(s.ok()) << "parsed without complaint:\n" << text;
  return s.ok() ? std::string() : s.error().detail;
}

}  // namespace ferry::sim::testing
