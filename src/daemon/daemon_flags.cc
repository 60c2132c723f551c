#include "daemon/daemon_flags.h"

#include <getopt.h>

namespace ferry::daemon {

Result<DaemonFlags> parse_daemon_flags(int argc, char** argv, std::string_view with_value) {
  std::string spec = ":";
  for (char c : with_value) (spec += c) += ':';
  spec += 'h';
  static const option kLongOptions[] = {{"help", no_argument, nullptr, 'h'}, {nullptr, 0, nullptr, 0}};
  DaemonFlags flags;
  opterr = 0;
  optind = 1;
  for (int opt; (opt = ::getopt_long(argc, argv, spec.c_str(), kLongOptions, nullptr)) != -1;) {
    if (opt == 'h') {
      flags.help = true;
    } else if (opt == ':') {
      return Error(Errc::invalid_argument, std::string("option -") + static_cast<char>(optopt) + " needs a value");
    } else if (opt == '?') {
      return Error(Errc::invalid_argument, optopt != 0 ? std::string("unknown option -") + static_cast<char>(optopt)
                                                       : std::string("unknown option ") + argv[optind - 1]);
    } else {
      flags.values[static_cast<char>(opt)] = optarg;
    }
  }
  if (optind < argc) return Error(Errc::invalid_argument, std::string("unexpected argument ") + argv[optind]);
  return flags;
}

}  // namespace ferry::daemon
