#include "tools/mqsim/command.h"

namespace ferry::mqsim {

const std::vector<Command>& all_commands() {
  static const std::vector<Command> commands = {
      {"run", "run FILE [--seed N | --seeds A..B] [--report FILE.html] ...",
       "run a scenario file on each seed and judge it (exit 0 only when every seed passes)", &run_run},
      {"list", "list [DIR] | --checkers | --faults", "the scenario files in DIR (default: scenarios); the checkers; the fault actions", &run_list},
      {"check", "check HISTORY_FILE [--report FILE.html]", "judge a recorded history again with every checker (exit 0 only when all pass)", &run_check},
  };
  return commands;
}

}  // namespace ferry::mqsim
