#include "sim/check/checkers.h"

#include <fmt/format.h>

#include <algorithm>

namespace ferry::sim::check {

namespace {

// Why checker `c` cannot judge `h` (it reads records the run did not observe); "" when it can.
std::string unjudgeable(const CheckerSpec& c, const History& h) {
  std::string missing;
  for (const std::string& kind : h.unobserved) {
    if ((c.needs & record_named(kind)) == 0) continue;
    missing += missing.empty() ? kind : ", " + kind;
  }
  if (missing.empty()) return "";
  return fmt::format("reads {}, which this run did not observe", missing);
}

}  // namespace

std::vector<Verdict> run_all_checks(const History& h) {
  std::vector<Verdict> out;
  const CheckerRegistry& registry = checkers();
  for (const CheckerSpec& c : registry.all()) {
    if (!c.always && h.settings.named.count(c.name) == 0) continue;
    if (std::string why = unjudgeable(c, h); !why.empty()) {
      Verdict v;
      v.name = c.name;
      v.not_judged = std::move(why);
      out.push_back(std::move(v));
      continue;
    }
    if (c.always) {
      out.push_back(c.judge(h, OptionValues{}));
      continue;
    }
    auto it = h.settings.named.find(c.name);
    // An option added to the check after the history was recorded takes its default.
    OptionValues options = it->second;
    for (const OptionSpec& o : c.options) options.try_emplace(std::string(o.name), o.default_value);
    Verdict v = c.judge(h, options);
    if (std::find(h.settings.figures_only.begin(), h.settings.figures_only.end(), c.name) != h.settings.figures_only.end()) {
      v.figures_only = true;
      v.passed = true;
    }
    out.push_back(std::move(v));
  }
  for (const auto& [name, options] : h.settings.named) {
    const CheckerSpec* c = registry.find(name);
    if (c != nullptr && !c->always) continue;
    Verdict v;
    v.name = name;
    v.passed = false;
    v.violation(c == nullptr ? fmt::format("the history asks for check {}, which this build does not have", name)
                             : fmt::format("the history gives options to check {}, which takes none", name));
    out.push_back(std::move(v));
  }
  return out;
}

bool all_passed(const std::vector<Verdict>& verdicts) {
  for (const Verdict& v : verdicts) {
    if (!v.passed) return false;
  }
  return true;
}

}  // namespace ferry::sim::check
