// What /proc says about a process on this machine (Linux): a daemon's anonymous memory and its
// open descriptors, as the limit tests (tests/daemons) and `mqbench hostile` (tools/bench) read
// them. Each answer is read fresh; nullopt when the process is gone or /proc cannot be read.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

namespace ferry::testing {

// RssAnon of /proc/PID/status in KiB: the anonymous resident memory (the heap, not the mapped
// CommitLog's file pages). nullopt for pid <= 0, a process that is gone, or a line that is missing
// or does not start with a number.
inline std::optional<std::int64_t> rss_anon_kib(pid_t pid) {
  if (pid <= 0) return std::nullopt;
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  constexpr std::string_view kKey = "RssAnon:";
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(kKey, 0) != 0) continue;
    const std::size_t digits = line.find_first_of("0123456789", kKey.size());
    if (digits == std::string::npos) return std::nullopt;
    return std::stoll(line.substr(digits));
  }
  return std::nullopt;
}

// The entries of /proc/PID/fd: how many descriptors the process has open. nullopt when the
// folder cannot be listed (pid <= 0, gone, or not ours to read).
inline std::optional<std::int64_t> open_fd_count(pid_t pid) {
  if (pid <= 0) return std::nullopt;
  std::error_code ec;
  std::int64_t n = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    ++n;
  }
  if (ec) return std::nullopt;
  return n;
}

}  // namespace ferry::testing
