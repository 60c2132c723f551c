// Node loggers in simulation: each line shows the time of the node that logged it, though every
// logger writes to the same shared sinks (and spdlog keeps one formatter per sink); a node whose
// clock is gone shows "?" rather than reading it. A logger writes where its LogSettings say, not
// where the process defaults point.
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
  void SetUp() override { sink_ = std::make_shared<spdlog::sinks::ostream_sink_mt>(out_); }
  LogSettings settings() const { return LogSettings{{sink_}, spdlog::level::info}; }

  std::ostringstream out_;
  std::shared_ptr<spdlog::sinks::ostream_sink_mt> sink_;
};

TEST_F(NodeLogTest, EachLineShowsTheClockOfTheNodeThatLoggedIt) {
  FixedClock a(1'500), b(90'250);
  auto log_a = make_node_logger("node-a", &a, settings());
  auto log_b = make_node_logger("node-b", &b, settings());  // created last: its formatter is the sink's now
  log_a->warn("from a");
  log_b->warn("from b");
  const std::string text = out_.str();
  EXPECT_NE(text.find("[1.500000s] [node-a] [warning] from a"), std::string::npos) << text;
  EXPECT_NE(text.find("[90.250000s] [node-b] [warning] from b"), std::string::npos) << text;
}

TEST_F(NodeLogTest, ALineAfterTheNodesClockIsGoneShowsNoTime) {
  auto clock = std::make_unique<FixedClock>(2'000);
  auto log = std::make_shared<ClockedLogger>("node-c", clock.get(), settings());
  log->forget_clock();
  clock.reset();
  log->warn("late");
  EXPECT_NE(out_.str().find("[?] [node-c] [warning] late"), std::string::npos) << out_.str();
}

TEST_F(NodeLogTest, ForgettingAnOlderNodeOfTheSameNameKeepsTheNewOnesClock) {
  FixedClock old_clock(1'000), new_clock(7'000);
  auto old_log = std::make_shared<ClockedLogger>("node-d", &old_clock, settings());
  auto new_log = std::make_shared<ClockedLogger>("node-d", &new_clock, settings());  // a second world, same names
  old_log->forget_clock();  // the first world goes away
  new_log->warn("still timed");
  EXPECT_NE(out_.str().find("[7.000000s] [node-d] [warning] still timed"), std::string::npos) << out_.str();
}

TEST_F(NodeLogTest, ALoggerWritesWhereItsSettingsSayNotToTheProcessDefaults) {
  const auto before = default_log_sinks();
  std::ostringstream elsewhere;
  set_default_log_sinks({std::make_shared<spdlog::sinks::ostream_sink_mt>(elsewhere)});
  FixedClock clock(3'000);
  auto log = make_node_logger("node-e", &clock, settings());
  log->info("mine");
  auto quiet = make_node_logger("node-f", &clock, LogSettings{{sink_}, spdlog::level::err});
  quiet->warn("below its level");
  set_default_log_sinks(before);
  EXPECT_NE(out_.str().find("[3.000000s] [node-e] [info] mine"), std::string::npos) << out_.str();
  EXPECT_EQ(out_.str().find("below its level"), std::string::npos) << out_.str();
  EXPECT_TRUE(elsewhere.str().empty()) << elsewhere.str();
}

}  // namespace
}  // namespace ferry
