// The SQL92 filter against RocketMQ 4.9's semantics: which messages an expression selects (the
// properties are strings, as the broker sees them), which expressions it refuses and where.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "common/sql92/java_values.h"
#include "common/sql92/lexer.h"
#include "common/sql92/parser.h"

namespace ferry::sql92 {
namespace {

std::string props(std::initializer_list<std::pair<std::string, std::string>> kv) {
  std::string out;
  for (const auto& [k, v] : kv) {
    if (!out.empty()) out.push_back('\x02');
    out += k;
    out.push_back('\x01');
    out += v;
  }
  return out;
}

bool selects(const std::string& sql, const std::string& encoded) {
  auto e = parse(sql);
  EXPECT_TRUE(e.ok()) << sql << ": " << e.error().to_string();
  if (!e.ok()) return false;
  return e->matches(encoded);
}

std::string refusal(const std::string& sql) {
  auto e = parse(sql);
  EXPECT_FALSE(e.ok()) << sql << " parsed as " << e->canonical();
  return e.ok() ? std::string() : e.error().detail;
}

struct Case {
  const char* sql;
  std::string properties;
  bool selected;
};

TEST(Sql92, SelectsAsRocketMqDoes) {
  const std::string a3 = props({{"a", "3"}});
  const std::string none = props({{"TAGS", "TagA"}});
  const std::vector<Case> cases{
      // Numbers: the property converts to the literal's class.
      {"a > 2", a3, true},
      {"a > 3", a3, false},
      {"a >= 3", a3, true},
      {"a < 3.5", a3, true},
      {"a = 3", a3, true},
      {"a = 3", props({{"a", "03"}}), true},         // Integer.valueOf("03")
      {"a = 3", props({{"a", "+3"}}), true},
      {"a = 3.0", a3, true},                          // Double.valueOf("3")
      {"a = 3", props({{"a", "3.0"}}), false},        // Integer.valueOf fails: nothing selected
      {"a <> 3", props({{"a", "3.0"}}), false},       // ... not even by <>
      {"a > 2", props({{"a", " 3"}}), false},         // Integer.valueOf does not trim
      {"a > 2.5", props({{"a", " 3 "}}), true},       // Double.valueOf does
      {"a > 2.5", props({{"a", "3f"}}), true},        // Double.valueOf takes a suffix
      {"a > 5", props({{"a", "3000000000"}}), false}, // beyond Integer: fails
      {"a > 5L", props({{"a", "3000000000"}}), false},// 5L is an Integer too (it fits)
      {"a > 2147483648", props({{"a", "3000000000"}}), true},  // a Long literal parses Long
      {"a > 1.5", props({{"a", "0x1p2000"}}), true},          // Double.valueOf: Infinity
      {"a < 1.5", props({{"a", "0x1p-2000"}}), true},         // ... and 0.0
      {"a > -1", a3, true},
      {"a BETWEEN 1 AND 3", a3, true},
      {"a BETWEEN 4 AND 9", a3, false},
      {"a NOT BETWEEN 4 AND 9", a3, true},
      {"a BETWEEN -5 AND 5", props({{"a", "-5"}}), true},
      // Strings.
      {"b = 'x'", props({{"b", "x"}}), true},
      {"b = 'x'", props({{"b", "X"}}), false},
      {"b = 'it''s'", props({{"b", "it's"}}), true},
      {"b <> 'x'", props({{"b", "y"}}), true},
      {"b IN ('x', 'y')", props({{"b", "y"}}), true},
      {"b IN ('x', 'y')", props({{"b", "z"}}), false},
      {"b NOT IN ('x', 'y')", props({{"b", "z"}}), true},
      {"b = 'x'", props({{"b", "y"}, {"b", "x"}}), true},  // a repeated key: the last counts
      {"a > b", props({{"a", "10"}, {"b", "9"}}), true},   // two strings order as doubles
      {"a > b", props({{"a", "x"}, {"b", "9"}}), false},   // ... or fail
      {"TAGS = 'TagA'", none, true},
      {"TAGS IN ('TagA', 'TagB') AND a IS NULL", none, true},
      // Booleans: a property is a string; Boolean.valueOf when compared with TRUE/FALSE.
      {"c = TRUE", props({{"c", "true"}}), true},
      {"c = TRUE", props({{"c", "TRUE"}}), true},
      {"c = FALSE", props({{"c", "yes"}}), true},
      {"c = TRUE", props({{"c", "1"}}), false},
      {"TRUE = c", props({{"c", "true"}}), false},  // RocketMQ casts the Boolean to String: fails
      {"c", props({{"c", "true"}}), false},         // a bare property is never a Boolean
      {"NOT c", props({{"c", "true"}}), true},      // ... so NOT of one is TRUE when it is set
      {"NOT c", none, false},                        // and NULL when it is not
      {"NOT a = 3", a3, false},                      // (NOT a) = 3: a Boolean is never 3
      {"NOT (a = 3)", a3, false},
      {"NOT (a = 4)", a3, true},
      // NULL: an absent property makes a comparison NULL, which selects nothing either way.
      {"z = 1", a3, false},
      {"z <> 1", a3, false},
      {"z > 1", a3, false},
      {"NOT (z > 1)", a3, false},
      {"z IS NULL", a3, true},
      {"z IS NOT NULL", a3, false},
      {"a IS NOT NULL", a3, true},
      {"z IN ('x')", a3, false},
      {"z NOT IN ('x')", a3, false},
      {"z BETWEEN 1 AND 2", a3, false},
      // Three-valued logic, left to right.
      {"z = 1 OR a = 3", a3, true},
      {"z = 1 AND a = 3", a3, false},
      {"z = 1 AND a = 4", a3, false},
      {"NOT (z = 1 AND a = 4)", a3, true},  // NULL AND FALSE is FALSE
      {"NOT (z = 1 OR a = 4)", a3, false},  // NULL OR FALSE is NULL
      {"a = 3 OR b > 1", props({{"a", "3"}, {"b", "x"}}), true},    // decided before the failure
      {"b > 1 OR a = 3", props({{"a", "3"}, {"b", "x"}}), false},   // the failure ends it
      {"a = 4 AND b > 1", props({{"a", "3"}, {"b", "x"}}), false},
      // Literals only.
      {"TRUE", "", true},
      {"FALSE", "", false},
      {"NULL", "", false},
      {"1 = 1", "", true},
      {"1 = 1.0", "", true},
      {"1 = 'a'", "", false},
      {"'1' = 1", "", true},
      {"-(-3) = 3", "", true},
      {"-a = -3", a3, false},  // a negated string is NULL
      {"TRUE OR z = 1", "", true},
      // Syntax.
      {"a=3", a3, true},
      {"a\n=\t3", a3, true},
      {"a = 3 -- a comment\n", a3, true},
      {"a /* here */ = 3", a3, true},
      {"A = 3", a3, false},  // property names are case-sensitive; keywords are not
      {"a = 3 and not (a = 4) or false", a3, true},
      {"$x_1 = 'v'", props({{"$x_1", "v"}}), true},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(selects(c.sql, c.properties), c.selected) << c.sql << " on " << c.properties;
  }
}

TEST(Sql92, RefusesWhatRocketMqRefusesAndSaysWhere) {
  EXPECT_EQ(refusal(""), "line 1, column 1: expected a value (a property, a string, a number, TRUE, FALSE, NULL or "
                         "'('), found end of text");
  EXPECT_EQ(refusal("a = "), "line 1, column 5: expected a value (a property, a string, a number, TRUE, FALSE, "
                             "NULL or '('), found end of text");
  EXPECT_EQ(refusal("a = 1 b = 2"),
            "line 1, column 7: expected AND, OR or the end, found a property name \"b\" (text after a complete "
            "expression is not ignored)");
  EXPECT_EQ(refusal("a = 1\nAND b # 2"), "line 2, column 7: no token starts with '#'");
  EXPECT_EQ(refusal("a = 'x"), "line 1, column 5: a string (') is never closed");
  EXPECT_EQ(refusal("a = 1 /* x"), "line 1, column 7: a block comment (/*) is never closed");
  EXPECT_EQ(refusal("a > 'x'"), "line 1, column 5: '>' compares numbers; this operand is String");
  EXPECT_EQ(refusal("a > TRUE"), "line 1, column 5: '>' compares numbers; this operand is Boolean");
  EXPECT_EQ(refusal("(a = 1) > 2"), "line 1, column 2: '>' compares numbers; this operand is a condition");
  EXPECT_EQ(refusal("a = NULL"), "line 1, column 5: NULL cannot be compared by '='; use IS NULL or IS NOT NULL");
  EXPECT_EQ(refusal("a <> NULL"), "line 1, column 6: NULL cannot be compared by '<>'; use IS NULL or IS NOT NULL");
  EXPECT_EQ(refusal("TRUE = 1"), "line 1, column 6: a Boolean cannot be compared with Integer");
  EXPECT_EQ(refusal("a BETWEEN 5 AND 3"), "line 1, column 3: the low bound of BETWEEN is above its high bound");
  EXPECT_EQ(refusal("a BETWEEN NULL AND 3"), "line 1, column 3: the bounds of BETWEEN cannot be NULL");
  EXPECT_EQ(refusal("a BETWEEN 1 3"), "line 1, column 13: expected AND between the bounds of BETWEEN, found a number \"3\"");
  EXPECT_EQ(refusal("a BETWEEN 'x' AND 'y'"), "line 1, column 11: BETWEEN compares numbers; this operand is String");
  EXPECT_EQ(refusal("1 IN ('x')"), "line 1, column 1: IN tests a property; the left of IN must be a property name");
  EXPECT_EQ(refusal("a IN (1)"), "line 1, column 7: expected a string in the IN list, found a number \"1\"");
  EXPECT_EQ(refusal("a IN ()"), "line 1, column 7: expected a string in the IN list, found ')'");
  EXPECT_EQ(refusal("a IS 1"), "line 1, column 6: expected NULL or NOT NULL after IS, found a number \"1\"");
  EXPECT_EQ(refusal("5"), "line 1, column 1: this is a value, not a condition (compare it: = <> > >= < <= BETWEEN "
                          "IN IS NULL)");
  EXPECT_EQ(refusal("NOT 'x'"), "line 1, column 5: this is a value, not a condition (compare it: = <> > >= < <= "
                                "BETWEEN IN IS NULL)");
  EXPECT_EQ(refusal("a = 1 AND 2"), "line 1, column 11: this is a value, not a condition (compare it: = <> > >= < "
                                    "<= BETWEEN IN IS NULL)");
  EXPECT_EQ(refusal("a > 0.0"), "line 1, column 5: 0.0 is below Double.MIN_VALUE (RocketMQ refuses a float literal "
                                "of 0; write the integer 0)");
  EXPECT_EQ(refusal("a > 1e999"), "line 1, column 5: 1e999 is beyond the range of a double");
  EXPECT_EQ(refusal("a > 9223372036854775808"), "line 1, column 5: 9223372036854775808 is beyond the range of a long");
  EXPECT_EQ(refusal("a = 007"), "line 1, column 6: expected AND, OR or the end, found a number \"0\" (text after a "
                                "complete expression is not ignored)");
  EXPECT_EQ(refusal("a = 1 -- no line end"), "line 1, column 7: expected AND, OR or the end, found '-' (text after "
                                             "a complete expression is not ignored)");
  EXPECT_EQ(refusal("a = 1)"), "line 1, column 6: expected AND, OR or the end, found ')' (text after a complete "
                               "expression is not ignored)");
  EXPECT_EQ(refusal("(a = 1"), "line 1, column 7: expected ')', found end of text");
}

TEST(Sql92, BoundsAreErrorsOfTheirOwn) {
  std::string deep;
  for (int i = 0; i < 70; ++i) deep += "(";
  deep += "a = 1";
  for (int i = 0; i < 70; ++i) deep += ")";
  EXPECT_EQ(refusal(deep), "line 1, column 65: the expression nests deeper than 64");

  std::string nots;
  for (int i = 0; i < 70; ++i) nots += "NOT ";
  EXPECT_NE(refusal(nots + "a = 1").find("nests deeper than 64"), std::string::npos);

  std::string chain = "a = 1";
  for (int i = 0; i < 70; ++i) chain += " = TRUE";  // left-deep: depth grows with the chain
  EXPECT_NE(refusal(chain).find("nests deeper than 64"), std::string::npos);

  std::string wide = "p0 = 1";
  for (int i = 1; i <= 64; ++i) wide += " OR p" + std::to_string(i) + " = 1";
  EXPECT_NE(refusal(wide).find("more than 64 properties"), std::string::npos);

  std::string many = "a = 1";
  for (int i = 0; i < 1200; ++i) many += " OR a = 1";
  EXPECT_NE(refusal(many).find("more than 2048 nodes"), std::string::npos);

  EXPECT_NE(refusal(std::string(16 * 1024 + 1, ' ')).find("more than 16384"), std::string::npos);

  // A long OR chain within the bounds is one node, so its depth stays 2.
  std::string ors = "a = 0";
  for (int i = 1; i < 300; ++i) ors += " OR a = " + std::to_string(i);
  auto e = parse(ors);
  ASSERT_TRUE(e.ok()) << e.error().to_string();
  EXPECT_TRUE(e->matches(props({{"a", "299"}})));
  EXPECT_FALSE(e->matches(props({{"a", "300"}})));
}

TEST(Sql92, ConstantExpressionsAreDecidedOnce) {
  auto t = parse("TRUE");
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(t->constant());
  EXPECT_TRUE(t->constant_match());
  EXPECT_TRUE(t->matches("garbage without separators"));
  auto f = parse("1 = 'x' OR FALSE");
  ASSERT_TRUE(f.ok());
  EXPECT_TRUE(f->constant());
  EXPECT_FALSE(f->constant_match());
  auto p = parse("a = 1 OR TRUE");
  ASSERT_TRUE(p.ok());
  EXPECT_FALSE(p->constant());
  EXPECT_EQ(p->properties(), std::vector<std::string>{"a"});
}

TEST(Sql92, CanonicalTextParsesBackToTheSameExpression) {
  for (const char* sql : {"a > 2", "NOT a = 1", "a <> 'it''s'", "a BETWEEN -1 AND 2.5", "a NOT BETWEEN 1 AND 2",
                          "b NOT IN ('y', 'x', 'y')", "a IS NOT NULL AND (b = 1 OR c = TRUE) AND NOT d",
                          "x = 1e300 OR x = 123456.0 OR x = 2147483648", "- -a = +3", "TRUE"}) {
    auto e = parse(sql);
    ASSERT_TRUE(e.ok()) << sql << ": " << e.error().to_string();
    auto again = parse(e->canonical());
    ASSERT_TRUE(again.ok()) << e->canonical() << ": " << again.error().to_string();
    EXPECT_EQ(again->canonical(), e->canonical()) << sql;
  }
  auto e = parse("a <> 1 AND b BETWEEN 1 AND 2");
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->canonical(), "(NOT (a = 1) AND ((b >= 1) AND (b <= 2)))");
  auto u = parse("- -a = NOT NOT b");
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(u->canonical(), "(- -a = NOT NOT b)");
}

// Regression: canonical() used to put each unary operator in parentheses of its own, two nesting
// levels where the expression has one, so a valid chain of more than 32 NOTs or minus signs had a
// canonical text the parser refused as too deep.
TEST(Sql92, CanonicalTextOfLongUnaryChainsParsesWithinTheDepthBound) {
  std::string nots;
  std::string minuses = "a = ";
  for (int i = 0; i < 60; ++i) {
    nots += "NOT ";
    minuses += "- ";
  }
  for (const std::string& sql : {nots + "a", minuses + "1", "NOT (" + minuses + "1)"}) {
    auto e = parse(sql);
    ASSERT_TRUE(e.ok()) << sql << ": " << e.error().to_string();
    auto again = parse(e->canonical());
    ASSERT_TRUE(again.ok()) << e->canonical() << ": " << again.error().to_string();
    EXPECT_EQ(again->canonical(), e->canonical());
  }
}

TEST(Sql92, JavaNumberParsers) {
  EXPECT_EQ(java_parse_int("2147483647"), 2147483647);
  EXPECT_EQ(java_parse_int("-2147483648"), INT32_MIN);
  EXPECT_FALSE(java_parse_int("2147483648"));
  EXPECT_FALSE(java_parse_int("+"));
  EXPECT_FALSE(java_parse_int(""));
  EXPECT_FALSE(java_parse_int("1 "));
  EXPECT_EQ(java_parse_long("-9223372036854775808"), INT64_MIN);
  EXPECT_FALSE(java_parse_long("9223372036854775808"));
  EXPECT_EQ(java_parse_double("1."), 1.0);
  EXPECT_EQ(java_parse_double(".5"), 0.5);
  EXPECT_EQ(java_parse_double("\t-1e3d "), -1000.0);
  EXPECT_EQ(java_parse_double("0x1.8p1"), 3.0);
  // Regression: a hexadecimal beyond the range was read as its digits before 'p' (1.0).
  EXPECT_EQ(java_parse_double("0x1p99999"), std::numeric_limits<double>::infinity());
  EXPECT_EQ(java_parse_double("-0x1.8P99999d"), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(java_parse_double("0x1p-99999"), 0.0);
  EXPECT_FALSE(std::signbit(*java_parse_double("0x1p-1080")));
  EXPECT_EQ(java_parse_double("0x1p-1080"), 0.0);
  EXPECT_EQ(java_parse_double("0x1p-1074"), std::numeric_limits<double>::denorm_min());
  EXPECT_EQ(java_parse_double("-Infinity"), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(java_parse_double("1e999"), std::numeric_limits<double>::infinity());
  EXPECT_EQ(java_parse_double("1e-999"), 0.0);
  EXPECT_TRUE(std::isnan(*java_parse_double("NaN")));
  EXPECT_FALSE(java_parse_double("0x10"));
  EXPECT_FALSE(java_parse_double("inf"));
  EXPECT_FALSE(java_parse_double("1e"));
  EXPECT_FALSE(java_parse_double("."));
  EXPECT_FALSE(java_parse_double("1,5"));
  EXPECT_TRUE(java_parse_boolean("tRuE"));
  EXPECT_FALSE(java_parse_boolean("yes"));
  // Double.compare: NaN above everything, -0.0 below 0.0.
  EXPECT_EQ(java_compare(Value::float64(std::nan("")), Value::float64(1e308)), 1);
  EXPECT_EQ(java_compare(Value::float64(-0.0), Value::float64(0.0)), -1);
  EXPECT_FALSE(java_equals(Value::int32(1), Value::int64(1)));
  EXPECT_EQ(java_compare(Value::int32(1), Value::int64(1)), 0);
}

TEST(Sql92, Tokens) {
  auto t = tokenize("a>=1.5e3 AND b<>'x''y' OR c IN(1L,.5)", 100);
  ASSERT_TRUE(t.ok()) << t.error().to_string();
  std::vector<Tok> kinds;
  for (const Token& tok : *t) kinds.push_back(tok.kind);
  EXPECT_EQ(kinds, (std::vector<Tok>{Tok::identifier, Tok::ge, Tok::floating, Tok::kw_and, Tok::identifier, Tok::ne,
                                     Tok::string, Tok::kw_or, Tok::identifier, Tok::kw_in, Tok::lparen, Tok::decimal,
                                     Tok::comma, Tok::floating, Tok::rparen, Tok::end}));
  EXPECT_EQ(string_literal_value((*t)[6].text), "x'y");
  EXPECT_FALSE(tokenize("a b c d", 3).ok());
}

}  // namespace
}  // namespace ferry::sql92
