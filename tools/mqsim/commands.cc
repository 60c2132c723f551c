#include "tools/mqsim/command.h"

namespace ferry::mqsim {

const std::vector<Command>& all_commands() {
  static const std::vector<Command> commands = {
      {"check", "check HISTORY_FILE", "judge a recorded history again with every checker (exit 0 only when all pass)", &run_check},
  };
  return commands;
}

}  // namespace ferry::mqsim
