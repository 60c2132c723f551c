// Node loggers in simulation: each line shows the time of the node that logged it, though every
// logger writes to the same shared sinks (and spdlog keeps one formatter per sink); a node whose
// clock is gone shows "?" rather than reading it.
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/clock.h"
#include "runtime/log.h"

namespace ferry {
namespace {

class FixedClock final : public Clock {
 public:
  explicit FixedClock(std::int64_t ms) : now_(MonoTime(std::chrono::milliseconds(ms))) {}
  MonoTime now() const override { return now_; }
  WallMs wall_ms() const override { return WallMs{0}; }

 private:
  MonoTime now_;
};

class NodeLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    before_ = default_log_sinks();
    sink_ = std::make_shared<spdlog::sinks::ostream_sink_mt>(out_);
    set_default_log_sinks({sink_});
  }
  void TearDown() override { set_default_log_sinks(before_); }

  std::vector<spdlog::sink_ptr> before_;
  std::ostringstream out_;
  std::shared_ptr<spdlog::sinks::ostream_sink_mt> sink_;
};

TEST_F(NodeLogTest, EachLineShowsTheClockOfTheNodeThatLoggedIt) {
  FixedClock a(1'500), b(90'250);
  auto log_a = make_node_logger("node-a", &a);
  auto log_b = make_node_logger("node-b", &b);  // created last: its formatter is the sink's now
  log_a->warn("from a");
  log_b->warn("from b");
  const std::string text = out_.str();
  EXPECT_NE(text.find("[1.500000s] [node-a] [warning] from a"), std::string::npos) << text;
  EXPECT_NE(text.find("[90.250000s] [node-b] [warning] from b"), std::string::npos) << text;
  forget_node_clock("node-a", &a);
  forget_node_clock("node-b", &b);
}

TEST_F(NodeLogTest, ALineAfterTheNodesClockIsGoneShowsNoTime) {
  auto clock = std::make_unique<FixedClock>(2'000);
  auto log = make_node_logger("node-c", clock.get());
  forget_node_clock("node-c", clock.get());
  clock.reset();
  log->warn("late");
  EXPECT_NE(out_.str().find("[?] [node-c] [warning] late"), std::string::npos) << out_.str();
}

TEST_F(NodeLogTest, ForgettingAnOlderNodeOfTheSameNameKeepsTheNewOnesClock) {
  FixedClock old_clock(1'000), new_clock(7'000);
  auto old_log = make_node_logger("node-d", &old_clock);
  auto new_log = make_node_logger("node-d", &new_clock);  // a second world with the same node names
  forget_node_clock("node-d", &old_clock);                // the first world goes away
  new_log->warn("still timed");
  EXPECT_NE(out_.str().find("[7.000000s] [node-d] [warning] still timed"), std::string::npos) << out_.str();
  forget_node_clock("node-d", &new_clock);
}

}  // namespace
}  // namespace ferry
