// The docs' tables of checkers and fault actions against the registries (sim/check/registry.h,
// sim/scenario/fault_registry.h): a checker or fault action added, renamed or given a new key
// without its docs row fails here, naming what is missing.
//   docs/simulator.md   "| Checker | Guarantee | Figures |": every checker that runs on every History
//   docs/scenarios.md   "| check | measures (figures) | fails when |": every named check
//                       "| check | option | default | meaning |": every named check's options and defaults
//                       "| action | takes | what it does |": every fault action and the keys it takes
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "sim/check/registry.h"
#include "sim/scenario/duration_text.h"
#include "sim/scenario/fault_registry.h"

namespace ferry::sim {
namespace {

std::string read_doc(const std::string& name) {
  const char* src = std::getenv("FERRY_SOURCE_DIR");
  if (src == nullptr) return "";
  std::ifstream in(std::string(src) + "/docs/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The cells of a table row, trimmed; "\|" inside a cell is a literal bar.
std::vector<std::string> cells(const std::string& row) {
  std::vector<std::string> out;
  std::string cell;
  for (std::size_t i = 1; i < row.size(); ++i) {
    if (row[i] == '\\' && i + 1 < row.size() && row[i + 1] == '|') {
      cell += '|';
      ++i;
    } else if (row[i] == '|') {
      const auto a = cell.find_first_not_of(' ');
      const auto b = cell.find_last_not_of(' ');
      out.push_back(a == std::string::npos ? "" : cell.substr(a, b - a + 1));
      cell.clear();
    } else {
      cell += row[i];
    }
  }
  return out;
}

// The rows of the table whose header row is `header` (without the separator row).
std::vector<std::vector<std::string>> table(const std::string& doc, const std::string& header) {
  std::vector<std::vector<std::string>> rows;
  const auto at = doc.find(header + "\n");
  if (at == std::string::npos) return rows;
  std::istringstream in(doc.substr(at));
  std::string line;
  std::getline(in, line);  // the header
  std::getline(in, line);  // |---|
  while (std::getline(in, line) && !line.empty() && line[0] == '|') rows.push_back(cells(line));
  return rows;
}

std::string unquote(std::string s) {
  if (s.size() >= 2 && s.front() == '`' && s.back() == '`') return s.substr(1, s.size() - 2);
  return s;
}

bool mentions(const std::string& cell, std::string_view key) {
  return cell.find(fmt::format("`{}`", key)) != std::string::npos;
}

// How the docs write an option's default.
std::string default_text(const OptionSpec& o) {
  if (const auto* d = std::get_if<Duration>(&o.default_value))
    return fmt::format("`\"{}\"`", scenario::format_duration(*d));
  if (const auto* i = std::get_if<std::int64_t>(&o.default_value)) return fmt::format("`{}`", *i);
  if (const auto* b = std::get_if<bool>(&o.default_value)) return *b ? "`true`" : "`false`";
  const std::string& s = std::get<std::string>(o.default_value);
  if (s.empty() && (o.required || (o.names_group && !o.optional))) return "*required*";
  if (s.empty()) return "`\"\"` (none)";
  return fmt::format("`\"{}\"`", s);
}

TEST(DocsAgainstRegistries, EveryCheckerThatJudgesEveryHistoryHasItsRow) {
  const std::string doc = read_doc("simulator.md");
  ASSERT_FALSE(doc.empty()) << "FERRY_SOURCE_DIR is set by ctest; docs/simulator.md must exist";
  std::vector<std::string> documented;
  for (const auto& row : table(doc, "| Checker | Guarantee | Figures |")) documented.push_back(unquote(row.at(0)));
  std::vector<std::string> registered;
  for (const check::CheckerSpec& c : check::checkers().all()) {
    if (c.always) registered.push_back(c.name);
  }
  EXPECT_EQ(documented, registered) << "docs/simulator.md's checker table, in the registry's order";
}

TEST(DocsAgainstRegistries, EveryNamedCheckAndItsOptionsAreDocumented) {
  const std::string doc = read_doc("scenarios.md");
  ASSERT_FALSE(doc.empty());
  std::vector<std::string> measured;
  for (const auto& row : table(doc, "| check | measures (figures) | fails when |"))
    measured.push_back(unquote(row.at(0)));
  std::vector<std::string> named;
  std::vector<std::string> options_registered;
  for (const check::CheckerSpec& c : check::checkers().all()) {
    if (c.always) continue;
    named.push_back(c.name);
    for (const OptionSpec& o : c.options)
      options_registered.push_back(fmt::format("{} {} {}", c.name, o.name, default_text(o)));
  }
  EXPECT_EQ(measured, named) << "docs/scenarios.md's named checks, in the registry's order";
  std::vector<std::string> options_documented;
  std::string check;
  for (const auto& row : table(doc, "| check | option | default | meaning |")) {
    if (!row.at(0).empty()) check = unquote(row.at(0));
    std::string default_cell = row.at(2);
    // A duration may be written in any form the files take ("130s" for 2m10s).
    if (default_cell.size() > 4 && default_cell.starts_with("`\"") && default_cell.ends_with("\"`")) {
      if (auto d = scenario::parse_duration(default_cell.substr(2, default_cell.size() - 4)); d.ok()) {
        default_cell = fmt::format("`\"{}\"`", scenario::format_duration(*d));
      }
    }
    options_documented.push_back(fmt::format("{} {} {}", check, unquote(row.at(1)), default_cell));
  }
  EXPECT_EQ(options_documented, options_registered)
      << "docs/scenarios.md's option table: each check's options, in order, with defaults";
}

TEST(DocsAgainstRegistries, EveryFaultActionAndTheKeysItTakesAreDocumented) {
  const std::string doc = read_doc("scenarios.md");
  ASSERT_FALSE(doc.empty());
  const auto rows = table(doc, "| action | takes | what it does |");
  std::vector<std::string> documented;
  for (const auto& row : rows) documented.push_back(unquote(row.at(0)));
  std::vector<std::string> registered;
  for (const scenario::FaultActionSpec& a : scenario::fault_actions().all()) registered.push_back(a.name);
  EXPECT_EQ(documented, registered) << "docs/scenarios.md's fault actions, in the registry's order";
  for (const auto& row : rows) {
    const scenario::FaultActionSpec* a = scenario::fault_actions().find(unquote(row.at(0)));
    if (a == nullptr) continue;
    const std::string& takes = row.at(1);
    for (const OptionSpec& o : a->keys)
      EXPECT_TRUE(mentions(takes, o.name)) << a->name << " takes `" << o.name << "`: " << takes;
    EXPECT_EQ(mentions(takes, "peers"), a->peers) << a->name << ": " << takes;
    EXPECT_EQ(mentions(takes, "duration"), a->duration) << a->name << ": " << takes;
    EXPECT_EQ(takes.find("(no target)") == std::string::npos, a->targets) << a->name << ": " << takes;
    for (const OptionSpec& o : a->keys) {
      if (!o.required) continue;
      EXPECT_NE(takes.find(fmt::format("`{}` (*required*", o.name)), std::string::npos) << a->name << ": " << takes;
    }
  }
}

}  // namespace
}  // namespace ferry::sim
