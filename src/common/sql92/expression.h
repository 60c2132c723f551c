// A compiled SQL92 filter: what RocketMQ's SqlFilter.compile makes of a subscription's
// expression (parser.h builds it), evaluated on a message's properties.
//
// Evaluation follows RocketMQ's expression classes (4.9) node for node, including their null
// rules (three-valued logic: a comparison with an absent property is NULL, NOT NULL is NULL,
// TRUE OR NULL is TRUE, FALSE AND NULL is FALSE) and their failures (java_values.h: a string
// compared with a number it does not parse as); a failure ends the whole evaluation, as a Java
// exception does, unless AND/OR decided before reaching it (left to right). A message is
// selected only when the expression is TRUE.
//
// Representation: nodes in one vector, children by index; AND and OR chains are one node with
// a list of operands. Bounded by parser.h's limits (nodes, depth, properties), so evaluation
// recursion is bounded too.
//
// Thread-safety: immutable after parsing; evaluate from any number of threads.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/sql92/java_values.h"

namespace ferry::sql92 {

// The result of evaluating a node: a value, or the exception RocketMQ's evaluator would throw.
struct Outcome {
  bool failed = false;
  Value value;

  static Outcome fail() { return Outcome{true, {}}; }
  static Outcome of(Value v) { return Outcome{false, v}; }
};

enum class Op : std::uint8_t {
  constant,  // value
  property,  // slot
  negate,    // unary minus: numbers negate, anything else is NULL
  logic_not,
  bool_cast,  // a bare property used as a condition: TRUE/FALSE only for a Boolean (never, for a
              // property, which is a string), NULL when absent
  logic_and,  // operands in list
  logic_or,
  eq,       // RocketMQ's doCreateEqual
  is_null,  // doCreateEqual(x, NULL)
  lt,
  le,
  gt,
  ge,
  in,      // property `a` in strings `list`; NULL for an absent property
  not_in,
};

struct Node {
  Op op = Op::constant;
  std::uint32_t a = 0;  // first operand / property slot
  std::uint32_t b = 0;  // second operand
  std::uint32_t list_begin = 0;  // logic_and/or: into operands_; in/not_in: into strings_ (sorted)
  std::uint32_t list_size = 0;
  Value value;  // constant
};

class Expression {
 public:
  // At most this many distinct properties: the evaluation keeps their values on the stack.
  static constexpr std::size_t kPropertiesMax = 64;

  Expression() = default;
  Expression(const Expression&) = delete;  // string views point into this object
  Expression& operator=(const Expression&) = delete;
  Expression(Expression&&) = default;
  Expression& operator=(Expression&&) = default;

  // The text it was compiled from.
  const std::string& text() const { return text_; }
  // The distinct property names it reads; slot i of evaluate() is properties()[i].
  const std::vector<std::string>& properties() const { return properties_; }
  // Whether it reads no property: then every message gets the same answer, constant_match().
  bool constant() const { return properties_.empty(); }
  bool constant_match() const { return constant_match_; }

  // Whether a message with these encoded properties (`k\x01v\x02k\x01v`, common/properties.h; a
  // repeated key counts with its last value) is selected. Does not allocate.
  bool matches(std::string_view encoded_properties) const;
  // Evaluation with the slots' values given (nullopt: the property is absent).
  Outcome evaluate(std::span<const std::optional<std::string_view>> slots) const;

  // A text that parses back to the same nodes (used by the tests): every binary operation in
  // parentheses, unary ones without. It nests no deeper than the expression, but it may be
  // longer, and a BETWEEN's operand is written twice (once in each of its comparisons), so
  // parsing it back may need a larger ParseLimits::text_bytes_max and nodes_max.
  std::string canonical() const;

  std::size_t node_count() const { return nodes_.size(); }

 private:
  friend class Builder;

  Outcome eval(std::uint32_t node, std::span<const std::optional<std::string_view>> slots) const;
  void print(std::uint32_t node, std::string& out) const;

  std::string text_;
  std::vector<Node> nodes_;
  std::uint32_t root_ = 0;
  std::vector<std::uint32_t> operands_;
  std::deque<std::string> literals_;  // owns the strings constants and IN lists view
  std::vector<std::string_view> strings_;
  std::vector<std::string> properties_;
  bool constant_match_ = false;
};

}  // namespace ferry::sql92
