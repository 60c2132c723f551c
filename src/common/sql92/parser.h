// Compiles an SQL92 filter expression (RocketMQ's ExpressionType.SQL92, the grammar of its
// SelectorParser.jj in 4.9) into an Expression.
//
// Grammar, loosest first (every binary level is left-associative):
//   condition   := or
//   or          := and (OR and)*
//   and         := equality (AND equality)*
//   equality    := compare ( '=' compare | '<>' compare | IS NULL | IS NOT NULL )*
//   compare     := unary ( ('>' | '>=' | '<' | '<=') unary
//                        | [NOT] BETWEEN unary AND unary
//                        | [NOT] IN '(' string (',' string)* ')' )*
//   unary       := '+' unary | '-' unary | NOT unary | primary
//   primary     := string | decimal | float | TRUE | FALSE | NULL | property | '(' or ')'
// NOT binds tighter than comparisons, as in RocketMQ: "NOT a = 1" is "(NOT a) = 1", which no
// message satisfies; write "NOT (a = 1)" or "a <> 1".
//
// RocketMQ's checks at compile time, each an error here too: an operand of <, <=, >, >= or
// BETWEEN that is a non-numeric literal or a condition; NULL as an operand of = or <>; a
// Boolean literal compared with a non-Boolean literal by = or <> (TRUE = 1); BETWEEN literal
// bounds that are NULL or out of order; IN on anything but a property; an operand of AND, OR,
// NOT or the whole expression that is no condition (a number, a string); a decimal beyond the
// long range; a float that is 0, below Double.MIN_VALUE or infinite.
//
// Where Ferry is stricter than RocketMQ: text after a complete expression is an error (RocketMQ
// stops at the longest prefix that parses and ignores the rest: "a = 1 b = 2" selects by a).
//
// Errors (invalid_argument) name the position: "line 1, column 9: expected a value after '=',
// found end of text". Bounds (ParseLimits) are errors of their own.
#pragma once

#include <cstddef>
#include <string_view>

#include "common/sql92/expression.h"
#include "runtime/result.h"

namespace ferry::sql92 {

struct ParseLimits {
  std::size_t text_bytes_max = 16 * 1024;
  std::size_t nodes_max = 2048;
  std::size_t depth_max = 64;  // nesting of parentheses and unary operators, and of the nodes
};

Result<Expression> parse(std::string_view text, const ParseLimits& limits = {});

}  // namespace ferry::sql92
