// mqbench: throughput and latency of a running Ferry (or RocketMQ) cluster through Ferry's client
// library. `mqbench produce`, `mqbench consume` and `mqbench e2e` (both at once), each in its own
// file, and `mqbench hostile`
// (raw frames, tests/support/wire_conn.h); docs/benchmarks.md
// describes what each number means.
#pragma once

#include <span>
#include <string>

namespace ferry::bench {

inline constexpr int kExitOk = 0;       // ran, and no send or receive failed
inline constexpr int kExitFailed = 1;   // could not run, or a send/check failed (see the summary)
inline constexpr int kExitUsage = 2;    // bad flags

int produce_main(std::span<const std::string> args);
int consume_main(std::span<const std::string> args);
int hostile_main(std::span<const std::string> args);  // mqbench_hostile.cc
int e2e_main(std::span<const std::string> args);      // mqbench_e2e.cc

}  // namespace ferry::bench
