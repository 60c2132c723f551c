#include "sim/scenario/scenario_parser.h"

#include <fmt/format.h>

#include "sim/scenario/parse_sections.h"

namespace ferry::sim::scenario {

namespace {

std::string base_name(const std::string& file) {
  std::string name = file.substr(file.find_last_of('/') + 1);
  constexpr std::string_view kExt = ".toml";
  if (name.size() > kExt.size() && name.compare(name.size() - kExt.size(), kExt.size(), kExt) == 0) {
    name.resize(name.size() - kExt.size());
  }
  return name;
}

}  // namespace

Result<Scenario> parse_scenario(std::string_view toml_text, std::string file_name) {
  if (toml_text.size() > kScenarioTextBytesMax) {
    return Error(Errc::invalid_argument, fmt::format("{}: {} bytes; a scenario is at most {} bytes", file_name,
                                                     toml_text.size(), kScenarioTextBytesMax));
  }
  toml::table root;
  // toml++ reports syntax errors by exception: caught here, at the library's edge.
  try {
    root = toml::parse(toml_text, file_name);
  } catch (const toml::parse_error& e) {
    return Error(Errc::invalid_argument,
                 fmt::format("{}:{}: {}", file_name, e.source().begin.line, e.description()));
  }
  Diagnostics diag(file_name);
  TableReader top(diag, root, "");
  Scenario s;
  s.file = file_name;
  s.name = base_name(file_name);
  top.read("name", s.name);
  top.read("story", s.story);
  parse_cluster(top, diag, s);
  parse_workload(top, diag, s);
  parse_faults(top, diag, s);
  parse_settings(top, diag, s);
  top.finish();
  if (!diag.ok()) return diag.status().error();
  if (Status v = s.cluster.check(); !v.ok()) {
    return Error(Errc::invalid_argument, fmt::format("{}: cluster: {}", file_name, v.error().detail));
  }
  return s;
}

}  // namespace ferry::sim::scenario
