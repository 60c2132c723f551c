// mqsim's subcommands: one file each (cmd_*.cc), listed in commands.cc. A command gets the
// arguments after its name and returns the process's exit code: 0 success, 1 the run or the
// check failed, 2 bad usage.
#pragma once

#include <string>
#include <vector>

namespace ferry::mqsim {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitUsage = 2;

struct Command {
  std::string name;
  std::string usage;    // "check HISTORY_FILE"
  std::string summary;  // one line
  int (*run)(const std::vector<std::string>& args);
};

const std::vector<Command>& all_commands();

int run_check(const std::vector<std::string>& args);
int run_run(const std::vector<std::string>& args);
int run_list(const std::vector<std::string>& args);

}  // namespace ferry::mqsim
