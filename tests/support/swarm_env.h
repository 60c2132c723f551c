// Fault-free or swarm: the WorldOptions of a simulated test, and the line that replays it.
//
// A simulated test runs fault-free on its own fixed seed. With FERRY_SIM_SWARM=<N> in the
// environment it runs on sim::swarm_options(N * 1000 + its own seed) instead (latency tails, clock
// skew and drift, slow and failing disks, torn writes, buggify): the same N gives each test (and
// each parameter of a parameterized test) its own fault draw. ctest runs the cluster test binaries
// under a few fixed N (<binary>_swarm_<N>). Tests may read the environment; the components and the
// simulator may not (sim/io alone reads the few variables a runner needs), which is why this lives
// with the tests.
//
//   sim::WorldOptions o = world_options(fault_free);  // swarm under FERRY_SIM_SWARM
//   ReplayTrace trace(o);  // a fixture member: every failure of the test says seed and replay
//
// A failure reads "world seed 3007 (FERRY_SIM_SWARM=3): FERRY_SIM_SWARM=3 build/bin/namesrv_test
// --gtest_filter=NamesrvTest.KvStoreIsBounded" (or, fault-free, "world seed 7 (fault-free):
// build/bin/...").
#pragma once

#include <errno.h>  // program_invocation_short_name (glibc)
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "sim/options.h"
#include "sim/swarm.h"

namespace ferry::testing {

// N of FERRY_SIM_SWARM=N, if it is set. A value that is not a decimal number is a test failure
// (and the test runs fault-free).
inline std::optional<std::uint64_t> swarm_seed() {
  const char* env = std::getenv("FERRY_SIM_SWARM");  // tests may read the environment
  if (env == nullptr || *env == '\0') return std::nullopt;
  const std::string_view text(env);
  std::uint64_t seed = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seed);
  if (ec != std::errc() || end != text.data() + text.size()) {
    ADD_FAILURE() << "FERRY_SIM_SWARM=\"" << text << "\" is not a seed (a decimal number); running fault-free";
    return std::nullopt;
  }
  return seed;
}

inline bool under_swarm() { return swarm_seed().has_value(); }

// Skips the current test under swarm; for a test whose point is a fault-free property (exact
// timings, a count of RPCs). Say why: SKIP_UNDER_SWARM("counts heartbeats per 30 s").
#define SKIP_UNDER_SWARM(why)                                        \
  do {                                                               \
    if (::ferry::testing::under_swarm()) GTEST_SKIP() << "fault-free only: " << (why); \
  } while (0)

// sim::swarm_options(N * 1000 + fault_free.seed) under FERRY_SIM_SWARM=N, else `fault_free`.
inline sim::WorldOptions world_options(const sim::WorldOptions& fault_free) {
  if (const std::optional<std::uint64_t> n = swarm_seed()) return sim::swarm_options(*n * 1000 + fault_free.seed);
  return fault_free;
}

// "world seed 3007 (FERRY_SIM_SWARM=3): FERRY_SIM_SWARM=3 build/bin/<binary> --gtest_filter=<Suite.Test>".
inline std::string replay_line(const sim::WorldOptions& o) {
  const ::testing::TestInfo* t = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string filter = t ? fmt::format(" --gtest_filter={}.{}", t->test_suite_name(), t->name()) : "";
  const std::string binary = fmt::format("build/bin/{}", program_invocation_short_name);
  if (const std::optional<std::uint64_t> n = swarm_seed()) {
    return fmt::format("world seed {} (FERRY_SIM_SWARM={}): FERRY_SIM_SWARM={} {}{}", o.seed, *n, *n, binary, filter);
  }
  return fmt::format("world seed {} (fault-free): {}{}", o.seed, binary, filter);
}

// While it lives, every GoogleTest failure of the current test carries replay_line(): hold one as
// a fixture member (created in the fixture's constructor, gone with the fixture after TearDown).
class ReplayTrace {
 public:
  explicit ReplayTrace(const sim::WorldOptions& o) : trace_(__FILE__, __LINE__, replay_line(o)) {}
  ReplayTrace(const ReplayTrace&) = delete;
  ReplayTrace& operator=(const ReplayTrace&) = delete;

 private:
  ::testing::ScopedTrace trace_;
};

}  // namespace ferry::testing
