// The -n flag of the command-line tools (mqadmin, mqbench): NameServer addresses "ip:port;ip:port".
#pragma once

#include <string>
#include <vector>

#include "runtime/result.h"

namespace ferry::cli {

// Splits "ip:port;ip:port" and checks each piece (an IPv4 address and a port 1..65535).
// Errors (invalid_argument) name the bad piece.
Result<std::vector<std::string>> parse_namesrv_addrs(const std::string& text);

}  // namespace ferry::cli
