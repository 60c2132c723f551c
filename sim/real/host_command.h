// Running the host's own tools (ip, nft) for `mqsim run --real`: one program, waited for, its
// output captured. Not component code: it forks and execs.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "runtime/result.h"

namespace ferry::sim::real {

// Runs argv (argv[0] looked up on PATH) with `input` on its stdin, waits for it and returns what
// it wrote on stdout and stderr together. An exit status other than 0, a signal or a program that
// cannot be started is an error (Errc::io_error) naming the command, the status and the output's
// first lines.
Result<std::string> run_host_command(const std::vector<std::string>& argv, std::string_view input = {});
// The same inside the network namespace `netns_fd` (the child enters it before exec). Unlike
// `ip -n` / `ip netns exec`, nothing is remounted, so it works in a chroot too.
Result<std::string> run_in_netns(int netns_fd, const std::vector<std::string>& argv, std::string_view input = {});

// The executable `program` in one of PATH's folders or, failing that, in /usr/sbin or /sbin (where
// Debian puts ip and nft, which a non-login shell's PATH may lack); "" when there is none.
std::string find_program(const std::string& program);

}  // namespace ferry::sim::real
