// TableReader: typed, checked reads of one TOML table for the scenario parser. Every read marks
// its key as known; finish() refuses the keys nobody read. Problems are collected in a
// Diagnostics as "file:line: key: what is wrong" (the key with its path, "brokers[1].slaves"),
// so that one pass reports every mistake of a file, up to kDiagnosticsMax.
//
// A read of a missing key leaves the output untouched (the caller's default stays); a read of a
// key of the wrong type, or out of range, reports and leaves it untouched too.
#pragma once

#include <toml++/toml.h>

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/result.h"
#include "runtime/time.h"
#include "sim/scenario/scenario_names.h"

namespace ferry::sim::scenario {

inline constexpr std::size_t kDiagnosticsMax = 20;

class Diagnostics {
 public:
  explicit Diagnostics(std::string file) : file_(std::move(file)) {}
  // "file:line: key: what"; line 0 (unknown) prints "file: key: what".
  void add(int line, std::string_view key, std::string_view what);
  bool ok() const { return errors_.empty(); }
  // invalid_argument with every message, one a line (and how many more were left out).
  Status status() const;
  const std::string& file() const { return file_; }

 private:
  std::string file_;
  std::vector<std::string> errors_;
  std::size_t dropped_ = 0;
};

int line_of(const toml::node& n);

class TableReader {
 public:
  // `path` prefixes every key in messages ("" at the top, "brokers[0]" for an entry).
  TableReader(Diagnostics& diag, const toml::table& table, std::string path);

  bool has(std::string_view key) const { return table_.contains(key); }
  int line() const { return line_of(table_); }
  int line(std::string_view key) const;       // the key's value, or the table's line
  std::string path(std::string_view key) const;  // "brokers[0].slaves"
  // Reports a problem with `key` at its line.
  void fail(std::string_view key, std::string_view what) { diag_.add(line(key), path(key), what); }

  void read(std::string_view key, bool& out);
  void read(std::string_view key, std::string& out);
  // Integers within [min, max] (the message names the range).
  void read(std::string_view key, std::int64_t& out, std::int64_t min, std::int64_t max);
  template <typename Int>
  void read_int(std::string_view key, Int& out, std::int64_t min, std::int64_t max) {
    std::int64_t v = static_cast<std::int64_t>(out);
    read(key, v, min, max);
    out = static_cast<Int>(v);
  }
  // A number (integer or float) within [min, max].
  void read(std::string_view key, double& out, double min, double max);
  // A duration string (duration_text.h) within [min, max].
  void read_duration(std::string_view key, Duration& out, Duration min, Duration max, bool sign_allowed = false);
  // One string or an array of strings, each non-empty.
  void read_strings(std::string_view key, std::vector<std::string>& out);
  template <typename E>
  void read_enum(std::string_view key, E& out, const NameTable<E>& names) {
    std::string text;
    if (!read_string_checked(key, text)) return;
    for (const auto& [name, value] : names) {
      if (name == text) {
        out = value;
        return;
      }
    }
    std::vector<std::string_view> choices;
    for (const auto& entry : names) choices.push_back(entry.first);
    fail(key, not_one_of(text, choices));
  }

  // A string that must be one of `choices` (reported as read_enum does).
  void read_choice(std::string_view key, std::string& out, const std::vector<std::string_view>& choices) {
    std::string text;
    if (!read_string_checked(key, text)) return;
    for (std::string_view c : choices) {
      if (c == text) {
        out = std::move(text);
        return;
      }
    }
    fail(key, not_one_of(text, choices));
  }

  // A sub-table (nullptr when absent or not a table: reported).
  const toml::table* table(std::string_view key);
  // An array of tables ([[key]] entries); nullptr when absent, not one, or longer than
  // `entries_max` (reported).
  const toml::array* tables(std::string_view key, std::size_t entries_max);

  // Marks a key known without reading it (a key another reader handles).
  void known(std::string_view key) { known_.insert(std::string(key)); }
  // Reports every key of the table that was not read: "unknown key" (with the keys it knows).
  void finish();

 private:
  const toml::node* find(std::string_view key);
  // "\"x\" is not one of \"a\", \"b\"".
  static std::string not_one_of(std::string_view text, const std::vector<std::string_view>& choices);
  bool read_string_checked(std::string_view key, std::string& out);

  Diagnostics& diag_;
  const toml::table& table_;
  std::string path_;
  std::set<std::string> known_;
};

}  // namespace ferry::sim::scenario
