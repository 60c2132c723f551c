// Sql92Generator (sql92_generator.h): conditions built bottom-up as token lists that know their
// precedence level and what RocketMQ's parser would call them (a property, a literal of some
// type, a value, a condition), so that every operand satisfies the compile-time checks; then
// joined with random spacing and comments.
#include "tests/common/sql92_generator.h"

#include <iterator>
#include <utility>
#include <vector>

#include "common/sql92/java_values.h"
#include "runtime/assert.h"

namespace ferry::sql92::testing {
namespace {

using remoting::testing::TestRng;

constexpr std::string_view kNames[] = {"a", "b", "c", "TAGS", "$k_1"};

// String literals and property values share values, so that equalities and IN lists hit.
constexpr std::string_view kStrings[] = {"x", "y", "it's", "", "3", " 3 ", "true", "TRUE",
                                         "TagA", "a b", "--", "/*", "'", "''", "NaN", "2147483648"};

constexpr std::string_view kPropertyValues[] = {
    // Integers, in and beyond Integer's and Long's ranges, and Integer.valueOf's edge forms.
    "0", "3", "-7", "03", "+3", "-0", "2147483647", "2147483648", "-2147483648", "-2147483649",
    "9223372036854775807", "9223372036854775808", "-9223372036854775808", "1000",
    // Doubles: Double.valueOf takes these (trimmed, suffixed, hexadecimal, special)...
    "1.5", "3.0", "1e3", "0.0", "-0.0", "NaN", "-Infinity", "Infinity", "0x1.8p1", " 3 ", "3f", "2.5d", "1e999",
    "4.9e-324", ".5", "0x1p2000", "-0x1p-2000",
    // ...and these it does not.
    ".", "1e", "0x10", "inf", "1,5", "3 x",
    // Booleans (Boolean.valueOf: "true" in any case).
    "true", "TRUE", "True", "false", "FALSE", "yes",
    // Empty values and junk.
    "", "", "x", "y", "it's", "a\x01" "b", "\xff\xfe", "--", "TagA", "a b"};

constexpr std::string_view kKeywords[] = {"NOT", "AND", "OR", "BETWEEN", "IN", "TRUE", "FALSE", "NULL", "IS"};

// ---- tokens and spacing --------------------------------------------------------------------

enum class Kind { word, symbol, open, close, comma, string };

struct Piece {
  std::string text;
  Kind kind;
};

// Whether two tokens written side by side would lex as something else: words and numbers run
// together ("a1", "1L..."), operators too ("<" ">" is "<>", "-" "-" a comment), quotes double.
bool needs_separator(const Piece& a, const Piece& b) {
  return (a.kind == Kind::word && b.kind == Kind::word) || (a.kind == Kind::symbol && b.kind == Kind::symbol) ||
         (a.kind == Kind::string && b.kind == Kind::string);
}

std::string separator(TestRng& rng, bool required) {
  static constexpr std::string_view kOdd[] = {
      "  ", "\t", "\n", "\r\n", "\f", " \n\t", "/* c */", "/**/", " /* AND 'x */ ", "-- c\n", "-- ' /*\r",
      "\n-- x\n  ", "/* multi\nline */", "\r"};
  const auto r = rng.below(100);
  if (!required && r < 35) return "";
  if (r < 75) return " ";
  return std::string(kOdd[rng.below(std::size(kOdd))]);
}

std::string keyword(TestRng& rng, std::string_view kw) {
  std::string out(kw);
  const auto style = rng.below(10);
  for (char& c : out) {
    const bool lower = style < 2 || (style < 5 && rng.below(2) == 0);
    if (lower) c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::string quoted(std::string_view s) {
  std::string out = "'";
  for (const char c : s) {
    if (c == '\'') out.push_back('\'');
    out.push_back(c);
  }
  out.push_back('\'');
  return out;
}

std::string join(TestRng& rng, const std::vector<Piece>& pieces) {
  std::string out;
  if (rng.below(5) == 0) out += separator(rng, true);
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    if (i > 0) {
      std::string sep = separator(rng, needs_separator(pieces[i - 1], pieces[i]));
      // "-" then "-- c\n" would start the comment one character early.
      if (!sep.empty() && sep.front() == '-' && !out.empty() && out.back() == '-') sep.insert(0, " ");
      out += sep;
    }
    out += pieces[i].text;
  }
  if (rng.below(5) == 0) {
    std::string sep = separator(rng, true);
    if (sep.front() == '-' && !out.empty() && out.back() == '-') sep.insert(0, " ");
    out += sep;
  }
  return out;
}

// ---- literals ------------------------------------------------------------------------------

struct Number {
  std::string text;
  Value value;
};

std::string digits(TestRng& rng, bool nonzero_first, int max_len) {
  const int n = 1 + static_cast<int>(rng.below(static_cast<std::uint64_t>(max_len)));
  std::string out;
  for (int i = 0; i < n; ++i) {
    const std::uint64_t lowest = (i == 0 && nonzero_first) ? 1 : 0;
    out.push_back(static_cast<char>('0' + lowest + rng.below(10 - lowest)));
  }
  return out;
}

Number number(TestRng& rng) {
  static constexpr std::string_view kBigDecimals[] = {"2147483647", "2147483648", "4294967296",
                                                      "1000000000000", "2147483649", "9223372036854775807"};
  static constexpr std::string_view kFloats[] = {"1.7976931348623157e308", "4.9e-324", "2.2250738585072014E-308",
                                                 "0.5", "3.0", "1.5", "100.", ".25", "1e3", "2.5E+2"};
  std::string text;
  bool decimal = true;
  switch (rng.below(10)) {
    case 0: text = "0"; break;
    case 1:
    case 2:
    case 3: text = digits(rng, true, 4); break;
    case 4: text = std::string(kBigDecimals[rng.below(std::size(kBigDecimals))]); break;
    case 5:
    case 6: text = std::string(kFloats[rng.below(std::size(kFloats))]), decimal = false; break;
    default: {
      decimal = false;
      const std::string whole = digits(rng, true, 3);
      const std::string fraction = digits(rng, false, 3);
      const std::string sign = rng.below(3) == 0 ? "-" : (rng.below(2) ? "+" : "");
      const std::string exponent = std::string(rng.below(2) ? "e" : "E") + sign + digits(rng, false, 2);
      switch (rng.below(5)) {
        case 0: text = whole + "." + fraction; break;
        case 1: text = whole + "."; break;
        case 2: text = "." + std::string(1, static_cast<char>('1' + rng.below(9))) + fraction; break;
        case 3: text = whole + exponent; break;
        default: text = whole + "." + fraction + exponent; break;
      }
    }
  }
  Value value;
  if (decimal) {
    const auto v = java_parse_long(text);
    FERRY_ASSERT(v.has_value(), "generated decimal {} does not parse", text);
    value = *v >= INT32_MIN && *v <= INT32_MAX ? Value::int32(static_cast<std::int32_t>(*v)) : Value::int64(*v);
    if (text != "0" && rng.below(5) == 0) text.push_back(rng.below(2) ? 'L' : 'l');
  } else {
    const auto v = java_parse_double(text);
    FERRY_ASSERT(v.has_value() && *v > 0 && *v <= 1.7976931348623157e308, "generated float {} is no literal", text);
    value = Value::float64(*v);
  }
  return Number{std::move(text), value};
}

// ---- conditions ----------------------------------------------------------------------------

// Precedence levels, loosest first (parser.h's grammar).
enum Level { kOr, kAnd, kEquality, kCompare, kUnary, kPrimary };

// What RocketMQ's parser knows of an operand, for its compile-time checks.
enum class Class { property, number, string, boolean, null, value, condition };

struct Part {
  std::vector<Piece> pieces;
  Level level = kPrimary;
  Class cls = Class::value;
  Value number;  // a numeric literal's value (for BETWEEN's bound order)
};

class Writer {
 public:
  // `constant`: read no property (numbers stand where properties would).
  Writer(TestRng& rng, bool constant) : rng_(rng), constant_(constant) {}

  Part condition(int depth) {
    if (budget_ <= 0) depth = 0;
    const auto r = rng_.below(100);
    if (depth > 0 && r < 18) return logic(depth, kAnd);
    if (depth > 0 && r < 30) return logic(depth, kOr);
    if (depth > 0 && r < 40) return negation(depth);
    if (r < 55) return ordering(depth);
    if (r < 70) return equality(depth);
    if (r < 78) return between(depth);
    if (r < 86) return constant_ ? ordering(depth) : in_list();
    if (r < 92) return is_null(depth);
    if (r < 97 && !constant_) return property();
    if (rng_.below(3) == 0) return keyword_literal("NULL", Class::null);
    return keyword_literal(rng_.below(2) ? "TRUE" : "FALSE", Class::boolean);
  }

  Part property() {
    if (constant_) return numeric();
    --budget_;
    return Part{{{std::string(kNames[rng_.below(std::size(kNames))]), Kind::word}}, kPrimary, Class::property, {}};
  }

  Part numeric() {
    --budget_;
    Number n = number(rng_);
    return Part{{{std::move(n.text), Kind::word}}, kPrimary, Class::number, n.value};
  }

  Part string() {
    --budget_;
    return Part{{{quoted(kStrings[rng_.below(std::size(kStrings))]), Kind::string}}, kPrimary, Class::string, {}};
  }

 private:
  Part keyword_literal(std::string_view kw, Class cls) {
    --budget_;
    return Part{{{keyword(rng_, kw), Kind::word}}, kPrimary, cls, {}};
  }

  void append(std::vector<Piece>& out, Part&& p) {
    for (Piece& piece : p.pieces) out.push_back(std::move(piece));
  }
  void append(std::vector<Piece>& out, std::string text, Kind kind) { out.push_back(Piece{std::move(text), kind}); }

  // `p` usable where `min` is expected: in parentheses when it binds looser (a parenthesized
  // operand keeps its class in RocketMQ's parser), and now and then in parentheses anyway.
  Part at(Part p, Level min) {
    if (p.level >= min && rng_.below(20) != 0) return p;
    Part out{{}, kPrimary, p.cls, p.number};
    append(out.pieces, "(", Kind::open);
    append(out.pieces, std::move(p));
    append(out.pieces, ")", Kind::close);
    return out;
  }

  // Unary '+' changes nothing, not even the class ("+'x'" is still a string literal).
  Part maybe_plus(Part p) {
    if (rng_.below(12) != 0) return p;
    Part out{{}, kUnary, p.cls, p.number};
    append(out.pieces, "+", Kind::symbol);
    append(out.pieces, at(std::move(p), kUnary));
    return out;
  }

  // Unary '-' of anything is a value (neither literal nor condition): NULL unless a number.
  Part negate(Part p) {
    Part out{{}, kUnary, Class::value, {}};
    append(out.pieces, "-", Kind::symbol);
    append(out.pieces, at(std::move(p), kUnary));
    --budget_;
    return out;
  }

  // An operand of <, <=, >, >= and BETWEEN: a property, a number, or a negated anything.
  Part orderable(int depth) {
    const auto r = rng_.below(100);
    if (r < 38) return maybe_plus(property());
    if (r < 78) return maybe_plus(numeric());
    if (depth <= 0 || budget_ <= 0) {
      return negate(rng_.below(3) == 0 ? string() : (rng_.below(2) ? numeric() : property()));
    }
    switch (rng_.below(5)) {
      case 0: return negate(orderable(depth - 1));
      case 1: return negate(condition(depth - 1));
      case 2: return negate(rng_.below(2) ? keyword_literal("NULL", Class::null)
                                          : keyword_literal("TRUE", Class::boolean));
      case 3: return negate(string());
      default: return maybe_plus(negate(numeric()));
    }
  }

  // An operand of = and <>: anything but the NULL literal (a condition may be TRUE or FALSE).
  Part comparable(int depth) {
    const auto r = rng_.below(100);
    if (r < 28) return maybe_plus(property());
    if (r < 48) return maybe_plus(numeric());
    if (r < 68) return maybe_plus(string());
    if (r < 78) return maybe_plus(keyword_literal(rng_.below(2) ? "TRUE" : "FALSE", Class::boolean));
    if (r < 88 || depth <= 0) return orderable(depth);
    Part c = condition(depth - 1);
    if (c.cls == Class::null) return maybe_plus(keyword_literal("TRUE", Class::boolean));  // NULL = x is refused
    return maybe_plus(std::move(c));
  }

  Part ordering(int depth) {
    static constexpr std::string_view kOps[] = {">", ">=", "<", "<="};
    Part out{{}, kCompare, Class::condition, {}};
    append(out.pieces, at(orderable(depth), kUnary));
    append(out.pieces, std::string(kOps[rng_.below(std::size(kOps))]), Kind::symbol);
    append(out.pieces, at(orderable(depth), kUnary));
    return out;
  }

  Part equality(int depth) {
    Part left = comparable(depth);
    Part right = comparable(depth);
    // RocketMQ refuses a Boolean literal compared with another kind of literal (TRUE = 1).
    if (left.cls == Class::boolean && (right.cls == Class::number || right.cls == Class::string)) {
      right = rng_.below(2) && !constant_ ? property() : keyword_literal("FALSE", Class::boolean);
    }
    Part out{{}, kEquality, Class::condition, {}};
    append(out.pieces, at(std::move(left), kEquality));
    append(out.pieces, rng_.below(3) == 0 ? "<>" : "=", Kind::symbol);
    append(out.pieces, at(std::move(right), kCompare));
    // The level is left-associative: "a = 1 = TRUE" is "(a = 1) = TRUE".
    while (rng_.below(8) == 0) {
      append(out.pieces, rng_.below(2) ? "=" : "<>", Kind::symbol);
      append(out.pieces, at(rng_.below(2) ? keyword_literal("TRUE", Class::boolean) : property(), kCompare));
    }
    return out;
  }

  Part between(int depth) {
    const bool negated = rng_.below(3) == 0;
    Part value = orderable(depth);
    Part low = orderable(depth);
    Part high = orderable(depth);
    // Literal bounds must be in order (not checked for NOT BETWEEN).
    if (!negated && low.cls == Class::number && high.cls == Class::number &&
        *java_compare(high.number, low.number) < 0) {
      std::swap(low, high);
    }
    Part out{{}, kCompare, Class::condition, {}};
    append(out.pieces, at(std::move(value), kUnary));
    if (negated) append(out.pieces, keyword(rng_, "NOT"), Kind::word);
    append(out.pieces, keyword(rng_, "BETWEEN"), Kind::word);
    append(out.pieces, at(std::move(low), kUnary));
    append(out.pieces, keyword(rng_, "AND"), Kind::word);
    append(out.pieces, at(std::move(high), kUnary));
    return out;
  }

  Part in_list() {
    Part out{{}, kCompare, Class::condition, {}};
    append(out.pieces, at(maybe_plus(property()), kUnary));
    if (rng_.below(3) == 0) append(out.pieces, keyword(rng_, "NOT"), Kind::word);
    append(out.pieces, keyword(rng_, "IN"), Kind::word);
    append(out.pieces, "(", Kind::open);
    const auto n = 1 + rng_.below(4);
    for (std::uint64_t i = 0; i < n; ++i) {
      if (i > 0) append(out.pieces, ",", Kind::comma);
      append(out.pieces, string());
    }
    append(out.pieces, ")", Kind::close);
    return out;
  }

  Part is_null(int depth) {
    Part operand = rng_.below(8) == 0 ? keyword_literal("NULL", Class::null) : comparable(depth);
    Part out{{}, kEquality, Class::condition, {}};
    append(out.pieces, at(std::move(operand), kEquality));
    append(out.pieces, keyword(rng_, "IS"), Kind::word);
    if (rng_.below(2)) append(out.pieces, keyword(rng_, "NOT"), Kind::word);
    append(out.pieces, keyword(rng_, "NULL"), Kind::word);
    return out;
  }

  Part negation(int depth) {
    Part out{{}, kUnary, Class::condition, {}};
    append(out.pieces, keyword(rng_, "NOT"), Kind::word);
    append(out.pieces, at(condition(depth - 1), kUnary));
    return out;
  }

  Part logic(int depth, Level level) {
    Part out{{}, level, Class::condition, {}};
    const auto n = 2 + rng_.below(3);
    for (std::uint64_t i = 0; i < n; ++i) {
      if (i > 0) append(out.pieces, keyword(rng_, level == kAnd ? "AND" : "OR"), Kind::word);
      append(out.pieces, at(condition(depth - 1), static_cast<Level>(level + 1)));
    }
    return out;
  }

  TestRng& rng_;
  bool constant_;
  int budget_ = 120;  // tokens, about: keeps every expression far below the parser's bounds
};

// ---- inputs at the parser's bounds ---------------------------------------------------------

std::string repeated(std::string_view s, std::uint64_t n) {
  std::string out;
  for (std::uint64_t i = 0; i < n; ++i) out += s;
  return out;
}

std::string near_bounds(TestRng& rng) {
  const auto k = 25 + rng.below(50);  // nesting 25..74 around depth_max 64
  switch (rng.below(10)) {
    case 0: return repeated("(", k) + "a = 1" + repeated(")", k);
    case 1: return repeated("NOT ", k) + "a";
    case 2: return "a = " + repeated("- ", k) + "1";
    case 3: return "a = " + repeated("+", k) + "1";
    case 4: return "a = 1" + repeated(" = TRUE", k);
    case 5: return repeated("NOT (", k / 2) + "a > 1" + repeated(")", k / 2);
    case 6: {  // distinct properties around kPropertiesMax (64)
      std::string out = "p0 = 1";
      const auto n = 55 + rng.below(15);
      for (std::uint64_t i = 1; i < n; ++i) out += " OR p" + std::to_string(i) + " = 1";
      return out;
    }
    case 7: {  // nodes around nodes_max (2048): a BETWEEN's operand counts once here
      const std::string clause = repeated("- ", 1 + rng.below(30)) + "a BETWEEN 1 AND 2";
      std::string out = clause;
      const auto n = 10 + rng.below(140);
      for (std::uint64_t i = 0; i < n; ++i) out += " OR " + clause;
      return out;
    }
    case 8: {  // bytes around text_bytes_max (16 KiB), with a long name the canonical text repeats
      const std::string name(100 + rng.below(200), 'n');
      std::string out = name + "=1";
      const std::size_t target = 16 * 1024 - 300 + rng.below(600);
      while (out.size() + name.size() + 4 < target) out += "OR " + name + "<>1";
      return out;
    }
    default: {  // one long OR chain around nodes_max
      std::string out = "a = 1";
      const auto n = 400 + rng.below(400);
      for (std::uint64_t i = 0; i < n; ++i) out += " OR a = 1";
      return out;
    }
  }
}

std::string token_soup(TestRng& rng) {
  static constexpr std::string_view kVocabulary[] = {
      "NOT", "AND", "OR", "BETWEEN", "IN", "IS", "NULL", "TRUE", "FALSE", "a", "b", "TAGS", "=", "<>", "<", "<=",
      ">", ">=", "(", ")", ",", "+", "-", "'x'", "'it''s'", "'", "1", "1L", "2147483648", "1.5e3", ".5", "0.0",
      "--", "/*", "*/", "\n"};
  std::string out;
  const auto n = rng.below(24);
  for (std::uint64_t i = 0; i < n; ++i) {
    if (i > 0 && rng.below(4) != 0) out.push_back(' ');
    out += kVocabulary[rng.below(std::size(kVocabulary))];
  }
  return out;
}

}  // namespace

std::span<const std::string_view> expression_property_names() { return kNames; }

std::string Sql92Generator::expression(int depth) {
  Writer w(rng_, false);
  return join(rng_, w.condition(depth).pieces);
}

std::string Sql92Generator::constant_expression(int depth) {
  Writer w(rng_, true);
  return join(rng_, w.condition(depth).pieces);
}

std::string Sql92Generator::property_name() { return std::string(kNames[rng_.below(std::size(kNames))]); }

std::string Sql92Generator::numeric_literal() { return number(rng_).text; }

std::string Sql92Generator::string_literal() { return quoted(kStrings[rng_.below(std::size(kStrings))]); }

std::string Sql92Generator::mutate(std::string text) {
  static constexpr std::string_view kInteresting = "'()-/*\n\r.eEL0123456789=<>,+ \t$_aN";
  const auto interesting = [this] { return kInteresting[rng_.below(kInteresting.size())]; };
  const auto edits = 1 + rng_.below(4);
  for (std::uint64_t e = 0; e < edits; ++e) {
    const std::size_t at = text.empty() ? 0 : rng_.below(text.size());
    switch (text.empty() ? 2 : rng_.below(9)) {
      case 0: text[at] = static_cast<char>(text[at] ^ (1 << rng_.below(8))); break;
      case 1: text[at] = interesting(); break;
      case 2: {
        const char c = rng_.below(4) == 0 ? static_cast<char>(rng_.next()) : interesting();
        text.insert(at, 1, c);
        break;
      }
      case 3: text.erase(at, 1 + rng_.below(4)); break;
      case 4: text.resize(at); break;
      case 5: text.insert(at, text.substr(at, 1 + rng_.below(8))); break;
      case 6: text.insert(at, " " + std::string(kKeywords[rng_.below(std::size(kKeywords))]) + " "); break;
      default: {  // swap or repeat whitespace-separated words
        std::vector<std::pair<std::size_t, std::size_t>> words;
        for (std::size_t i = 0; i < text.size();) {
          while (i < text.size() && text[i] == ' ') ++i;
          const std::size_t start = i;
          while (i < text.size() && text[i] != ' ') ++i;
          if (i > start) words.emplace_back(start, i - start);
        }
        if (words.size() < 2) break;
        auto x = words[rng_.below(words.size())];
        auto y = words[rng_.below(words.size())];
        if (x.first > y.first) std::swap(x, y);
        if (x.first == y.first) {
          text.insert(x.first, text.substr(x.first, x.second) + " ");
          break;
        }
        const std::string wx = text.substr(x.first, x.second);
        const std::string wy = text.substr(y.first, y.second);
        text.replace(y.first, y.second, wx);
        text.replace(x.first, x.second, wy);
      }
    }
  }
  return text;
}

std::string Sql92Generator::any_input() {
  const auto r = rng_.below(100);
  const int depth = static_cast<int>(rng_.below(6));
  if (r < 55) return expression(depth);
  if (r < 80) return mutate(expression(depth));
  if (r < 88) return token_soup(rng_);
  if (r < 93) {
    std::string out(rng_.below(48), '\0');
    for (char& c : out) c = static_cast<char>(rng_.next());
    return out;
  }
  return near_bounds(rng_);
}

std::string Sql92Generator::properties() {
  static constexpr std::string_view kOtherNames[] = {"A", "zz", "TAG"};
  std::string out;
  if (rng_.below(10) == 0) out.push_back('\x02');  // an empty first entry
  const auto n = rng_.below(8);
  for (std::uint64_t i = 0; i < n; ++i) {
    if (i > 0) out += rng_.below(15) == 0 ? "\x02\x02" : "\x02";
    const auto kind = rng_.below(20);
    if (kind == 0) {
      out += "junk";  // an entry without \x01: no property
      continue;
    }
    out += kind == 1 ? kOtherNames[rng_.below(std::size(kOtherNames))] : kNames[rng_.below(std::size(kNames))];
    out.push_back('\x01');
    const auto v = rng_.below(10);
    if (v < 6) {
      out += kPropertyValues[rng_.below(std::size(kPropertyValues))];
    } else if (v < 8) {
      out += kStrings[rng_.below(std::size(kStrings))];
    } else if (v < 9) {
      out += std::to_string(static_cast<std::int64_t>(rng_.below(2001)) - 1000);
    } else {
      out += number(rng_).text;  // the literals' own texts
    }
  }
  if (rng_.below(10) == 0) out.push_back('\x02');  // a trailing separator
  return out;
}

}  // namespace ferry::sql92::testing
