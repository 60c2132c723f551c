// RapidCheck properties of the SQL92 filter (common/sql92) on generated expressions and message
// properties (sql92_generator.h): the parser never crashes and says where it refuses; whatever
// it accepts round-trips through canonical(); matches() is evaluation on properties read by hand;
// constant expressions ignore the properties; and identities that RocketMQ's three-valued logic
// keeps exactly (failures propagating left to right, NULL staying NULL) hold. RapidCheck's
// default 100 cases a property (RC_PARAMS="max_success=N" for more); a failure prints the
// expression (RC_LOG) and RC_PARAMS="reproduce=..." to replay it.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <bit>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "common/properties.h"
#include "common/sql92/java_values.h"
#include "common/sql92/parser.h"
#include "tests/common/sql92_generator.h"
#include "tests/common/sql92_oracle.h"

namespace ferry::sql92::testing {
namespace {

Sql92Generator seeded() { return Sql92Generator(*rc::gen::arbitrary<std::uint64_t>()); }
int some_depth() { return *rc::gen::inRange(0, 6); }

Expression must_parse(const std::string& text, const ParseLimits& limits = composed_limits()) {
  auto e = parse(text, limits);
  if (!e.ok()) RC_FAIL("\"" + printable(text) + "\" does not parse: " + e.error().detail);
  return std::move(*e);
}

// A generated expression that parses (logged for a failure).
Expression condition(Sql92Generator& g, int depth, const char* name = "E") {
  const std::string text = g.expression(depth);
  RC_LOG() << name << " = \"" << printable(text) << "\"\n";
  return must_parse(text, ParseLimits{});
}

std::vector<std::string> some_properties(Sql92Generator& g) {
  std::vector<std::string> out;
  for (int i = 0; i < 6; ++i) out.push_back(g.properties());
  return out;
}

Outcome evaluate(const Expression& e, std::string_view properties) {
  return e.evaluate(slots_by_hand(e, properties));
}

std::string describe(const Outcome& o) {
  if (o.failed) return "fails";
  if (o.value.type == Type::boolean) return o.value.b ? "TRUE" : "FALSE";
  return std::string(type_name(o.value.type));
}

// `x` and `y` evaluate the same (failing, TRUE, FALSE or NULL alike) on every properties text.
void same_everywhere(const Expression& x, const Expression& y, const std::vector<std::string>& properties) {
  for (const std::string& p : properties) {
    const Outcome ox = evaluate(x, p);
    const Outcome oy = evaluate(y, p);
    if (!same_outcome(ox, oy)) {
      RC_FAIL(printable(x.canonical()) + " " + describe(ox) + " but " + printable(y.canonical()) + " " + describe(oy) +
              " on \"" + printable(p) + "\"");
    }
  }
}

RC_GTEST_PROP(Sql92Property, ParserNeverCrashesAndRefusalsSayWhere, ()) {
  Sql92Generator g = seeded();
  const std::string text = g.any_input();
  RC_LOG() << "text = \"" << printable(text) << "\"\n";
  auto e = parse(text);
  RC_CLASSIFY(e.ok());
  if (e.ok()) return;
  RC_ASSERT(e.error().code == Errc::invalid_argument);
  const std::string problem = error_problem(e.error().detail, text);
  if (!problem.empty()) RC_FAIL(problem);
}

// The generator writes only valid expressions: a refusal is the parser's bug or the generator's.
RC_GTEST_PROP(Sql92Property, GeneratedExpressionsParse, ()) {
  Sql92Generator g = seeded();
  const int depth = some_depth();
  condition(g, depth);
  const std::string constant = g.constant_expression(depth);
  RC_LOG() << "constant = \"" << printable(constant) << "\"\n";
  RC_ASSERT(must_parse(constant, ParseLimits{}).constant());
}

RC_GTEST_PROP(Sql92Property, CanonicalTextRoundTrips, ()) {
  Sql92Generator g = seeded();
  // Mostly generated inputs that parse, mutated or at the bounds ones included.
  std::string text = g.any_input();
  for (int i = 0; i < 8 && !parse(text).ok(); ++i) text = g.any_input();
  if (!parse(text).ok()) text = g.expression(some_depth());
  RC_LOG() << "E = \"" << printable(text) << "\"\n";
  const Expression e = must_parse(text, ParseLimits{});
  const std::string problem = round_trip_problem(e);
  if (!problem.empty()) RC_FAIL(problem);
  const Expression again = must_parse(e.canonical(), reparse_limits());
  for (const std::string& p : some_properties(g)) RC_ASSERT(again.matches(p) == e.matches(p));
}

RC_GTEST_PROP(Sql92Property, MatchesIsEvaluationOnPropertiesReadByHand, ()) {
  Sql92Generator g = seeded();
  const Expression e = condition(g, some_depth());
  for (const std::string& p : some_properties(g)) {
    RC_LOG() << "properties = \"" << printable(p) << "\"\n";
    const bool selected = e.matches(p);
    RC_ASSERT(selected == selects(evaluate(e, p)));
    // Where the text is one decode_properties() takes, its map gives the same slots.
    auto decoded = decode_properties(p);
    if (!decoded.ok()) continue;
    std::vector<std::optional<std::string_view>> slots;
    for (const std::string& name : e.properties()) slots.push_back(decoded->get(name));
    RC_ASSERT(selects(e.evaluate(slots)) == selected);
  }
}

RC_GTEST_PROP(Sql92Property, ConstantExpressionsIgnoreProperties, ()) {
  Sql92Generator g = seeded();
  const std::string text = g.constant_expression(some_depth());
  RC_LOG() << "E = \"" << printable(text) << "\"\n";
  const Expression e = must_parse(text, ParseLimits{});
  RC_ASSERT(e.constant());
  RC_ASSERT(e.constant_match() == selects(e.evaluate({})));
  for (const std::string& p : some_properties(g)) RC_ASSERT(e.matches(p) == e.constant_match());
}

// Identities of one condition E, exact under RocketMQ's evaluation (expression.cc): NOT keeps
// NULL and failures; an AND/OR list evaluates left to right, a failure ends it, FALSE (AND) or
// TRUE (OR) decides it, else NULL if an operand was NULL.
RC_GTEST_PROP(Sql92Property, OneConditionIdentities, ()) {
  Sql92Generator g = seeded();
  const Expression e = condition(g, some_depth());
  const std::string c = "(" + e.canonical() + ")";
  const auto properties = some_properties(g);
  for (const std::string& same : {"NOT (NOT " + c + ")", c + " OR " + c, c + " AND " + c, c + " AND TRUE",
                                  "TRUE AND " + c, c + " OR FALSE", "FALSE OR " + c, "NOT (NOT " + c + " OR FALSE)"}) {
    same_everywhere(e, must_parse(same), properties);
  }
  const Expression true_or = must_parse("TRUE OR " + c);
  const Expression or_true = must_parse(c + " OR TRUE");
  const Expression false_and = must_parse("FALSE AND " + c);
  const Expression and_false = must_parse(c + " AND FALSE");
  const Expression negated = must_parse("NOT " + c);
  const Expression null_test = must_parse(c + " IS NULL");
  const Expression not_null_test = must_parse(c + " IS NOT NULL");
  for (const std::string& p : properties) {
    RC_LOG() << "properties = \"" << printable(p) << "\"\n";
    const Outcome o = evaluate(e, p);
    RC_ASSERT(true_or.matches(p));
    RC_ASSERT(or_true.matches(p) == !o.failed);  // E fails before TRUE is reached
    RC_ASSERT(!false_and.matches(p));
    RC_ASSERT(!and_false.matches(p));
    // Exactly one of E, NOT E and E IS NULL selects, none when evaluating E fails.
    const int chosen = e.matches(p) + negated.matches(p) + null_test.matches(p);
    RC_ASSERT(chosen == (o.failed ? 0 : 1));
    RC_ASSERT(negated.matches(p) == (!o.failed && o.value.type == Type::boolean && !o.value.b));
    RC_ASSERT(not_null_test.matches(p) == (!o.failed && !o.value.is_null()));
  }
}

// Identities of two conditions A and B: De Morgan's laws hold exactly (a failure in B is reached
// on both sides exactly when A does not decide), AND selects when both do, OR when A does or A
// does not fail and B does.
RC_GTEST_PROP(Sql92Property, TwoConditionIdentities, ()) {
  Sql92Generator g = seeded();
  const Expression a = condition(g, some_depth() / 2, "A");
  const Expression b = condition(g, some_depth() / 2, "B");
  const std::string ca = "(" + a.canonical() + ")";
  const std::string cb = "(" + b.canonical() + ")";
  const auto properties = some_properties(g);
  same_everywhere(must_parse("NOT (" + ca + " AND " + cb + ")"), must_parse("NOT " + ca + " OR NOT " + cb), properties);
  same_everywhere(must_parse("NOT (" + ca + " OR " + cb + ")"), must_parse("NOT " + ca + " AND NOT " + cb), properties);
  const Expression both = must_parse(ca + " AND " + cb);
  const Expression either = must_parse(ca + " OR " + cb);
  for (const std::string& p : properties) {
    RC_LOG() << "properties = \"" << printable(p) << "\"\n";
    RC_ASSERT(both.matches(p) == (a.matches(p) && b.matches(p)));
    RC_ASSERT(either.matches(p) == (a.matches(p) || (!evaluate(a, p).failed && b.matches(p))));
  }
}

// An operand of an ordering: a property, a number, or a negated number.
std::string orderable(Sql92Generator& g) {
  switch (g.below(3)) {
    case 0: return g.property_name();
    case 1: return g.numeric_literal();
    default: return "-" + g.numeric_literal();
  }
}

// Identities of comparisons (expression.cc, java_values.cc): a value of an ordering never fails
// and is NULL, a string or a number; java_compare converts a string by the other side's class
// whichever side it is on, so it is antisymmetric; < and >= (<= and >) are complements. BETWEEN
// is two orderings against the same operand, so "p BETWEEN k AND k" is "p = k" for a number k
// (equality converts the property by Integer.valueOf, Long.valueOf or Double.valueOf exactly as
// the orderings do, and a NULL property is NULL both ways). IN compares strings as = does, and a
// property against a Boolean converts by Boolean.valueOf.
RC_GTEST_PROP(Sql92Property, ComparisonIdentities, ()) {
  Sql92Generator g = seeded();
  const std::string p = g.property_name();
  const std::string k = g.below(3) == 0 ? "-" + g.numeric_literal() : g.numeric_literal();
  const std::string x = orderable(g);
  const std::string y = orderable(g);
  const std::string s1 = g.string_literal();
  const std::string s2 = g.string_literal();
  RC_LOG() << "p = " << p << ", k = " << k << ", x = " << x << ", y = " << y << ", s = " << s1 << ", " << s2 << "\n";
  const auto properties = some_properties(g);
  const auto same = [&](const std::string& l, const std::string& r) {
    same_everywhere(must_parse(l), must_parse(r), properties);
  };
  same(p + " BETWEEN " + k + " AND " + k, p + " = " + k);
  // (BETWEEN refuses literal bounds out of order; NOT BETWEEN takes them.)
  if (auto between = parse(p + " BETWEEN " + x + " AND " + y); between.ok()) {
    same_everywhere(must_parse(p + " NOT BETWEEN " + x + " AND " + y), must_parse("NOT (" + between->canonical() + ")"),
                    properties);
  }
  same(x + " < " + y, y + " > " + x);
  same(x + " <= " + y, y + " >= " + x);
  same("NOT (" + x + " < " + y + ")", x + " >= " + y);
  same("NOT (" + x + " <= " + y + ")", x + " > " + y);
  same(p + " IN (" + s1 + ")", p + " = " + s1);
  same(p + " IN (" + s1 + ", " + s2 + ")", p + " = " + s1 + " OR " + p + " = " + s2);
  same(p + " NOT IN (" + s1 + ", " + s2 + ")", "NOT (" + p + " IN (" + s2 + ", " + s1 + "))");
  same(p + " = TRUE", "NOT (" + p + " = FALSE)");
  // Equality is not symmetric in what it answers (a NULL left is NULL, a NULL right FALSE), but
  // it is in what it selects, for numbers and strings.
  const Expression pk = must_parse(p + " = " + k);
  const Expression kp = must_parse(k + " = " + p);
  const Expression ps = must_parse(p + " = " + s1);
  const Expression sp = must_parse(s1 + " = " + p);
  for (const std::string& props : properties) {
    RC_ASSERT(pk.matches(props) == kp.matches(props));
    RC_ASSERT(ps.matches(props) == sp.matches(props));
  }
}

// Java's Integer.valueOf / Long.valueOf, written out: an optional sign, ASCII digits, in range.
std::optional<std::int64_t> java_integer_by_hand(std::string_view s, bool is_long) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  if (s.empty() || s.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
  while (s.size() > 1 && s[0] == '0') s.remove_prefix(1);
  if (s.size() > 19) return std::nullopt;
  std::uint64_t v = 0;
  for (const char c : s) v = v * 10 + static_cast<std::uint64_t>(c - '0');
  const std::uint64_t max = is_long ? 9223372036854775807ull : 2147483647ull;
  if (v > max + (negative ? 1 : 0)) return std::nullopt;
  if (!negative) return static_cast<std::int64_t>(v);
  return v == 0 ? 0 : -static_cast<std::int64_t>(v - 1) - 1;
}

// A property compared with an integer literal selects exactly when it is present and parses by
// Integer.valueOf (Long.valueOf for a literal beyond the int range) to a value in that relation.
RC_GTEST_PROP(Sql92Property, IntegerComparisonsFollowJavaValueOf, ()) {
  Sql92Generator g = seeded();
  const std::string p = g.property_name();
  const bool is_long = g.chance(30);
  const std::int64_t k = is_long ? static_cast<std::int64_t>(g.below(1ull << 62)) + 2147483648ll
                                 : static_cast<std::int64_t>(g.below(2147483648ull));
  const std::string literal = std::to_string(k) + (k != 0 && g.chance(20) ? "L" : "");  // "0L" is 0, then L
  const Expression eq = must_parse(p + " = " + literal);
  const Expression gt = must_parse(p + " > " + literal);
  const Expression le = must_parse(p + " <= -" + literal);
  std::vector<std::string> properties = some_properties(g);
  const std::string digits = std::to_string(k);
  for (const std::string& v : {digits, "+" + digits, "0" + digits, std::to_string(k + 1), std::to_string(-k),
                               std::to_string(-k - 1), digits + " "}) {
    properties.push_back(p + '\x01' + v);
  }
  for (const std::string& props : properties) {
    RC_LOG() << p << " vs " << literal << " on \"" << printable(props) << "\"\n";
    const auto slot = slots_by_hand(eq, props)[0];
    const auto v = slot ? java_integer_by_hand(*slot, is_long) : std::nullopt;
    RC_ASSERT(eq.matches(props) == (v && *v == k));
    RC_ASSERT(gt.matches(props) == (v && *v > k));
    RC_ASSERT(le.matches(props) == (v && *v <= -k));
  }
}

// Double.valueOf on text in Java's grammar (decimal or hexadecimal with a binary exponent, with
// an optional sign, f/F/d/D suffix and surrounding spaces) is the correctly rounded value, which
// strtod computes (infinity above the range, zero below it).
RC_GTEST_PROP(Sql92Property, JavaDoubleParsingAgreesWithStrtod, ()) {
  Sql92Generator g = seeded();
  const auto digits = [&g](std::string_view alphabet, std::uint64_t max) {
    std::string out;
    const auto n = g.below(max + 1);
    for (std::uint64_t i = 0; i < n; ++i) out.push_back(alphabet[g.below(alphabet.size())]);
    return out;
  };
  const bool hex = g.chance(40);
  const std::string alphabet = hex ? "0123456789abcdefABCDEF" : "0123456789";
  std::string whole = digits(alphabet, 20);
  std::string fraction = digits(alphabet, 20);
  if (whole.empty() && fraction.empty()) whole = "1";
  std::string body = (hex ? (g.chance(50) ? "0x" : "0X") : "") + whole;
  if (!fraction.empty() || g.chance(30)) body += "." + fraction;
  const std::string exponent_digits = "0123456789";
  std::string exponent = digits(exponent_digits, 5);
  if (hex || (!exponent.empty() && g.chance(70))) {
    if (exponent.empty()) exponent = "0";
    const std::string sign = g.chance(30) ? "-" : (g.chance(20) ? "+" : "");
    body += std::string(hex ? (g.chance(50) ? "p" : "P") : (g.chance(50) ? "e" : "E")) + sign + exponent;
  }
  const std::string sign = g.chance(30) ? "-" : (g.chance(20) ? "+" : "");
  const std::string core = sign + body;
  const std::string suffixes = "fFdD";
  const std::string text = std::string(g.chance(10) ? " \t" : "") + core +
                           (g.chance(20) ? std::string(1, suffixes[g.below(4)]) : "") + (g.chance(10) ? " " : "");
  RC_LOG() << "text = \"" << text << "\"\n";
  const auto parsed = java_parse_double(text);
  RC_ASSERT(parsed.has_value());
  const double expected = std::strtod(core.c_str(), nullptr);
  RC_ASSERT(std::bit_cast<std::uint64_t>(*parsed) == std::bit_cast<std::uint64_t>(expected));
}

}  // namespace
}  // namespace ferry::sql92::testing
