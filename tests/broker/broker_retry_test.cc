// Retry and dead-letter delivery: CONSUMER_SEND_MSG_BACK stores a delayed copy for
// %RETRY%{group} (RETRY_TOPIC, ORIGIN_MESSAGE_ID, reconsumeTimes + 1) that appears after the
// level's delay; past maxReconsumeTimes, or with a negative delay level, the copy goes to
// %DLQ%{group}; a send to a retry topic past the max goes to the DLQ too.
#include "tests/broker/consumer_fixture.h"
#include "tests/support/broker_inspector.h"

using ferry::testing::BrokerInspector;

namespace ferry::broker::testing {
namespace {

using namespace std::chrono_literals;

TEST_F(ConsumerTest, SendBackReappearsInTheRetryTopicAfterTheLevelsDelay) {
  boot();
  Msg m;
  m.body = "consume me";
  m.tag("TagA").keys("k1").set("UNIQ_KEY", "0A0000010000000000000001");
  ASSERT_EQ(send(m).reply.code, code::SUCCESS);
  auto original = all_of("T");
  ASSERT_EQ(original.size(), 1u);

  // delayLevel 0 with reconsumeTimes 0 → level 3 (10 s).
  Call back = call(send_back_request(original[0].physical_offset.value(), "CG", 0));
  ASSERT_EQ(back.reply.code, code::SUCCESS) << back.remark();
  const MonoTime sent_back = now();
  // Not before the level's 10 s: checked below against the store times, since a pull's reply
  // may come late (up to its timeout) and a pull made at 9 s may be answered after 10 s.
  run_until_time(sent_back + 11s);
  auto retried = all_of("%RETRY%CG");
  ASSERT_EQ(retried.size(), 1u);
  const MessageExt& r = retried[0];
  EXPECT_EQ(body_text(r), "consume me");
  EXPECT_EQ(r.reconsume_times, 1);
  EXPECT_EQ(r.retry_topic(), std::optional<std::string_view>("T"));
  EXPECT_EQ(r.origin_message_id(), std::optional<std::string_view>(original[0].offset_msg_id));
  EXPECT_EQ(r.uniq_key(), original[0].uniq_key());
  EXPECT_EQ(r.tags(), std::optional<std::string_view>("TagA"));
  EXPECT_FALSE(r.properties.contains("DELAY"));
  // Delivered 10 s after the send-back was stored in the schedule queue.
  auto scheduled = all_of("SCHEDULE_TOPIC_XXXX", 2);
  ASSERT_EQ(scheduled.size(), 1u);
  EXPECT_GE(r.store_timestamp_ms - scheduled[0].store_timestamp_ms, 10'000);
  EXPECT_LT(r.store_timestamp_ms - scheduled[0].store_timestamp_ms, 10'200);
}

TEST_F(ConsumerTest, SixteenRetriesThenTheDeadLetterQueue) {
  boot();
  Msg m;
  m.body = "poison";
  ASSERT_EQ(send(m).reply.code, code::SUCCESS);
  std::int64_t offset = all_of("T").at(0).physical_offset.value();
  const std::string origin = all_of("T").at(0).offset_msg_id;
  for (int i = 1; i <= 16; ++i) {
    SCOPED_TRACE(i);
    Call back = call(send_back_request(offset, "CG", 1));  // level 1: 1 s
    ASSERT_EQ(back.reply.code, code::SUCCESS) << back.remark();
    run_for(1500ms);
    auto retried = all_of("%RETRY%CG");
    ASSERT_EQ(retried.size(), static_cast<std::size_t>(i));
    EXPECT_EQ(retried.back().reconsume_times, i);
    EXPECT_EQ(retried.back().origin_message_id(), std::optional<std::string_view>(origin));
    EXPECT_EQ(retried.back().retry_topic(), std::optional<std::string_view>("T"));
    offset = retried.back().physical_offset.value();
  }
  EXPECT_EQ(BrokerInspector(broker()).topics().find("%DLQ%CG"), nullptr);
  // The 17th failure: reconsumeTimes 16 >= 16 → DLQ, at once (not delayed).
  ASSERT_EQ(call(send_back_request(offset, "CG", 1)).reply.code, code::SUCCESS);
  auto dead = all_of("%DLQ%CG");
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(body_text(dead[0]), "poison");
  EXPECT_EQ(dead[0].reconsume_times, 17);
  EXPECT_EQ(dead[0].origin_message_id(), std::optional<std::string_view>(origin));
  const TopicConfig* dlq = BrokerInspector(broker()).topics().find("%DLQ%CG");
  ASSERT_NE(dlq, nullptr);
  EXPECT_EQ(dlq->perm, 6);
  EXPECT_EQ(dlq->read_queue_nums, 1);
  run_for(3s);
  EXPECT_EQ(all_of("%RETRY%CG").size(), 16u);
}

TEST_F(ConsumerTest, NegativeDelayLevelOrTheHeadersMaxGoesToTheDlq) {
  boot();
  ASSERT_EQ(send(Msg{}).reply.code, code::SUCCESS);
  const std::int64_t offset = all_of("T").at(0).physical_offset.value();
  ASSERT_EQ(call(send_back_request(offset, "CG", -1)).reply.code, code::SUCCESS);
  EXPECT_EQ(all_of("%DLQ%CG").size(), 1u);
  // maxReconsumeTimes 0 in the header: the first failure is already too many.
  ASSERT_EQ(call(send_back_request(offset, "CG2", 3, 0)).reply.code, code::SUCCESS);
  EXPECT_EQ(all_of("%DLQ%CG2").size(), 1u);
  run_for(15s);
  EXPECT_TRUE(all_of("%RETRY%CG2").empty());
}

TEST_F(ConsumerTest, ASendToARetryTopicPastTheMaxGoesToTheDlq) {
  boot();
  TestClient& a = add_client("10.0.0.1@1");
  ASSERT_EQ(heartbeat(a, "CG").reply.code, code::SUCCESS);  // creates %RETRY%CG
  Msg m;
  m.topic = "%RETRY%CG";
  m.body = "client-side retry";
  RemotingCommand ok = send_request(m);
  ok.ext_fields.set("j", "3");  // reconsumeTimes (V2 header)
  ASSERT_EQ(call(std::move(ok)).reply.code, code::SUCCESS);
  EXPECT_EQ(all_of("%RETRY%CG").size(), 1u);
  RemotingCommand past = send_request(m);
  past.ext_fields.set("j", "16");
  Call r = call(std::move(past));
  ASSERT_EQ(r.reply.code, code::SUCCESS) << r.remark();
  EXPECT_EQ(all_of("%RETRY%CG").size(), 1u);
  auto dead = all_of("%DLQ%CG");
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0].reconsume_times, 16);
  // The header's maxReconsumeTimes wins over the group's 16.
  RemotingCommand low = send_request(m);
  low.ext_fields.set("j", "2");
  low.ext_fields.set("l", "2");
  ASSERT_EQ(call(std::move(low)).reply.code, code::SUCCESS);
  EXPECT_EQ(all_of("%DLQ%CG").size(), 2u);
}

// Found by the broker fuzzer (sim_broker_fuzz_test): a send's reconsumeTimes header is any int32,
// and a send-back computed its delay level (3 + reconsumeTimes) and the copy's count
// (reconsumeTimes + 1) from the stored value unchecked: a negative count gave a negative level and
// a SCHEDULE_TOPIC_XXXX queue below 0, INT32_MAX overflowed. A negative count now delays like a
// first retry (level 3), and the copy's count stops at INT32_MAX.
TEST_F(ConsumerTest, SendBackOfAMessageWithANegativeOrHugeReconsumeCount) {
  boot();
  RemotingCommand negative = send_request(Msg{});
  negative.ext_fields.set("j", "-100");  // reconsumeTimes (V2 header)
  ASSERT_EQ(call(std::move(negative)).reply.code, code::SUCCESS);
  RemotingCommand huge = send_request(Msg{});
  huge.ext_fields.set("j", "2147483647");
  ASSERT_EQ(call(std::move(huge)).reply.code, code::SUCCESS);
  auto stored = all_of("T");
  ASSERT_EQ(stored.size(), 2u);
  ASSERT_EQ(stored[0].reconsume_times, -100);
  ASSERT_EQ(stored[1].reconsume_times, 2147483647);

  Call back = call(send_back_request(stored[0].physical_offset.value(), "CG", 0));
  ASSERT_EQ(back.reply.code, code::SUCCESS) << back.remark();
  auto scheduled = all_of("SCHEDULE_TOPIC_XXXX", 2);  // level 3's queue
  ASSERT_EQ(scheduled.size(), 1u) << "a negative count delays like a first retry (level 3)";
  run_for(11s);
  auto retried = all_of("%RETRY%CG");
  ASSERT_EQ(retried.size(), 1u);
  EXPECT_EQ(retried[0].reconsume_times, -99);

  // A count at INT32_MAX with a header max of INT32_MAX: the dead-letter queue, the count kept.
  Call dead = call(send_back_request(stored[1].physical_offset.value(), "CG", 0, 2147483647));
  ASSERT_EQ(dead.reply.code, code::SUCCESS) << dead.remark();
  auto dlq = all_of("%DLQ%CG");
  ASSERT_EQ(dlq.size(), 1u);
  EXPECT_EQ(dlq[0].reconsume_times, 2147483647);
}

}  // namespace
}  // namespace ferry::broker::testing
