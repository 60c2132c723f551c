// Generates SQL92 filter texts (common/sql92/parser.h's grammar) and encoded message properties
// for the SQL92 property test, the fuzz replay test and the fuzz corpus. Deterministic: a seed
// (splitmix64, tests/remoting/test_rng.h) gives the same texts on every run and machine.
//
// expression() is valid by construction: it builds a condition from every construct of the
// grammar (comparisons, [NOT] BETWEEN, [NOT] IN, IS [NOT] NULL, AND/OR/NOT, unary + and -,
// parentheses, string literals with doubled quotes, decimals with and without L beyond the int
// range, floats with exponents, TRUE/FALSE/NULL) under RocketMQ's compile-time checks, and writes
// it with odd spacing, comments and mixed-case keywords. The other inputs are mostly invalid:
// mutated expressions, token soup, random bytes and texts at the parser's bounds.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "tests/remoting/test_rng.h"

namespace ferry::sql92::testing {

// The property names the expressions read (case matters: "A" is another property than "a").
std::span<const std::string_view> expression_property_names();

class Sql92Generator {
 public:
  explicit Sql92Generator(std::uint64_t seed) : rng_(seed) {}

  // A condition that parses, nested up to `depth` levels of AND/OR/NOT and comparisons.
  std::string expression(int depth);
  // The same, reading no property (constant(): every message gets the same answer).
  std::string constant_expression(int depth);
  // `text` with 1 to 4 edits: bits flipped, bytes replaced, inserted or removed, a cut, a
  // duplicated slice, two words swapped, a word repeated or a keyword inserted.
  std::string mutate(std::string text);
  // Any input for the parser: mostly expression() (about 55%), else a mutated one, token soup,
  // random bytes, or a text near the parser's bounds (nesting, nodes, properties, bytes).
  std::string any_input();
  // Encoded properties (`k\x01v\x02k\x01v`, common/properties.h) over the expressions' names and
  // a few others: numbers in Java's forms and not quite (" 3 ", "3f", "NaN", "-0", beyond int and
  // long), booleans in any case, empty values, junk, repeated keys, empty entries and entries
  // without \x01.
  std::string properties();

  // Pieces for composed expressions (the property test's identities).
  std::string property_name();
  // A decimal or float literal that parses (positive; negative ones are written with '-').
  std::string numeric_literal();
  // A quoted string literal, quotes inside doubled.
  std::string string_literal();

  std::uint64_t below(std::uint64_t n) { return rng_.below(n); }
  bool chance(int percent) { return rng_.below(100) < static_cast<std::uint64_t>(percent); }

 private:
  remoting::testing::TestRng rng_;
};

}  // namespace ferry::sql92::testing
