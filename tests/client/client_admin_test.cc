// Broker-to-client requests against a simulated cluster with a push consumer online
// (docs/client.md, "Broker-to-client requests"): the admin asks the broker, the broker asks the
// consumer over its connection.
//  * INVOKE_BROKER_TO_RESET_OFFSET (222) → RESET_CONSUMER_CLIENT_OFFSET (220): the consumer
//    consumes again from the new point; with nobody online the broker answers 206.
//  * INVOKE_BROKER_TO_GET_CONSUMER_STATUS (223) → GET_CONSUMER_STATUS_FROM_CLIENT (221).
//  * GET_CONSUMER_RUNNING_INFO (307) and CONSUME_MESSAGE_DIRECTLY (309), relayed by clientId.
#include <gtest/gtest.h>

#include "remoting/body/consumer_running_info.h"
#include "remoting/body/offset_tables.h"
#include "remoting/header/client_admin_header.h"
#include "tests/support/client_consumer_fixture.h"

namespace ferry::client::testing {
namespace {

using namespace std::chrono_literals;
namespace rc = remoting::request_code;
namespace code = remoting::response_code;
using remoting::RemotingCommand;

class ClientAdminTest : public ConsumerTest {
 protected:
  // Sends `req` to broker 0 from the test's client node and returns the reply.
  RemotingCommand ask_broker(RemotingCommand req) {
    Result<RemotingCommand> r = run(instance().rpc().invoke(broker_addr(0), std::move(req), 30s));
    if (!r.ok()) cannot_continue("broker call failed: " + r.error().to_string());
    return std::move(*r);
  }

  RemotingCommand reset_request(const std::string& group, const std::string& topic, std::int64_t timestamp, bool force) {
    RemotingCommand req = remoting::make_request(rc::INVOKE_BROKER_TO_RESET_OFFSET, 0);
    req.ext_fields = remoting::ResetOffsetRequestHeader{topic, group, timestamp, force}.to_fields();
    return req;
  }

  // One consumer of group "AG" on topic "A" (2 queues) that has consumed `n` messages.
  sim::NodeId consumer_with_backlog_consumed(int n) {
    boot({"broker-a"}, {{"A", 2}});
    out_ = std::make_shared<Deliveries>();
    sim::NodeId c = add_push_consumer("consumer-1", push_config("AG"), {"A", out_});
    sent_ = send_n("A", n, "m");
    EXPECT_TRUE(wait_all(out_, sent_, 60s)) << out_->all.size() << " of " << sent_.size() << seed_text();
    return c;
  }

  std::shared_ptr<Deliveries> out_;
  std::set<std::string> sent_;
};

TEST_F(ClientAdminTest, AResetMakesAnOnlineConsumerConsumeAgainFromTheNewPoint) {
  sim::NodeId c = consumer_with_backlog_consumed(20);
  ASSERT_EQ(out_->duplicates(), 0);

  RemotingCommand r = ask_broker(reset_request("AG", "A", 0, true));  // time 0: everything
  ASSERT_EQ(r.code, code::SUCCESS) << r.remark.value_or("");
  auto table = remoting::body::ResetOffsetBody::decode(r.body);
  ASSERT_TRUE(table.ok()) << table.error().to_string();
  ASSERT_EQ(table->offset_table.size(), 2u);
  for (const auto& [mq, offset] : table->offset_table) {
    EXPECT_EQ(mq.broker_name, "broker-a");
    EXPECT_EQ(offset, QueueOffset(0)) << mq.to_string();
  }
  // Every message comes again, once more, from offset 0 of each queue.
  ASSERT_TRUE(eventually([&] {
    for (const std::string& b : sent_) {
      if (out_->count_by_body[b] < 2) return false;
    }
    return true;
  }, 60s)) << out_->all.size() << seed_text();
  EXPECT_EQ(push(c).stats().offset_resets, 2u);
  cluster().run_for(5s);
  for (const std::string& b : sent_) EXPECT_EQ(out_->count_by_body[b], 2) << b;

  // A reset to "now" (-1: the max offsets) with nothing new consumes nothing again.
  const std::size_t before = out_->all.size();
  r = ask_broker(reset_request("AG", "A", remoting::kResetToMax, true));
  ASSERT_EQ(r.code, code::SUCCESS) << r.remark.value_or("");
  cluster().run_for(10s);
  EXPECT_EQ(out_->all.size(), before);
  // And the broker ends up with the consumer's offsets: 20 messages over the 2 queues.
  EXPECT_TRUE(wait_progress("AG", "A", [](const QueueProgress& q) { return q.consumer_offset == q.broker_offset; }, 30s));
}

TEST_F(ClientAdminTest, AResetWithoutForceOnlyMovesOffsetsBack) {
  consumer_with_backlog_consumed(10);
  ASSERT_TRUE(wait_progress("AG", "A", [](const QueueProgress& q) { return q.consumer_offset == q.broker_offset; }, 30s));
  RemotingCommand r = ask_broker(reset_request("AG", "A", remoting::kResetToMax, false));
  ASSERT_EQ(r.code, code::SUCCESS) << r.remark.value_or("");
  auto table = remoting::body::ResetOffsetBody::decode(r.body);
  ASSERT_TRUE(table.ok()) << table.error().to_string();
  std::int64_t total = 0;
  for (const auto& [mq, offset] : table->offset_table) total += offset.value();
  EXPECT_EQ(total, 10);  // the committed offsets, which equal the max offsets here
}

TEST_F(ClientAdminTest, WithNoConsumerOnlineTheBrokerAnswersConsumerNotOnline) {
  boot({"broker-a"}, {{"A", 2}});
  RemotingCommand r = ask_broker(reset_request("NobodyG", "A", 0, true));
  EXPECT_EQ(r.code, code::CONSUMER_NOT_ONLINE) << r.remark.value_or("");
  EXPECT_NE(r.remark.value_or("").find("Consumer not online"), std::string::npos) << r.remark.value_or("");
  // An unknown topic, a bad header.
  r = ask_broker(reset_request("NobodyG", "NoSuchTopic", 0, true));
  EXPECT_EQ(r.code, code::SYSTEM_ERROR);
  EXPECT_NE(r.remark.value_or("").find("no topic in this broker"), std::string::npos) << r.remark.value_or("");
  RemotingCommand bad = remoting::make_request(rc::INVOKE_BROKER_TO_RESET_OFFSET, 0);
  bad.ext_fields.set("topic", "A");
  r = ask_broker(std::move(bad));
  EXPECT_EQ(r.code, code::SYSTEM_ERROR);
  EXPECT_NE(r.remark.value_or("").find("group"), std::string::npos) << r.remark.value_or("");
  // Status: nobody to ask.
  RemotingCommand st = remoting::make_request(rc::INVOKE_BROKER_TO_GET_CONSUMER_STATUS, 0);
  st.ext_fields = remoting::GetConsumerStatusRequestHeader{"A", "NobodyG", std::nullopt}.to_fields();
  r = ask_broker(std::move(st));
  EXPECT_EQ(r.code, code::SYSTEM_ERROR);
  EXPECT_NE(r.remark.value_or("").find("No Any Consumer online"), std::string::npos) << r.remark.value_or("");
}

TEST_F(ClientAdminTest, StatusAndRunningInfoComeFromTheConsumer) {
  sim::NodeId c = consumer_with_backlog_consumed(20);
  const std::string id = client_id(c);

  RemotingCommand st = remoting::make_request(rc::INVOKE_BROKER_TO_GET_CONSUMER_STATUS, 0);
  st.ext_fields = remoting::GetConsumerStatusRequestHeader{"A", "AG", std::nullopt}.to_fields();
  RemotingCommand r = ask_broker(std::move(st));
  ASSERT_EQ(r.code, code::SUCCESS) << r.remark.value_or("");
  auto status = remoting::body::GetConsumerStatusBody::decode(r.body);
  ASSERT_TRUE(status.ok()) << status.error().to_string();
  ASSERT_EQ(status->consumer_table.size(), 1u);
  ASSERT_EQ(status->consumer_table.count(id), 1u) << id;
  std::int64_t total = 0;
  for (const auto& [mq, offset] : status->consumer_table[id]) {
    EXPECT_EQ(mq.topic, "A");
    total += offset.value();
  }
  EXPECT_EQ(status->consumer_table[id].size(), 2u);
  EXPECT_EQ(total, 20);

  RemotingCommand ri = remoting::make_request(rc::GET_CONSUMER_RUNNING_INFO, 0);
  ri.ext_fields = remoting::GetConsumerRunningInfoRequestHeader{"AG", id, false}.to_fields();
  r = ask_broker(std::move(ri));
  ASSERT_EQ(r.code, code::SUCCESS) << r.remark.value_or("");
  auto info = remoting::body::ConsumerRunningInfo::decode(r.body);
  ASSERT_TRUE(info.ok()) << info.error().to_string();
  EXPECT_EQ(info->properties["PROP_CONSUME_TYPE"], "CONSUME_PASSIVELY");
  EXPECT_EQ(info->properties["messageModel"], "CLUSTERING");
  EXPECT_EQ(info->properties["consumeFromWhere"], "CONSUME_FROM_FIRST_OFFSET");
  EXPECT_EQ(info->properties["PROP_CONSUMEORDERLY"], "false");
  EXPECT_FALSE(info->properties["PROP_NAMESERVER_ADDR"].empty());
  ASSERT_EQ(info->subscription_set.size(), 2u);  // A and %RETRY%AG
  EXPECT_EQ(info->subscription_set[0].topic, "%RETRY%AG");
  EXPECT_EQ(info->subscription_set[1].topic, "A");
  std::int64_t committed = 0;
  int of_a = 0;
  for (const auto& [mq, pq] : info->mq_table) {
    if (mq.topic != "A") continue;
    ++of_a;
    committed += pq.commit_offset;
    EXPECT_EQ(pq.cached_msg_count, 0) << mq.to_string();
    EXPECT_FALSE(pq.droped);
    EXPECT_GT(pq.last_consume_timestamp, 0) << mq.to_string();
  }
  EXPECT_EQ(of_a, 2);
  EXPECT_EQ(committed, 20);
  ASSERT_EQ(info->status_table.count("A"), 1u);
  EXPECT_GT(info->status_table["A"].consume_ok_tps, 0.0);  // 20 in the last minute
  EXPECT_EQ(info->status_table["A"].consume_failed_tps, 0.0);

  // Somebody who is not online.
  RemotingCommand nobody = remoting::make_request(rc::GET_CONSUMER_RUNNING_INFO, 0);
  nobody.ext_fields = remoting::GetConsumerRunningInfoRequestHeader{"AG", "10.9.9.9@nobody", false}.to_fields();
  r = ask_broker(std::move(nobody));
  EXPECT_EQ(r.code, code::SYSTEM_ERROR);
  EXPECT_NE(r.remark.value_or("").find("not online"), std::string::npos) << r.remark.value_or("");
}

TEST_F(ClientAdminTest, ConsumeMessageDirectlyHandsTheStoredMessageToTheListener) {
  sim::NodeId c = consumer_with_backlog_consumed(4);
  Result<SendResult> sent = run(producers_.front()->send(text_message("A", "direct-1")));  // send_n's producer
  ASSERT_TRUE(sent.ok()) << sent.error().to_string();
  ASSERT_TRUE(eventually([&] { return out_->count_by_body["direct-1"] == 1; }, 30s)) << seed_text();

  RemotingCommand req = remoting::make_request(rc::CONSUME_MESSAGE_DIRECTLY, 0);
  req.ext_fields = remoting::ConsumeMessageDirectlyResultRequestHeader{"AG", client_id(c), sent->offset_msg_id, std::nullopt}
                       .to_fields();
  RemotingCommand r = ask_broker(std::move(req));
  ASSERT_EQ(r.code, code::SUCCESS) << r.remark.value_or("");
  auto result = remoting::body::ConsumeMessageDirectlyResult::decode(r.body);
  ASSERT_TRUE(result.ok()) << result.error().to_string();
  EXPECT_EQ(result->consume_result, remoting::body::CMResult::CR_SUCCESS);
  EXPECT_FALSE(result->order);
  EXPECT_EQ(out_->count_by_body["direct-1"], 2);  // the listener saw it once more
  const Delivery* last = out_->of("direct-1").back();
  EXPECT_EQ(last->topic, "A");
  EXPECT_EQ(last->queue.broker_name, "broker-a");

  // A msgId that is not an offset msgId, and one past the log.
  RemotingCommand bad = remoting::make_request(rc::CONSUME_MESSAGE_DIRECTLY, 0);
  bad.ext_fields = remoting::ConsumeMessageDirectlyResultRequestHeader{"AG", client_id(c), "XYZ", std::nullopt}.to_fields();
  r = ask_broker(std::move(bad));
  EXPECT_EQ(r.code, code::SYSTEM_ERROR);
  EXPECT_NE(r.remark.value_or("").find("not an offset msgId"), std::string::npos) << r.remark.value_or("");
  std::string far = sent->offset_msg_id;
  far.replace(far.size() - 8, 8, "7FFFFFFF");
  RemotingCommand past = remoting::make_request(rc::CONSUME_MESSAGE_DIRECTLY, 0);
  past.ext_fields = remoting::ConsumeMessageDirectlyResultRequestHeader{"AG", client_id(c), far, std::nullopt}.to_fields();
  r = ask_broker(std::move(past));
  EXPECT_EQ(r.code, code::SYSTEM_ERROR);
  EXPECT_NE(r.remark.value_or("").find("can not find message"), std::string::npos) << r.remark.value_or("");
}

}  // namespace
}  // namespace ferry::client::testing
