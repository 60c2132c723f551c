// mqsim: runs and judges simulated clusters (docs/simulator.md, "History and checkers").
//
//   mqsim --help                 lists the subcommands
//   mqsim SUBCOMMAND --help      one subcommand's usage
//   mqsim run FILE [--seeds A..B] run a scenario file (docs/scenarios.md) and judge it
//         [--report FILE.html]    ... and write a report page a seed (sim/report/html_report.h)
//   mqsim list [DIR]             the scenario files and their stories
//   mqsim list --checkers        the checkers (and named checks' options); --faults: the fault actions
//   mqsim check HISTORY_FILE     judge a recorded history again (--report FILE.html: a page too)
//
// Exit codes: 0 success, 1 a check failed or the input could not be read, 2 bad usage.
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "tools/mqsim/command.h"

namespace {

using namespace ferry::mqsim;

void print_overview(std::FILE* to) {
  std::string out = "usage: mqsim SUBCOMMAND [args]\n\nsubcommands:\n";
  std::size_t width = 0;
  for (const Command& c : all_commands()) width = std::max(width, c.usage.size());
  for (const Command& c : all_commands()) out += fmt::format("  {:<{}}  {}\n", c.usage, width, c.summary);
  out += "\nrun 'mqsim SUBCOMMAND --help' for one subcommand's usage.\n";
  std::fputs(out.c_str(), to);
}

int run(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    print_overview(stderr);
    return kExitUsage;
  }
  if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    print_overview(stdout);
    return kExitOk;
  }
  for (const Command& c : all_commands()) {
    if (c.name == args[0]) return c.run(std::vector<std::string>(args.begin() + 1, args.end()));
  }
  std::fputs(fmt::format("mqsim: unknown subcommand '{}'\n", args[0]).c_str(), stderr);
  print_overview(stderr);
  return kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  // The outermost edge: a bug that throws is reported, not a core dump.
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fputs(fmt::format("mqsim: internal error: {}\n", e.what()).c_str(), stderr);
    return kExitFailed;
  }
}
