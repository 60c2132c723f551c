// Delayed delivery (ScheduleMessageService): each level delivers on time, in order, to
// REAL_TOPIC/REAL_QID with DELAY cleared; delay offsets survive a graceful restart (nothing
// delivered twice) and a crash (nothing lost; at most what was delivered since the last
// persist comes again).
#include "tests/broker/consumer_fixture.h"
#include "tests/support/broker_inspector.h"

using ferry::testing::BrokerInspector;

namespace ferry::broker::testing {
namespace {

using namespace std::chrono_literals;

Msg delayed(std::string body, int level, std::int32_t queue = 0) {
  Msg m;
  m.body = std::move(body);
  m.queue_id = queue;
  m.tag("TagD").set("DELAY", std::to_string(level));
  return m;
}

std::vector<std::string> bodies(const std::vector<MessageExt>& ms) {
  std::vector<std::string> out;
  for (const auto& m : ms) out.push_back(body_text(m));
  return out;
}

// A few steps of these tests pull, and a pull's reply may come late (up to its timeout: a slow
// network, which buggify plays), so "nothing yet at 8.5 s" cannot be read off a pull made at
// 8.5 s. What a user can check whatever the pulls took: no delivered message is early.
class ScheduleTest : public ConsumerTest {
 protected:
  // Every message T's `queue` holds, each checked to have been stored there no earlier than its
  // level's delay after its original in the schedule topic (looked up by body; levels 1 to 4).
  std::vector<MessageExt> delivered(std::int32_t queue = 0) {
    std::vector<MessageExt> got = all_of("T", queue);
    for (const MessageExt& m : got) {
      bool found = false;
      for (std::int32_t level = 1; level <= 4 && !found; ++level) {
        for (const MessageExt& original : all_of("SCHEDULE_TOPIC_XXXX", level - 1)) {
          if (body_text(original) != body_text(m)) continue;
          found = true;
          EXPECT_GE(m.store_timestamp_ms - original.store_timestamp_ms, to_ms(*default_delay(level)))
              << "\"" << body_text(m) << "\" (level " << level << ") was delivered early";
          break;
        }
      }
      EXPECT_TRUE(found) << "\"" << body_text(m) << "\" has no original in the schedule topic";
    }
    return got;
  }
  // The bodies of delivered(queue), which must be `due` followed by any prefix of `maybe` (those
  // whose delay may have passed by the time the pull was answered).
  void expect_delivered(const std::vector<std::string>& due, const std::vector<std::string>& maybe = {}) {
    const std::vector<std::string> got = bodies(delivered());
    std::vector<std::string> expected = due;
    for (std::size_t i = 0; got.size() > expected.size() && i < maybe.size(); ++i) expected.push_back(maybe[i]);
    EXPECT_EQ(got, expected);
  }
};

TEST_F(ScheduleTest, DelayLevelsDeliverOnTimeAndInOrder) {
  boot();
  ASSERT_EQ(send(delayed("ten-a", 3)).reply.code, code::SUCCESS);
  ASSERT_EQ(send(delayed("one", 1, 1)).reply.code, code::SUCCESS);
  ASSERT_EQ(send(delayed("ten-b", 3)).reply.code, code::SUCCESS);
  ASSERT_EQ(send(delayed("ten-c", 3)).reply.code, code::SUCCESS);
  const MonoTime sent = now();
  run_until_time(sent + 1500ms);
  const auto one = delivered(1);  // none early
  EXPECT_EQ(bodies(one), (std::vector<std::string>{"one"}));
  run_until_time(sent + 10500ms);
  auto got = delivered(0);  // none early
  ASSERT_EQ(bodies(got), (std::vector<std::string>{"ten-a", "ten-b", "ten-c"}));
  auto scheduled = all_of("SCHEDULE_TOPIC_XXXX", 2);
  ASSERT_EQ(scheduled.size(), 3u);
  auto scheduled_one = all_of("SCHEDULE_TOPIC_XXXX", 0);
  ASSERT_EQ(scheduled_one.size(), 1u);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_LT(one[0].store_timestamp_ms - scheduled_one[0].store_timestamp_ms, 1'200) << "on time";
  for (std::size_t i = 0; i < got.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_LT(got[i].store_timestamp_ms - scheduled[i].store_timestamp_ms, 10'200) << "on time";
    EXPECT_FALSE(got[i].properties.contains("DELAY"));
    EXPECT_EQ(got[i].tags(), std::optional<std::string_view>("TagD"));
    EXPECT_EQ(got[i].real_topic(), std::optional<std::string_view>("T"));
    EXPECT_EQ(got[i].queue_id, QueueId(0));
  }
  // Tag filtering works on the delivered copy (its tagsCode is the tag hash again).
  Pull p;
  p.subscription = "TagD";
  EXPECT_EQ(all_of(p).size(), 3u);
  EXPECT_EQ(BrokerInspector(broker()).consumer_services().schedule().delivered(), 4u);
}

TEST_F(ScheduleTest, DelayedMessagesSurviveAGracefulRestartWithoutDuplicates) {
  boot();
  ASSERT_EQ(send(delayed("early", 1)).reply.code, code::SUCCESS);
  ASSERT_EQ(send(delayed("late", 4)).reply.code, code::SUCCESS);  // 30 s
  const MonoTime sent = now();
  run_for(5s);
  expect_delivered({"early"}, {"late"});
  graceful_restart();  // takes as long as the stop's syncs take
  run_until_time(sent + 25s);
  expect_delivered({"early"}, {"late"});
  run_until_time(sent + 35s);
  expect_delivered({"early", "late"});
  run_for(30s);
  EXPECT_EQ(all_of("T").size(), 2u);
  EXPECT_EQ(BrokerInspector(broker()).consumer_services().schedule().offsets().at(1), 1);
  EXPECT_EQ(BrokerInspector(broker()).consumer_services().schedule().offsets().at(4), 1);
}

TEST_F(ScheduleTest, DelayedMessagesSurviveACrashWithinThePersistWindow) {
  boot();
  ASSERT_EQ(send(delayed("early", 2)).reply.code, code::SUCCESS);  // 5 s
  ASSERT_EQ(send(delayed("mid", 3, 1)).reply.code, code::SUCCESS);  // 10 s
  ASSERT_EQ(send(delayed("late", 4)).reply.code, code::SUCCESS);    // 30 s
  // ASYNC_FLUSH syncs small writes every 10 s: by 12 s the sends are durable; "mid" was
  // delivered about when the delay offsets were last persisted.
  run_for(12s);
  expect_delivered({"early"}, {"late"});
  EXPECT_EQ(bodies(delivered(1)), (std::vector<std::string>{"mid"}));
  crash_restart();
  run_for(40s);
  auto got = bodies(delivered());
  ASSERT_GE(got.size(), 2u);
  ASSERT_LE(got.size(), 3u);  // "early" at most once more
  EXPECT_EQ(std::count(got.begin(), got.end(), "late"), 1);
  EXPECT_GE(std::count(got.begin(), got.end(), "early"), 1);
  EXPECT_EQ(got.back(), "late");
  auto mid = bodies(all_of("T", 1));
  ASSERT_GE(mid.size(), 1u);
  ASSERT_LE(mid.size(), 2u);
}

// Regression: a delayed message whose schedule-queue unit recovery has to rebuild from the
// CommitLog (the machine went down before the queue was flushed) keeps its delivery time. The
// broker used to install its delivery-time tagsCode only after the store had opened, so units
// re-dispatched while opening got the tag's hash instead, and the message came out at once.
TEST_F(ScheduleTest, ADelayedMessageRebuiltByRecoveryKeepsItsDeliveryTime) {
  config_.flush_disk_type = store::FlushMode::sync_flush;  // the record is durable at the reply
  boot();
  ASSERT_EQ(send(delayed("late", 4)).reply.code, code::SUCCESS);  // 30 s
  crash_restart();  // at once: the schedule queue's unit was not flushed yet
  const MonoTime restarted = now();
  run_for(25s);
  expect_delivered({}, {"late"});  // never before its 30 s
  run_until_time(restarted + 35s);
  expect_delivered({"late"});
}

// messageDelayLevel: the broker's own table decides each level's delay, and a level above its
// last is taken as the last (RocketMQ's maxDelayLevel).
TEST_F(ScheduleTest, AConfiguredDelayTableDecidesAndCapsTheLevel) {
  config_.message_delay_levels = {2s, 4s};
  boot();
  const MonoTime sent = now();
  ASSERT_EQ(send(delayed("two", 1)).reply.code, code::SUCCESS);
  ASSERT_EQ(send(delayed("capped", 7)).reply.code, code::SUCCESS);
  const auto waiting = all_of("SCHEDULE_TOPIC_XXXX", 1);
  ASSERT_EQ(bodies(waiting), (std::vector<std::string>{"capped"}));
  EXPECT_EQ(waiting[0].properties.get("DELAY"), std::optional<std::string_view>("2"));
  run_until_time(sent + 8s);
  const auto got = all_of("T");
  ASSERT_EQ(bodies(got), (std::vector<std::string>{"two", "capped"}));
  const auto two = all_of("SCHEDULE_TOPIC_XXXX", 0);
  ASSERT_EQ(two.size(), 1u);
  EXPECT_GE(got[0].store_timestamp_ms - two[0].store_timestamp_ms, 2'000);
  EXPECT_LT(got[0].store_timestamp_ms - two[0].store_timestamp_ms, 3'000);
  EXPECT_GE(got[1].store_timestamp_ms - waiting[0].store_timestamp_ms, 4'000);
  EXPECT_LT(got[1].store_timestamp_ms - waiting[0].store_timestamp_ms, 5'000);
  const auto* schedule_topic = BrokerInspector(broker()).topics().find("SCHEDULE_TOPIC_XXXX");
  ASSERT_NE(schedule_topic, nullptr);
  EXPECT_EQ(schedule_topic->write_queue_nums, 2) << "one queue per level";
}

TEST_F(ScheduleTest, DelayOffsetsFileRoundTripsAndRejectsBadLevels) {
  DelayOffsetTable t{{1, 5}, {18, 7}};
  const std::string text = ScheduleMessageService::encode(t);
  EXPECT_EQ(text, R"({"offsetTable":{"1":5,"18":7}})");
  DelayOffsetTable back;
  ASSERT_TRUE(ScheduleMessageService::decode(text, back).ok());
  EXPECT_EQ(back, t);
  DelayOffsetTable bad;
  auto s = ScheduleMessageService::decode(R"({"offsetTable":{"65":1}})", bad);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().detail.find("65"), std::string::npos) << s.error().detail;
  EXPECT_FALSE(ScheduleMessageService::decode(R"({"offsetTable":{"2":-1}})", bad).ok());
  // fastjson's unquoted keys.
  DelayOffsetTable fj;
  ASSERT_TRUE(ScheduleMessageService::decode(R"({"offsetTable":{3:4}})", fj).ok());
  EXPECT_EQ(fj.at(3), 4);
}

}  // namespace
}  // namespace ferry::broker::testing
