// The command-line tools' flag parser (mqadmin, mqbench): RocketMQ-style `-t TOPIC` short flags,
// plus `--topic TOPIC` and `--topic=TOPIC` long forms, checked against a per-subcommand list of
// FlagSpecs.
//
//   const FlagSpec specs[] = {{'t', "topic", "TOPIC", "topic name", true}};
//   Result<ParsedFlags> f = parse_flags(specs, args);   // args: what follows the subcommand
//   f->get("topic")                                      // by long name
//
// A spec with an empty value_name is a switch (present or not). Errors (invalid_argument) name
// the flag: an unknown flag, a flag without its value, a required flag missing, a stray
// argument, a number that is not one or out of range. A flag given twice keeps the last value.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/result.h"

namespace ferry::cli {

struct FlagSpec {
  char short_name = 0;           // 0: long form only
  std::string_view long_name;    // the key in ParsedFlags
  std::string_view value_name;   // shown in help; empty: a switch without value
  std::string_view help;
  bool required = false;
};

class ParsedFlags {
 public:
  bool has(std::string_view long_name) const { return values_.count(std::string(long_name)) > 0; }
  // The value, or nullopt when the flag was not given ("" for a given switch).
  std::optional<std::string> get(std::string_view long_name) const;
  std::string get_or(std::string_view long_name, std::string fallback) const;
  // The value as an integer in [min, max], `fallback` when absent. Errors name the flag.
  Result<std::int64_t> int_in(std::string_view long_name, std::int64_t min, std::int64_t max,
                              std::int64_t fallback) const;
  // The value as a boolean ("true" / "false", any letter case), nullopt when absent. Errors name
  // the flag.
  Result<std::optional<bool>> bool_of(std::string_view long_name) const;

  void set(std::string long_name, std::string value) { values_[std::move(long_name)] = std::move(value); }

 private:
  std::map<std::string, std::string, std::less<>> values_;
};

// Parses `args` against `specs`. When `-h`/`--help` is among the specs and given, required flags
// are not checked (the caller prints help).
Result<ParsedFlags> parse_flags(std::span<const FlagSpec> specs, std::span<const std::string> args);

// "  -t, --topic TOPIC     topic name (required)" lines, aligned, one per spec.
std::string flags_help(std::span<const FlagSpec> specs);

// "-t (--topic)" or "--topic": how errors name a flag.
std::string flag_name(const FlagSpec& spec);

}  // namespace ferry::cli
