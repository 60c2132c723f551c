// mqsim list [DIR]: every scenario file in DIR (default: scenarios) with its one-line story.
#include <fmt/format.h>

#include <cstdio>

#include "sim/io/scenario_file.h"
#include "tools/mqsim/command.h"

namespace ferry::mqsim {

int run_list(const std::vector<std::string>& args) {
  if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
    std::fputs("usage: mqsim list [DIR]\nLists the scenario files in DIR (default: scenarios) with their stories.\n", stdout);
    return kExitOk;
  }
  if (args.size() > 1 || (args.size() == 1 && !args[0].empty() && args[0][0] == '-')) {
    std::fputs("usage: mqsim list [DIR]\n", stderr);
    return kExitUsage;
  }
  const std::string dir = args.empty() ? "scenarios" : args[0];
  auto files = sim::io::scenario_files(dir);
  if (!files.ok()) {
    std::fputs(fmt::format("mqsim list: {}\n", files.error().to_string()).c_str(), stderr);
    return kExitFailed;
  }
  int bad = 0;
  for (const std::string& f : *files) {
    auto s = sim::io::load_scenario(f);
    if (!s.ok()) {
      std::fputs(fmt::format("{}: {}\n", f, s.error().detail).c_str(), stdout);
      ++bad;
      continue;
    }
    std::fputs(fmt::format("{:<28} {}\n", s->name, s->story).c_str(), stdout);
  }
  return bad == 0 ? kExitOk : kExitFailed;
}

}  // namespace ferry::mqsim
