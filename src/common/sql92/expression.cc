#include "common/sql92/expression.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "common/properties.h"
#include "runtime/assert.h"

namespace ferry::sql92 {
namespace {

Outcome boolean(bool v) { return Outcome::of(Value::boolean(v)); }
Outcome null() { return Outcome::of(Value::null()); }

bool holds(Op op, int compared) {
  switch (op) {
    case Op::lt: return compared < 0;
    case Op::le: return compared <= 0;
    case Op::gt: return compared > 0;
    case Op::ge: return compared >= 0;
    default: break;
  }
  FERRY_ASSERT(false, "holds() on a node that is no ordering ({})", static_cast<int>(op));
  return false;
}

std::string_view symbol(Op op) {
  switch (op) {
    case Op::lt: return "<";
    case Op::le: return "<=";
    case Op::gt: return ">";
    case Op::ge: return ">=";
    case Op::eq: return "=";
    case Op::logic_and: return "AND";
    case Op::logic_or: return "OR";
    default: break;
  }
  return "?";
}

}  // namespace

bool Expression::matches(std::string_view encoded) const {
  if (constant()) return constant_match_;
  FERRY_ASSERT(properties_.size() <= kPropertiesMax, "expression reads {} properties, more than {}",
               properties_.size(), kPropertiesMax);
  std::array<std::optional<std::string_view>, kPropertiesMax> slots{};
  // One pass over `name \x01 value \x02 ...` with a plain loop: two library searches per entry
  // cost more than the whole scan on a message's few short properties.
  const char* p = encoded.data();
  const char* const end = p + encoded.size();
  while (p < end) {
    const char* name = p;
    while (p < end && *p != kNameValueSeparator && *p != kPropertySeparator) ++p;
    if (p == end || *p == kPropertySeparator) {  // an entry without a value separator: skipped
      ++p;
      continue;
    }
    const std::string_view key(name, static_cast<std::size_t>(p - name));
    const char* value = ++p;
    while (p < end && *p != kPropertySeparator) ++p;
    for (std::size_t i = 0; i < properties_.size(); ++i) {
      if (properties_[i] == key) {
        slots[i] = std::string_view(value, static_cast<std::size_t>(p - value));  // the last one counts
        break;
      }
    }
    ++p;
  }
  const Outcome o = evaluate(std::span(slots.data(), properties_.size()));
  return !o.failed && o.value.type == Type::boolean && o.value.b;
}

Outcome Expression::evaluate(std::span<const std::optional<std::string_view>> slots) const {
  FERRY_ASSERT(slots.size() == properties_.size(), "{} slots for an expression of {} properties", slots.size(),
               properties_.size());
  FERRY_ASSERT(root_ < nodes_.size(), "root {} of {} nodes", root_, nodes_.size());
  return eval(root_, slots);
}

Outcome Expression::eval(std::uint32_t index, std::span<const std::optional<std::string_view>> slots) const {
  const Node& n = nodes_[index];
  switch (n.op) {
    case Op::constant: return Outcome::of(n.value);
    case Op::property: {
      FERRY_ASSERT(n.a < slots.size(), "property slot {} of {}", n.a, slots.size());
      const auto& v = slots[n.a];
      return v ? Outcome::of(Value::string(*v)) : null();
    }
    case Op::negate: {
      const Outcome o = eval(n.a, slots);
      if (o.failed) return o;
      const Value& v = o.value;
      // Java's int and long negation wrap.
      if (v.type == Type::int32) return Outcome::of(Value::int32(static_cast<std::int32_t>(0u - static_cast<std::uint32_t>(v.i))));
      if (v.type == Type::int64) return Outcome::of(Value::int64(static_cast<std::int64_t>(0ull - static_cast<std::uint64_t>(v.i))));
      if (v.type == Type::float64) return Outcome::of(Value::float64(-v.d));
      return null();
    }
    case Op::logic_not: {
      const Outcome o = eval(n.a, slots);
      if (o.failed || o.value.is_null()) return o;
      if (o.value.type != Type::boolean) return Outcome::fail();  // Java's (Boolean) cast
      return boolean(!o.value.b);
    }
    case Op::bool_cast: {
      const Outcome o = eval(n.a, slots);
      if (o.failed || o.value.is_null()) return o;
      return boolean(o.value.type == Type::boolean && o.value.b);
    }
    case Op::logic_and:
    case Op::logic_or: {
      // Left to right; the first operand that decides ends it (FALSE for AND, TRUE for OR).
      const bool deciding = n.op == Op::logic_or;
      bool saw_null = false;
      for (std::uint32_t i = 0; i < n.list_size; ++i) {
        const Outcome o = eval(operands_[n.list_begin + i], slots);
        if (o.failed) return o;
        if (o.value.is_null()) {
          saw_null = true;
          continue;
        }
        if (o.value.type != Type::boolean) return Outcome::fail();
        if (o.value.b == deciding) return boolean(deciding);
      }
      return saw_null ? null() : boolean(!deciding);
    }
    case Op::eq: {
      const Outcome l = eval(n.a, slots);
      if (l.failed) return l;
      const Outcome r = eval(n.b, slots);
      if (r.failed) return r;
      if (l.value.is_null() || r.value.is_null()) {
        if (l.value.is_null() && r.value.is_null()) return boolean(true);
        return l.value.is_null() ? null() : boolean(false);
      }
      if (java_equals(l.value, r.value)) return boolean(true);
      const auto c = java_compare(l.value, r.value);
      if (!c) return Outcome::fail();
      return boolean(*c == 0);
    }
    case Op::is_null: {
      const Outcome o = eval(n.a, slots);
      if (o.failed) return o;
      return boolean(o.value.is_null());
    }
    case Op::lt:
    case Op::le:
    case Op::gt:
    case Op::ge: {
      const Outcome l = eval(n.a, slots);
      if (l.failed || l.value.is_null()) return l;
      const Outcome r = eval(n.b, slots);
      if (r.failed || r.value.is_null()) return r;
      if (l.value.type == Type::string && r.value.type == Type::string) {
        // Two strings are ordered as numbers (Double.valueOf), or not at all.
        const auto ld = java_parse_double(l.value.s);
        const auto rd = java_parse_double(r.value.s);
        if (!ld || !rd) return Outcome::fail();
        const auto c = java_compare(Value::float64(*ld), Value::float64(*rd));
        return boolean(holds(n.op, *c));
      }
      const auto c = java_compare(l.value, r.value);
      if (!c) return Outcome::fail();
      return boolean(holds(n.op, *c));
    }
    case Op::in:
    case Op::not_in: {
      const Outcome o = eval(n.a, slots);
      if (o.failed || o.value.is_null()) return o;
      if (o.value.type != Type::string) return null();
      const auto begin = strings_.begin() + n.list_begin;
      const bool found = std::binary_search(begin, begin + n.list_size, o.value.s);
      return boolean(found != (n.op == Op::not_in));
    }
  }
  FERRY_ASSERT(false, "node {} has an unknown op {}", index, static_cast<int>(n.op));
  return Outcome::fail();
}

std::string Expression::canonical() const {
  std::string out;
  if (!nodes_.empty()) print(root_, out);
  return out;
}

void Expression::print(std::uint32_t index, std::string& out) const {
  const Node& n = nodes_[index];
  const auto quoted = [&out](std::string_view s) {
    out.push_back('\'');
    for (const char c : s) {
      if (c == '\'') out.push_back('\'');
      out.push_back(c);
    }
    out.push_back('\'');
  };
  switch (n.op) {
    case Op::constant:
      switch (n.value.type) {
        case Type::null: out += "NULL"; break;
        case Type::boolean: out += n.value.b ? "TRUE" : "FALSE"; break;
        case Type::int32:
        case Type::int64: out += fmt::format("{}", n.value.i); break;
        case Type::float64: {
          std::string d = fmt::format("{}", n.value.d);
          if (d.find_first_of(".eE") == std::string::npos) d += ".0";
          out += d;
          break;
        }
        case Type::string: quoted(n.value.s); break;
      }
      return;
    case Op::property: out += properties_[n.a]; return;
    case Op::bool_cast: print(n.a, out); return;
    // Unary operators bind tightest and go unparenthesized: parentheses of their own would nest
    // the text twice as deep as the expression, beyond what the parser takes. A space keeps
    // "- -x" from starting a comment.
    case Op::negate:
      out += nodes_[n.a].op == Op::negate ? "- " : "-";
      print(n.a, out);
      return;
    case Op::logic_not:
      out += "NOT ";
      print(n.a, out);
      return;
    case Op::logic_and:
    case Op::logic_or:
      out += "(";
      for (std::uint32_t i = 0; i < n.list_size; ++i) {
        if (i > 0) out += fmt::format(" {} ", symbol(n.op));
        print(operands_[n.list_begin + i], out);
      }
      out += ")";
      return;
    case Op::is_null:
      out += "(";
      print(n.a, out);
      out += " IS NULL)";
      return;
    case Op::eq:
    case Op::lt:
    case Op::le:
    case Op::gt:
    case Op::ge:
      out += "(";
      print(n.a, out);
      out += fmt::format(" {} ", symbol(n.op));
      print(n.b, out);
      out += ")";
      return;
    case Op::in:
    case Op::not_in:
      out += "(";
      print(n.a, out);
      out += n.op == Op::in ? " IN (" : " NOT IN (";
      for (std::uint32_t i = 0; i < n.list_size; ++i) {
        if (i > 0) out += ", ";
        quoted(strings_[n.list_begin + i]);
      }
      out += "))";
      return;
  }
}

}  // namespace ferry::sql92
