// mqsim check HISTORY_FILE: loads a history (json when the name ends in .json, else binary), runs
// every checker with the settings the history carries, prints one line per checker with its
// figures (and the first violation of a failed one), then "N passed, M failed".
#include <fmt/format.h>

#include <cstdio>

#include "sim/check/checkers.h"
#include "tools/mqsim/command.h"
#include "tools/mqsim/history_file.h"

namespace ferry::mqsim {

int run_check(const std::vector<std::string>& args) {
  if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
    std::fputs("usage: mqsim check HISTORY_FILE\n"
               "Runs every checker on a recorded history (HISTORY_FILE.json: json; any other name: binary)\n"
               "and prints one line per checker with its figures. Exit 0 when all pass, 1 when one fails\n"
               "or the file cannot be read, 2 on bad usage.\n",
               stdout);
    return kExitOk;
  }
  if (args.size() != 1 || args[0].empty() || args[0][0] == '-') {
    std::fputs("usage: mqsim check HISTORY_FILE\n", stderr);
    return kExitUsage;
  }
  Result<sim::check::History> h = load_history_file(args[0]);
  if (!h.ok()) {
    std::fputs(fmt::format("mqsim check: {}\n", h.error().to_string()).c_str(), stderr);
    return kExitFailed;
  }
  const std::vector<sim::check::Verdict> verdicts = sim::check::run_all_checks(*h);
  std::size_t failed = 0;
  for (const sim::check::Verdict& v : verdicts) {
    std::fputs((v.to_line() + "\n").c_str(), stdout);
    failed += v.passed ? 0 : 1;
  }
  std::fputs(fmt::format("{} passed, {} failed ({} sends, {} deliveries, {} events)\n", verdicts.size() - failed, failed, h->sends.size(),
                         h->consumes.size(), h->events.size())
                 .c_str(),
             stdout);
  return failed == 0 ? kExitOk : kExitFailed;
}

}  // namespace ferry::mqsim
