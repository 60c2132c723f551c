#include "cli/flags.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>

namespace ferry::cli {

namespace {

const FlagSpec* find_short(std::span<const FlagSpec> specs, char c) {
  for (const FlagSpec& s : specs) {
    if (s.short_name != 0 && s.short_name == c) return &s;
  }
  return nullptr;
}

const FlagSpec* find_long(std::span<const FlagSpec> specs, std::string_view name) {
  for (const FlagSpec& s : specs) {
    if (s.long_name == name) return &s;
  }
  return nullptr;
}

}  // namespace

std::optional<std::string> ParsedFlags::get(std::string_view long_name) const {
  auto it = values_.find(long_name);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

std::string ParsedFlags::get_or(std::string_view long_name, std::string fallback) const {
  std::optional<std::string> v = get(long_name);
  return v ? std::move(*v) : std::move(fallback);
}

Result<std::int64_t> ParsedFlags::int_in(std::string_view long_name, std::int64_t min, std::int64_t max,
                                         std::int64_t fallback) const {
  std::optional<std::string> v = get(long_name);
  if (!v) return fallback;
  std::int64_t n = 0;
  const char* end = v->data() + v->size();
  auto [p, ec] = std::from_chars(v->data(), end, n);
  if (v->empty() || ec != std::errc() || p != end) {
    return Error(Errc::invalid_argument, fmt::format("--{}: '{}' is not a number", long_name, *v));
  }
  if (n < min || n > max) {
    return Error(Errc::invalid_argument, fmt::format("--{}: {} is not within {}..{}", long_name, n, min, max));
  }
  return n;
}

Result<std::optional<bool>> ParsedFlags::bool_of(std::string_view long_name) const {
  std::optional<std::string> v = get(long_name);
  if (!v) return std::optional<bool>();
  std::string lower = *v;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "true") return std::optional<bool>(true);
  if (lower == "false") return std::optional<bool>(false);
  return Error(Errc::invalid_argument, fmt::format("--{}: '{}' is not true or false", long_name, *v));
}

std::string flag_name(const FlagSpec& spec) {
  if (spec.short_name == 0) return fmt::format("--{}", spec.long_name);
  return fmt::format("-{} (--{})", spec.short_name, spec.long_name);
}

Result<ParsedFlags> parse_flags(std::span<const FlagSpec> specs, std::span<const std::string> args) {
  ParsedFlags out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    const FlagSpec* spec = nullptr;
    std::optional<std::string> inline_value;
    if (arg.size() > 2 && arg.starts_with("--")) {
      std::string_view name = std::string_view(arg).substr(2);
      if (auto eq = name.find('='); eq != std::string_view::npos) {
        inline_value = std::string(name.substr(eq + 1));
        name = name.substr(0, eq);
      }
      spec = find_long(specs, name);
      if (spec == nullptr) return Error(Errc::invalid_argument, fmt::format("unknown flag --{}", name));
    } else if (arg.size() >= 2 && arg[0] == '-' && arg[1] != '-') {
      spec = find_short(specs, arg[1]);
      if (spec == nullptr) return Error(Errc::invalid_argument, fmt::format("unknown flag -{}", arg[1]));
      if (arg.size() > 2) inline_value = arg.substr(2);  // -tTOPIC
    } else {
      return Error(Errc::invalid_argument, fmt::format("unexpected argument '{}'", arg));
    }
    if (spec->value_name.empty()) {
      if (inline_value) return Error(Errc::invalid_argument, fmt::format("{} takes no value", flag_name(*spec)));
      out.set(std::string(spec->long_name), "");
      continue;
    }
    if (!inline_value) {
      if (i + 1 >= args.size()) return Error(Errc::invalid_argument, fmt::format("{} needs a value ({})", flag_name(*spec), spec->value_name));
      inline_value = args[++i];
    }
    out.set(std::string(spec->long_name), std::move(*inline_value));
  }
  if (out.has("help")) return out;
  for (const FlagSpec& s : specs) {
    if (s.required && !out.has(s.long_name)) {
      return Error(Errc::invalid_argument, fmt::format("missing required flag {} {}", flag_name(s), s.value_name));
    }
  }
  return out;
}

std::string flags_help(std::span<const FlagSpec> specs) {
  std::vector<std::string> lefts;
  std::size_t width = 0;
  for (const FlagSpec& s : specs) {
    std::string left = s.short_name != 0 ? fmt::format("-{}, --{}", s.short_name, s.long_name) : fmt::format("    --{}", s.long_name);
    if (!s.value_name.empty()) left += fmt::format(" {}", s.value_name);
    width = std::max(width, left.size());
    lefts.push_back(std::move(left));
  }
  std::string out;
  for (std::size_t i = 0; i < specs.size(); ++i) {
    out += fmt::format("  {:<{}}  {}{}\n", lefts[i], width, specs[i].help, specs[i].required ? " (required)" : "");
  }
  return out;
}

}  // namespace ferry::cli
