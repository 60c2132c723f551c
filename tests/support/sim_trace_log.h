// The same-seed rerun check for simulated tests (tests/sim/rerun_check.sh).
//
// Every simulated test records its World's final hash (World::final_hash: schedule, random draws,
// delivered bytes, disks) when it ends. With FERRY_SIM_TRACE_LOG set, record_trace() appends
// "<Suite.Test> seed=<seed> hash=<hex>" to that file; the check runs a test binary twice and
// fails on any line that differs, naming the test and its seed. Without the variable it does
// nothing.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "sim/world.h"

namespace ferry::testing {

inline void record_trace(sim::World& world, std::string_view what = {}) {
  const char* path = std::getenv("FERRY_SIM_TRACE_LOG");  // tests may read the environment
  if (path == nullptr || *path == '\0') return;
  const ::testing::TestInfo* t = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string name = t ? fmt::format("{}.{}", t->test_suite_name(), t->name()) : "outside-a-test";
  const std::string line = fmt::format("{}{}{} seed={} hash={:016x}\n", name, what.empty() ? "" : "/", what,
                                       world.options().seed, world.final_hash());
  if (std::FILE* f = std::fopen(path, "a")) {
    std::fputs(line.c_str(), f);
    std::fclose(f);
  }
}

// Records the World's trace when it goes out of scope: declare it right after the World (or the
// Cluster owning it), so that it runs before the World is destroyed.
class TraceOnExit {
 public:
  explicit TraceOnExit(sim::World& world, std::string what = {}) : world_(world), what_(std::move(what)) {}
  TraceOnExit(const TraceOnExit&) = delete;
  TraceOnExit& operator=(const TraceOnExit&) = delete;
  ~TraceOnExit() { record_trace(world_, what_); }

 private:
  sim::World& world_;
  std::string what_;
};

}  // namespace ferry::testing
