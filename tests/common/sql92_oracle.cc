// The SQL92 test oracles (sql92_oracle.h), written without the filter's own helpers.
#include "tests/common/sql92_oracle.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <set>

namespace ferry::sql92::testing {
namespace {

// The decimal number at the front of `s` (advanced past it), or nullopt.
std::optional<std::uint64_t> take_number(std::string_view& s) {
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end == s.data()) return std::nullopt;
  s.remove_prefix(static_cast<std::size_t>(end - s.data()));
  return v;
}

bool take(std::string_view& s, std::string_view prefix) {
  if (s.substr(0, prefix.size()) != prefix) return false;
  s.remove_prefix(prefix.size());
  return true;
}

}  // namespace

ParseLimits reparse_limits() {
  ParseLimits limits;
  limits.text_bytes_max *= 16;
  limits.nodes_max *= 64;
  return limits;
}

ParseLimits composed_limits() {
  ParseLimits limits = reparse_limits();
  limits.depth_max += 8;
  return limits;
}

std::vector<std::optional<std::string_view>> slots_by_hand(const Expression& e, std::string_view encoded) {
  std::map<std::string_view, std::string_view> last;
  std::size_t begin = 0;
  while (begin <= encoded.size()) {
    std::size_t end = encoded.find('\x02', begin);
    if (end == std::string_view::npos) end = encoded.size();
    const std::string_view entry = encoded.substr(begin, end - begin);
    const std::size_t sep = entry.find('\x01');
    if (sep != std::string_view::npos) last[entry.substr(0, sep)] = entry.substr(sep + 1);
    begin = end + 1;
  }
  std::vector<std::optional<std::string_view>> slots;
  for (const std::string& name : e.properties()) {
    const auto it = last.find(name);
    slots.push_back(it == last.end() ? std::nullopt : std::optional<std::string_view>(it->second));
  }
  return slots;
}

bool selects(const Outcome& o) { return !o.failed && o.value.type == Type::boolean && o.value.b; }

bool same_outcome(const Outcome& x, const Outcome& y) {
  if (x.failed || y.failed) return x.failed == y.failed;
  if (x.value.type != y.value.type) return false;
  return x.value.type != Type::boolean || x.value.b == y.value.b;
}

std::string error_problem(std::string_view detail, std::string_view text) {
  std::string_view rest = detail;
  if (take(rest, "the expression has ")) {
    const auto n = take_number(rest);
    if (!n || !take(rest, " bytes, more than ")) return fmt::format("a bound without a position: \"{}\"", detail);
    const auto max = take_number(rest);
    if (!max || !rest.empty() || *n != text.size() || *n <= *max) {
      return fmt::format("\"{}\" for a text of {} bytes", detail, text.size());
    }
    return {};
  }
  if (!take(rest, "line ")) return fmt::format("no position: \"{}\"", detail);
  const auto line = take_number(rest);
  if (!line || !take(rest, ", column ")) return fmt::format("no line: \"{}\"", detail);
  const auto column = take_number(rest);
  if (!column || !take(rest, ": ") || rest.empty()) return fmt::format("no column or no message: \"{}\"", detail);
  // Line L's length: lines end at '\n' (the lexer's count).
  std::uint64_t at_line = 1;
  std::size_t begin = 0;
  while (at_line < *line) {
    const std::size_t nl = text.find('\n', begin);
    if (nl == std::string_view::npos) return fmt::format("\"{}\": the text has {} lines", detail, at_line);
    begin = nl + 1;
    ++at_line;
  }
  const std::size_t end = std::min(text.find('\n', begin), text.size());
  if (*column < 1 || *column > end - begin + 1) {
    return fmt::format("\"{}\": line {} has {} bytes", detail, *line, end - begin);
  }
  return {};
}

std::string round_trip_problem(const Expression& e) {
  const std::string text = e.canonical();
  auto again = parse(text, reparse_limits());
  if (!again.ok()) {
    return fmt::format("canonical text \"{}\" does not parse: {}", printable(text), again.error().detail);
  }
  if (again->canonical() != text) {
    return fmt::format("canonical \"{}\" re-parses as \"{}\"", printable(text), printable(again->canonical()));
  }
  const std::set<std::string> names(e.properties().begin(), e.properties().end());
  const std::set<std::string> names_again(again->properties().begin(), again->properties().end());
  if (names != names_again) {
    return fmt::format("canonical \"{}\" reads {} properties, the original {}", printable(text), names_again.size(),
                       names.size());
  }
  if (again->constant() != e.constant() || again->constant_match() != e.constant_match()) {
    return fmt::format("canonical \"{}\" is constant {} matching {}, the original constant {} matching {}",
                       printable(text), again->constant(), again->constant_match(), e.constant(), e.constant_match());
  }
  return {};
}

std::string printable(std::string_view text) {
  std::string out;
  for (const char c : text.substr(0, 300)) {
    const auto b = static_cast<unsigned char>(c);
    if (b >= 0x20 && b < 0x7f && c != '\\') {
      out.push_back(c);
    } else {
      out += fmt::format("\\x{:02x}", b);
    }
  }
  return text.size() > 300 ? out + "..." : out;
}

}  // namespace ferry::sql92::testing
