// The daemons' descriptor budget: every connection, CommitLog segment, ConsumeQueue file and
// index file holds one, and running out fails ConsumeQueue creation and accept(). At start the
// soft RLIMIT_NOFILE is raised to the hard limit (as RocketMQ's start scripts ask operators to
// do with ulimit -n), and the outcome is reported.
#pragma once

#include <cstdint>
#include <string>

namespace ferry::daemon {

// Below this many descriptors a broker with many topics or clients may run out (RocketMQ's
// deployment guide asks for 655350; a small test box is fine with fewer).
inline constexpr std::uint64_t kOpenFilesRecommended = 65536;

struct OpenFilesReport {
  std::uint64_t before = 0;  // the soft limit found
  std::uint64_t now = 0;     // the soft limit after raising it
  std::uint64_t hard = 0;
  std::string error;         // why raising failed, if it did
  bool low() const { return now < kOpenFilesRecommended; }
  // "open files: soft limit 1024 raised to 1048576 (hard 1048576)", with a warning sentence when
  // the result is below kOpenFilesRecommended or raising failed.
  std::string text() const;
};

// Raises the process's soft RLIMIT_NOFILE to its hard limit.
OpenFilesReport raise_open_files_limit();

}  // namespace ferry::daemon
