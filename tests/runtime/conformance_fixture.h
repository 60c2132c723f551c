// The fixture shared by the runtime conformance tests (conformance_*_test.cc).
//
// Each case is a coroutine run by RuntimeHarness::run. GoogleTest's ASSERT_* cannot appear in a
// coroutine (STYLE.md item 14), so cases record what they saw into a Checks object with the
// TASK_CHECK* macros, and the test body asserts on it after the run.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/runtime.h"
#include "tests/runtime/conformance.h"

namespace ferry::testing {

// Failures seen inside a coroutine, as "line: what".
class Checks {
 public:
  void expect(bool ok, const char* what, int line) {
    if (!ok) failures_.push_back(std::to_string(line) + ": expected " + what);
  }
  template <typename T>
  void expect_ok(const Result<T>& r, const char* what, int line) {
    if (!r.ok()) failures_.push_back(std::to_string(line) + ": " + what + " failed: " + r.error().to_string());
  }
  template <typename T>
  void expect_errc(const Result<T>& r, Errc want, const char* what, int line) {
    if (r.ok()) {
      failures_.push_back(std::to_string(line) + ": " + what + " succeeded; expected " + std::string(errc_name(want)));
    } else if (r.error().code != want) {
      failures_.push_back(std::to_string(line) + ": " + what + " gave " + r.error().to_string() + "; expected " +
                          std::string(errc_name(want)));
    }
  }
  void fail(const std::string& what, int line) { failures_.push_back(std::to_string(line) + ": " + what); }
  const std::vector<std::string>& failures() const { return failures_; }

 private:
  std::vector<std::string> failures_;
};

#define TASK_CHECK(checks, cond) (checks)->expect(static_cast<bool>(cond), #cond, __LINE__)
#define TASK_CHECK_OK(checks, result) (checks)->expect_ok((result), #result, __LINE__)
#define TASK_CHECK_ERRC(checks, result, errc) (checks)->expect_errc((result), (errc), #result, __LINE__)
#define TASK_FAIL(checks, what) (checks)->fail((what), __LINE__)

struct HarnessFactory {
  std::string name;
  std::function<std::unique_ptr<RuntimeHarness>()> make;
};

class RuntimeConformance : public ::testing::TestWithParam<HarnessFactory> {
 protected:
  void SetUp() override { harness_ = GetParam().make(); }
  void TearDown() override { harness_.reset(); }  // destroys tasks still suspended

  RuntimeHarness& harness() { return *harness_; }
  Runtime& rt() { return harness_->rt(); }
  Runtime& peer() { return harness_->peer(); }
  // Runs `task` to completion (or fails the test after `limit`).
  bool run(Task<void> task, Duration limit = std::chrono::seconds(30)) {
    return harness_->run(std::move(task), limit);
  }

 private:
  std::unique_ptr<RuntimeHarness> harness_;
};

// Sleeps in small steps until `*flag` is true or `limit` passes; returns *flag.
inline Task<bool> wait_for(Runtime* rt, const bool* flag, Duration limit) {
  const MonoTime deadline = rt->now() + limit;
  while (!*flag && rt->now() < deadline) co_await rt->sleep(std::chrono::milliseconds(1));
  co_return *flag;
}

inline std::vector<std::uint8_t> to_bytes(std::string_view s) { return std::vector<std::uint8_t>(s.begin(), s.end()); }
inline std::string to_string(Bytes b) { return std::string(b.begin(), b.end()); }

}  // namespace ferry::testing
