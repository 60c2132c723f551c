#include "common/sql92/java_values.h"

#include <bit>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <limits>
#include <string>

#include "runtime/assert.h"

namespace ferry::sql92 {
namespace {

template <typename T>
int three_way(T l, T r) {
  return l < r ? -1 : (l > r ? 1 : 0);
}

// Double.compare: numeric order, then -0.0 < 0.0 and NaN above everything (equal to itself).
int java_double_compare(double l, double r) {
  if (l < r) return -1;
  if (l > r) return 1;
  const auto bits = [](double v) {
    return v != v ? std::int64_t{0x7ff8000000000000} : std::bit_cast<std::int64_t>(v);  // doubleToLongBits
  };
  return three_way(bits(l), bits(r));
}

// Integer.parseInt / Long.parseLong in radix 10 on ASCII digits.
template <typename T>
std::optional<T> parse_integral(std::string_view s) {
  if (s.empty()) return std::nullopt;
  std::string_view digits = s;
  const bool negative = s.front() == '-';
  if (s.front() == '-' || s.front() == '+') digits.remove_prefix(1);
  if (digits.empty()) return std::nullopt;
  // Accumulate negatively, as Java does, so that the minimum value parses.
  T value = 0;
  constexpr T kMin = std::numeric_limits<T>::min();
  for (const char c : digits) {
    if (c < '0' || c > '9') return std::nullopt;
    const T digit = static_cast<T>(c - '0');
    if (value < kMin / 10) return std::nullopt;
    value = static_cast<T>(value * 10);
    if (value < kMin + digit) return std::nullopt;
    value = static_cast<T>(value - digit);
  }
  if (negative) return value;
  if (value == kMin) return std::nullopt;
  return static_cast<T>(-value);
}

std::optional<double> from_chars_double(std::string_view s, std::chars_format format) {
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, format);
  if (end != s.data() + s.size()) return std::nullopt;
  if (ec == std::errc::result_out_of_range) {
    // Java rounds to infinity or to zero; strtod does the same (and is given the whole, already
    // checked text, so its looser grammar does not matter). A hexadecimal text gets its "0x"
    // back: without it strtod reads "1p99999" as the decimal 1.
    const std::string whole = (format == std::chars_format::hex ? "0x" : "") + std::string(s);
    return std::strtod(whole.c_str(), nullptr);
  }
  if (ec != std::errc()) return std::nullopt;
  return v;
}

}  // namespace

std::string_view type_name(Type t) {
  switch (t) {
    case Type::null: return "NULL";
    case Type::boolean: return "Boolean";
    case Type::int32: return "Integer";
    case Type::int64: return "Long";
    case Type::float64: return "Double";
    case Type::string: return "String";
  }
  return "?";
}

bool java_equals(const Value& l, const Value& r) {
  FERRY_ASSERT(!l.is_null() && !r.is_null(), "java_equals on NULL ({} vs {})", type_name(l.type), type_name(r.type));
  if (l.type != r.type) return false;
  switch (l.type) {
    case Type::boolean: return l.b == r.b;
    case Type::int32:
    case Type::int64: return l.i == r.i;
    case Type::float64: return java_double_compare(l.d, r.d) == 0;
    case Type::string: return l.s == r.s;
    case Type::null: break;
  }
  return false;
}

std::optional<int> java_compare(const Value& left, const Value& right) {
  FERRY_ASSERT(!left.is_null() && !right.is_null(), "java_compare on NULL ({} vs {})", type_name(left.type),
               type_name(right.type));
  Value l = left;
  Value r = right;
  if (l.type != r.type) {
    switch (l.type) {
      case Type::boolean:
        if (r.type == Type::string) return std::nullopt;  // RocketMQ casts the Boolean to String
        return -1;
      case Type::int32:
        if (r.type == Type::int64) {
          l = Value::int64(l.i);
        } else if (r.type == Type::float64) {
          l = Value::float64(static_cast<double>(l.i));
        } else if (r.type == Type::string) {
          const auto p = java_parse_int(r.s);
          if (!p) return std::nullopt;
          r = Value::int32(*p);
        } else {
          return -1;
        }
        break;
      case Type::int64:
        if (r.type == Type::int32) {
          r = Value::int64(r.i);
        } else if (r.type == Type::float64) {
          l = Value::float64(static_cast<double>(l.i));
        } else if (r.type == Type::string) {
          const auto p = java_parse_long(r.s);
          if (!p) return std::nullopt;
          r = Value::int64(*p);
        } else {
          return -1;
        }
        break;
      case Type::float64:
        if (r.type == Type::int32 || r.type == Type::int64) {
          r = Value::float64(static_cast<double>(r.i));
        } else if (r.type == Type::string) {
          const auto p = java_parse_double(r.s);
          if (!p) return std::nullopt;
          r = Value::float64(*p);
        } else {
          return -1;
        }
        break;
      case Type::string:
        if (r.type == Type::boolean) {
          l = Value::boolean(java_parse_boolean(l.s));
        } else if (r.type == Type::int32) {
          const auto p = java_parse_int(l.s);
          if (!p) return std::nullopt;
          l = Value::int32(*p);
        } else if (r.type == Type::int64) {
          const auto p = java_parse_long(l.s);
          if (!p) return std::nullopt;
          l = Value::int64(*p);
        } else if (r.type == Type::float64) {
          const auto p = java_parse_double(l.s);
          if (!p) return std::nullopt;
          l = Value::float64(*p);
        } else {
          return -1;
        }
        break;
      case Type::null: break;
    }
  }
  FERRY_ASSERT(l.type == r.type, "java_compare left {} and {} apart", type_name(l.type), type_name(r.type));
  switch (l.type) {
    case Type::boolean: return three_way(static_cast<int>(l.b), static_cast<int>(r.b));
    case Type::int32:
    case Type::int64: return three_way(l.i, r.i);
    case Type::float64: return java_double_compare(l.d, r.d);
    case Type::string: return three_way(l.s.compare(r.s), 0);
    case Type::null: break;
  }
  return -1;
}

std::optional<std::int32_t> java_parse_int(std::string_view s) { return parse_integral<std::int32_t>(s); }

std::optional<std::int64_t> java_parse_long(std::string_view s) { return parse_integral<std::int64_t>(s); }

std::optional<double> java_parse_double(std::string_view s) {
  while (!s.empty() && static_cast<unsigned char>(s.front()) <= ' ') s.remove_prefix(1);
  while (!s.empty() && static_cast<unsigned char>(s.back()) <= ' ') s.remove_suffix(1);
  bool negative = false;
  if (!s.empty() && (s.front() == '+' || s.front() == '-')) {
    negative = s.front() == '-';
    s.remove_prefix(1);
  }
  const double sign = negative ? -1.0 : 1.0;
  if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (s == "Infinity") return sign * std::numeric_limits<double>::infinity();
  if (!s.empty() && (s.back() == 'f' || s.back() == 'F' || s.back() == 'd' || s.back() == 'D')) s.remove_suffix(1);
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    // Java's hexadecimal form needs its binary exponent ("0x1.8p3"); "0x10" does not parse.
    const std::string_view hex = s.substr(2);
    if (hex.find_first_of("pP") == std::string_view::npos) return std::nullopt;
    if (!std::isxdigit(static_cast<unsigned char>(hex.front())) && hex.front() != '.') return std::nullopt;
    const auto v = from_chars_double(hex, std::chars_format::hex);
    if (!v) return std::nullopt;
    return sign * *v;
  }
  // Decimal: digits, an optional fraction, an optional exponent; at least one digit before the
  // exponent. from_chars would also take "inf" and "nan", so the first character is checked.
  if (s.empty() || !(std::isdigit(static_cast<unsigned char>(s.front())) || s.front() == '.')) return std::nullopt;
  const auto v = from_chars_double(s, std::chars_format::general);
  if (!v) return std::nullopt;
  return sign * *v;
}

bool java_parse_boolean(std::string_view s) {
  if (s.size() != 4) return false;
  const auto lower = [](char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c); };
  return lower(s[0]) == 't' && lower(s[1]) == 'r' && lower(s[2]) == 'u' && lower(s[3]) == 'e';
}

}  // namespace ferry::sql92
