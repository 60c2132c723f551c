// What happens to a message the listener keeps refusing (RECONSUME_LATER), from the consumer's
// side:
//  * with max_reconsume_times 2 it is delivered 3 times (reconsumeTimes 0, 1, 2), then the
//    broker puts it on %DLQ%{group}, where a pull finds it intact, and it is never delivered
//    again;
//  * when the broker refuses CONSUMER_SEND_MSG_BACK, the consumer's inner producer re-sends it to
//    %RETRY%{group} (RETRY_TOPIC, ORIGIN_MESSAGE_ID, RECONSUME_TIME + 1, delay level 3), and it
//    comes back from there, not from a local retry (and the re-sent message, unit-tested).
#include "client/send_back.h"
#include "common/message_const.h"
#include "tests/support/client_consumer_fixture.h"
#include "remoting/request_code.h"
#include "remoting/response_code.h"

namespace ferry::client::testing {
namespace {

using namespace std::chrono_literals;

std::string property(const Properties& p, std::string_view key) { return std::string(p.get(key).value_or("<absent>")); }

TEST_F(ConsumerTest, AfterMaxReconsumeTimesTheMessageGoesToTheDeadLetterQueue) {
  without_buggify("counts deliveries on the broker's send-back path: the send-back buggify site takes the "
                  "retry-topic re-send, which reaches the DLQ one delivery earlier (as in RocketMQ, docs/client.md)");
  boot({"broker-a"}, {{"D", 1}});
  auto out = std::make_shared<Deliveries>();
  PushConsumerConfig pc = push_config("DG");
  pc.max_reconsume_times = 2;
  auto later = [](const MessageExt&, ConsumeConcurrentlyContext&) { return ConsumeConcurrentlyStatus::RECONSUME_LATER; };
  auto c = add_push_consumer("consumer-1", pc, {"D", out, "*", later});
  ASSERT_TRUE(eventually([&] { return push(c).held_queues().size() == 2; }, 60s)) << seed_text();

  Producer& p = producer();
  std::map<std::string, std::string> ids;         // body -> msg id (UNIQ_KEY)
  std::map<std::string, std::string> offset_ids;  // body -> offset msg id of the original
  for (int i = 0; i < 2; ++i) {
    Message m = text_message("D", numbered("d", i), "TagD");
    m.set_keys(numbered("key-", i));
    Result<SendResult> r = run(p.send(m));
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    ids[numbered("d", i)] = r->msg_id;
    offset_ids[numbered("d", i)] = r->offset_msg_id;
  }
  // Level 3 (10 s) after the first failure, level 4 (30 s) after the second, then the DLQ.
  ASSERT_TRUE(eventually([&] { return out->all.size() >= 6; }, 120s)) << out->all.size() << seed_text();
  cluster().run_for(300s);
  ASSERT_EQ(out->all.size(), 6u) << "1 + max_reconsume_times deliveries each, then no more" << seed_text();
  for (const auto& [body, id] : ids) {
    std::vector<const Delivery*> ds = out->of(body);
    ASSERT_EQ(ds.size(), 3u) << body;
    for (int k = 0; k < 3; ++k) {
      EXPECT_EQ(ds[static_cast<std::size_t>(k)]->reconsume_times, k) << body;
      EXPECT_EQ(ds[static_cast<std::size_t>(k)]->topic, "D") << body;
      EXPECT_EQ(ds[static_cast<std::size_t>(k)]->msg_id, id) << body;
    }
  }
  EXPECT_EQ(push(c).stats().sent_back, 6u) << "4 retries and 2 dead letters, all through the broker" << seed_text();
  EXPECT_EQ(push(c).stats().resent_to_retry_topic, 0u);
  EXPECT_EQ(push(c).stats().send_back_failed, 0u);

  // The dead letters, read with a plain pull of %DLQ%DG.
  std::vector<MessageExt> dead = pull_all(MessageQueue{dlq_topic("DG"), "broker-a", QueueId(0)});
  ASSERT_EQ(dead.size(), 2u) << seed_text();
  for (const MessageExt& m : dead) {
    const std::string body = body_text(m);
    ASSERT_EQ(ids.count(body), 1u) << body;
    EXPECT_EQ(m.topic, dlq_topic("DG"));
    EXPECT_EQ(std::string(m.msg_id()), ids[body]);
    EXPECT_EQ(m.tags(), std::optional<std::string_view>("TagD"));
    EXPECT_EQ(m.keys().size(), 1u);
    // The broker's send-back names the stored original by its offset msgId (RocketMQ).
    EXPECT_EQ(m.origin_message_id(), std::optional<std::string_view>(offset_ids[body])) << body;
    EXPECT_EQ(m.retry_topic(), std::optional<std::string_view>("D")) << body;
    EXPECT_GE(m.reconsume_times, 2) << body;
  }
  // The original queue is consumed past both messages.
  cluster().run_for(10s);
  Result<std::vector<QueueProgress>> prog = run(admin().consumer_progress("DG", "D"));
  ASSERT_TRUE(prog.ok()) << prog.error().to_string();
  ASSERT_EQ(prog->size(), 1u);
  EXPECT_EQ(prog->front().lag(), 0) << seed_text();
}

Task<std::optional<remoting::RemotingCommand>> refuse(remoting::RequestContext ctx) {
  co_return remoting::make_response(ctx.request, remoting::response_code::SYSTEM_ERROR, "send-back refused by the test");
}

TEST_F(ConsumerTest, RefusedSendBackIsResentToTheRetryTopicByTheInnerProducer) {
  without_buggify("asserts the broker saw and refused the one CONSUMER_SEND_MSG_BACK: the send-back buggify site "
                  "fails it before it is sent");
  boot({"broker-a"}, {{"F", 1}});
  auto refused = std::make_shared<int>(0);
  broker(0).register_processor(remoting::request_code::CONSUMER_SEND_MSG_BACK, [refused](remoting::RequestContext ctx) {
    ++*refused;
    return refuse(std::move(ctx));
  });
  auto out = std::make_shared<Deliveries>();
  auto first_fails = [](const MessageExt& m, ConsumeConcurrentlyContext&) {
    return m.reconsume_times == 0 ? ConsumeConcurrentlyStatus::RECONSUME_LATER : ConsumeConcurrentlyStatus::CONSUME_SUCCESS;
  };
  auto c = add_push_consumer("consumer-1", push_config("FG"), {"F", out, "*", first_fails});
  ASSERT_TRUE(eventually([&] { return push(c).held_queues().size() == 2; }, 60s)) << seed_text();
  Message m = text_message("F", "f0", "TagF");
  m.set_keys("order-7");
  Result<SendResult> sent = run(producer().send(m));
  ASSERT_TRUE(sent.ok()) << sent.error().to_string();

  ASSERT_TRUE(eventually([&] { return out->all.size() >= 2; }, 60s)) << seed_text();
  cluster().run_for(30s);
  ASSERT_EQ(out->all.size(), 2u) << seed_text();
  EXPECT_EQ(*refused, 1) << "one CONSUMER_SEND_MSG_BACK, refused" << seed_text();
  const Delivery& first = out->all[0];
  const Delivery& again = out->all[1];
  EXPECT_EQ(first.queue.topic, "F");
  EXPECT_EQ(again.queue.topic, retry_topic("FG")) << "came back through the broker's retry topic" << seed_text();
  EXPECT_EQ(again.topic, "F") << "RETRY_TOPIC restores the original topic";
  EXPECT_EQ(again.body, "f0");
  EXPECT_EQ(again.reconsume_times, 1) << "RECONSUME_TIME went to the send header";
  EXPECT_EQ(again.msg_id, sent->msg_id);
  EXPECT_EQ(property(again.properties, prop::kOriginMessageId), sent->msg_id);
  EXPECT_EQ(property(again.properties, prop::kRetryTopic), "F");
  // RECONSUME_TIME and MAX_RECONSUME_TIMES travel in the send header, not as properties.
  EXPECT_EQ(property(again.properties, prop::kReconsumeTime), "<absent>");
  EXPECT_EQ(property(again.properties, prop::kMaxReconsumeTimes), "<absent>");
  EXPECT_EQ(property(again.properties, prop::kTags), "TagF");
  EXPECT_EQ(property(again.properties, prop::kKeys), "order-7");
  // Delay level 3 + reconsumeTimes (0): 10 s on the broker's clock, seen on the consumer's.
  EXPECT_GE(again.at - first.at, 10s - drift_allowance(10s)) << "delay level 3 + reconsumeTimes (0)" << seed_text();

  const PushConsumer::Stats& st = push(c).stats();
  EXPECT_EQ(st.sent_back, 0u);
  EXPECT_EQ(st.resent_to_retry_topic, 1u);
  EXPECT_EQ(st.send_back_failed, 0u) << "no local retry";
  EXPECT_EQ(app(c).instance->producer_groups().count(std::string(kInnerProducerGroup)), 1u);
  Result<std::vector<QueueProgress>> prog = run(admin().consumer_progress("FG", "F"));
  ASSERT_TRUE(prog.ok()) << prog.error().to_string();
  ASSERT_EQ(prog->size(), 1u);
  EXPECT_EQ(prog->front().lag(), 0) << seed_text();
}

TEST(RetryTopicMessage, CarriesWhatTheBrokerNeedsToRetryOrBury) {
  MessageExt m;
  m.topic = "Orders";
  m.flag = 7;
  m.body = {'a', 'b'};
  m.reconsume_times = 2;
  m.set_tags("TagX");
  m.set_uniq_key("UNIQ-1");
  m.properties.set(prop::kTransactionPrepared, "true");
  Message r = retry_topic_message(m, "G", 5);
  EXPECT_EQ(r.topic, "%RETRY%G");
  EXPECT_EQ(r.flag, 7);
  EXPECT_EQ(r.body, m.body);
  EXPECT_EQ(r.retry_topic(), std::optional<std::string_view>("Orders"));
  EXPECT_EQ(r.origin_message_id(), std::optional<std::string_view>("UNIQ-1")) << "msgId when there is no origin yet";
  EXPECT_EQ(property(r.properties, prop::kReconsumeTime), "3");
  EXPECT_EQ(property(r.properties, prop::kMaxReconsumeTimes), "5");
  EXPECT_EQ(r.delay_level().value(), 5) << "3 + reconsumeTimes";
  EXPECT_EQ(r.tags(), std::optional<std::string_view>("TagX"));
  EXPECT_EQ(r.uniq_key(), std::optional<std::string_view>("UNIQ-1")) << "the same client msgId";
  EXPECT_FALSE(r.properties.contains(prop::kTransactionPrepared));

  m.set_origin_message_id("FIRST-ID");
  EXPECT_EQ(retry_topic_message(m, "G", 5).origin_message_id(), std::optional<std::string_view>("FIRST-ID"));
  m.set_origin_message_id("  ");
  EXPECT_EQ(retry_topic_message(m, "G", 5).origin_message_id(), std::optional<std::string_view>("UNIQ-1")) << "blank";
}

}  // namespace
}  // namespace ferry::client::testing
