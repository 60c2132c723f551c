// The values an SQL92 filter computes with, and the Java conversions and comparisons RocketMQ's
// evaluator (org.apache.rocketmq.filter.expression, 4.9) applies to them. Every rule here is
// Java's, because a subscription must select the same messages on Ferry as on RocketMQ:
//
//  * A message property is always a string; literals are Integer (a decimal that fits in 32
//    bits), Long (a larger one), Double, String or Boolean; NULL is the absent value.
//  * Comparing a string with a number converts the string the way the number's class would
//    parse it: Integer.valueOf, Long.valueOf or Double.valueOf. A string that does not parse
//    throws in Java; here that is `Outcome::failed`, and a filter whose evaluation fails
//    selects nothing, as RocketMQ's ExpressionMessageFilter catches the exception and skips
//    the message.
//  * A string compared with a Boolean converts by Boolean.valueOf ("true" in any case is true,
//    anything else false); a Boolean on the left of a string fails (a ClassCastException in
//    RocketMQ's ComparisonExpression).
//  * Other mixed pairs (a Boolean and a number) compare as "less": never equal.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ferry::sql92 {

enum class Type : std::uint8_t { null, boolean, int32, int64, float64, string };

std::string_view type_name(Type t);

// A value. Strings are views: into the expression (literals) or into the message's properties
// (valid for one evaluation).
struct Value {
  Type type = Type::null;
  bool b = false;
  std::int64_t i = 0;  // int32 and int64
  double d = 0;
  std::string_view s;

  static Value null() { return {}; }
  static Value boolean(bool v) { return Value{Type::boolean, v, 0, 0, {}}; }
  static Value int32(std::int32_t v) { return Value{Type::int32, false, v, 0, {}}; }
  static Value int64(std::int64_t v) { return Value{Type::int64, false, v, 0, {}}; }
  static Value float64(double v) { return Value{Type::float64, false, 0, v, {}}; }
  static Value string(std::string_view v) { return Value{Type::string, false, 0, 0, v}; }

  bool is_null() const { return type == Type::null; }
  bool is_number() const { return type == Type::int32 || type == Type::int64 || type == Type::float64; }
};

// Java's equals(): same class and same value (Double by its bits: NaN equals NaN, 0.0 does not
// equal -0.0). Both non-null.
bool java_equals(const Value& l, const Value& r);

// ComparisonExpression.__compare with string conversion on (the only way RocketMQ's parser
// builds comparisons): negative, zero or positive; nullopt where Java throws (a string that does
// not parse as the number it is compared with, a Boolean left of a string). Both non-null.
std::optional<int> java_compare(const Value& l, const Value& r);

// Java's parsers, on ASCII text (Java also takes other Unicode digits; message properties with
// those are not numbers here). nullopt where Java throws NumberFormatException.
std::optional<std::int32_t> java_parse_int(std::string_view s);   // Integer.valueOf
std::optional<std::int64_t> java_parse_long(std::string_view s);  // Long.valueOf
// Double.valueOf: surrounding characters <= ' ' trimmed; an optional sign; "NaN", "Infinity",
// a decimal with optional fraction and exponent, or a hexadecimal "0x1.8p3"; an optional f/F/d/D
// suffix. Out-of-range values become infinity or zero as in Java.
std::optional<double> java_parse_double(std::string_view s);
// Boolean.valueOf: true only for "true" in any case.
bool java_parse_boolean(std::string_view s);

}  // namespace ferry::sql92
