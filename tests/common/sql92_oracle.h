// Independent answers the SQL92 filter (common/sql92) is checked against by its property test and
// its fuzz entry: message properties read by hand, what a well-formed parse error looks like,
// and what canonical() promises (its text parses back to an expression with the same text, the
// same properties and the same constant answer).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/sql92/expression.h"
#include "common/sql92/parser.h"

namespace ferry::sql92::testing {

// For re-parsing a canonical() text: the default depth (canonical text nests no deeper than the
// expression), room for the bytes and nodes canonical text adds (parentheses, spaces, a BETWEEN
// operand written twice).
ParseLimits reparse_limits();
// For texts that wrap a canonical() text in a few more operators ("NOT (...)"): as
// reparse_limits(), and 8 levels deeper.
ParseLimits composed_limits();

// The slots of `e` (properties() order) filled from encoded properties by hand: entries split at
// \x02, name and value at an entry's first \x01, the last occurrence of a name wins, an entry
// without \x01 names nothing.
std::vector<std::optional<std::string_view>> slots_by_hand(const Expression& e, std::string_view encoded);

// Whether an evaluation selects the message: it did not fail and is a TRUE Boolean.
bool selects(const Outcome& o);

// Whether two evaluations of conditions are the same: both failed, or the same Boolean or NULL.
bool same_outcome(const Outcome& x, const Outcome& y);

// Empty when a parse error's detail is well formed: "line L, column C: <what>" where line L
// exists in `text` and column C is at most one past its end, or the one bound named without a
// position, "the expression has N bytes, more than M" with N the text's size and N > M.
// Otherwise what is wrong with it.
std::string error_problem(std::string_view detail, std::string_view text);

// Empty when canonical() round-trips: its text parses (reparse_limits()) to an expression with
// the same canonical text, the same set of properties, the same constant() and constant_match().
// Otherwise what differs.
std::string round_trip_problem(const Expression& e);

// `text` for a failure message: bytes outside printable ASCII, and the backslash, as \xNN; at most 300.
std::string printable(std::string_view text);

}  // namespace ferry::sql92::testing
