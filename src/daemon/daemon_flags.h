// The daemons' command line (mqnamesrv, mqcontroller): single-letter options that take a value,
// and -h / --help.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "runtime/result.h"

namespace ferry::daemon {

struct DaemonFlags {
  std::map<char, std::string> values;  // by option letter; the last one given wins
  bool help = false;                   // -h or --help: print the usage and exit 0
};

// `with_value` lists the letters that take a value ("cpd"). Errors (invalid_argument), for the
// daemon to print beside its usage: "option -c needs a value", "unknown option -x",
// "unknown option --foo", "unexpected argument y".
Result<DaemonFlags> parse_daemon_flags(int argc, char** argv, std::string_view with_value);

}  // namespace ferry::daemon
