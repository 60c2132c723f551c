// The bodies of the broker-to-client requests: fastjson's MessageQueue object keys read and
// written (Java peers read no other form into a Map<MessageQueue, V>), the other shapes by their
// exact field names, and errors that name what is wrong.
#include <gtest/gtest.h>

#include "remoting/body/consumer_running_info.h"
#include "remoting/body/offset_tables.h"
#include "remoting/header/client_admin_header.h"
#include "tests/remoting/vectors.h"

namespace ferry::remoting::body {
namespace {

using testing::to_bytes;
using testing::to_string;

const MessageQueue kQ0{"T", "broker-a", QueueId(0)};
const MessageQueue kQ1{"T", "broker-a", QueueId(1)};

TEST(ResetOffsetBody, ReadsAndWritesFastjsonsForm) {
  // As fastjson writes it (fields in alphabetical order, the key object as the member name).
  const std::string java =
      R"({"offsetTable":{{"brokerName":"broker-a","queueId":1,"topic":"T"}:7,{"brokerName":"broker-a","queueId":0,"topic":"T"}:12}})";
  auto b = ResetOffsetBody::decode(to_bytes(java));
  ASSERT_TRUE(b.ok()) << b.error().to_string();
  ASSERT_EQ(b->offset_table.size(), 2u);
  EXPECT_EQ(b->offset_table.at(kQ0), QueueOffset(12));
  EXPECT_EQ(b->offset_table.at(kQ1), QueueOffset(7));
  EXPECT_EQ(to_string(b->encode()),
            R"({"offsetTable":{{"brokerName":"broker-a","queueId":0,"topic":"T"}:12,{"brokerName":"broker-a","queueId":1,"topic":"T"}:7}})");
  auto back = ResetOffsetBody::decode(b->encode());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, *b);
  // Keys already quoted are read too; an empty table is empty.
  auto quoted = ResetOffsetBody::decode(to_bytes(R"({"offsetTable":{"{\"brokerName\":\"broker-a\",\"queueId\":0,\"topic\":\"T\"}":3}})"));
  ASSERT_TRUE(quoted.ok()) << quoted.error().to_string();
  EXPECT_EQ(quoted->offset_table.at(kQ0), QueueOffset(3));
  EXPECT_TRUE(ResetOffsetBody::decode(to_bytes("{}"))->offset_table.empty());
}

TEST(ResetOffsetBody, BadInputNamesWhatIsWrong) {
  auto not_mq = ResetOffsetBody::decode(to_bytes(R"({"offsetTable":{"queue-0":3}})"));
  ASSERT_FALSE(not_mq.ok());
  EXPECT_NE(not_mq.error().detail.find("not a message queue"), std::string::npos) << not_mq.error().detail;
  auto missing = ResetOffsetBody::decode(to_bytes(R"({"offsetTable":{{"brokerName":"b","topic":"T"}:3}})"));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().detail.find("queueId"), std::string::npos) << missing.error().detail;
  auto bad_value = ResetOffsetBody::decode(to_bytes(R"({"offsetTable":{{"brokerName":"b","queueId":0,"topic":"T"}:"x"}})"));
  ASSERT_FALSE(bad_value.ok());
  EXPECT_NE(bad_value.error().detail.find("not an integer"), std::string::npos) << bad_value.error().detail;
  auto duplicate = ResetOffsetBody::decode(to_bytes(
      R"({"offsetTable":{{"brokerName":"b","queueId":0,"topic":"T"}:1,{"topic":"T","queueId":0,"brokerName":"b"}:2}})"));
  ASSERT_FALSE(duplicate.ok());
  EXPECT_NE(duplicate.error().detail.find("duplicate"), std::string::npos) << duplicate.error().detail;
  for (const char* torn : {R"({"offsetTable":{{"brokerName":"b")", R"({"offsetTable":{{"brokerName":"b","queueId":0,"topic":"T"}:)"}) {
    EXPECT_FALSE(ResetOffsetBody::decode(to_bytes(torn)).ok()) << torn;
  }
}

TEST(GetConsumerStatusBody, RoundTripsBothTables) {
  GetConsumerStatusBody b;
  b.message_queue_table[kQ0] = QueueOffset(4);
  b.consumer_table["10.0.0.1@a"][kQ1] = QueueOffset(9);
  b.consumer_table["10.0.0.2@b"] = {};
  auto back = GetConsumerStatusBody::decode(b.encode());
  ASSERT_TRUE(back.ok()) << back.error().to_string() << "\n" << to_string(b.encode());
  EXPECT_EQ(*back, b);
  EXPECT_EQ(to_string(b.encode()),
            R"({"messageQueueTable":{{"brokerName":"broker-a","queueId":0,"topic":"T"}:4},"consumerTable":{"10.0.0.1@a":{{"brokerName":"broker-a","queueId":1,"topic":"T"}:9},"10.0.0.2@b":{}}})");
}

TEST(ConsumerRunningInfo, RoundTripsAndReadsJavasShape) {
  ConsumerRunningInfo info;
  info.properties["PROP_CONSUME_TYPE"] = "CONSUME_PASSIVELY";
  info.properties["messageModel"] = "CLUSTERING";
  SubscriptionData s;
  s.topic = "T";
  s.sub_string = "*";
  info.subscription_set.push_back(s);
  ProcessQueueInfo pq;
  pq.commit_offset = 12;
  pq.cached_msg_count = 3;
  pq.locked = true;
  pq.last_consume_timestamp = 1'700'000'000'000;
  info.mq_table[kQ0] = pq;
  ConsumeStatus st;
  st.consume_ok_tps = 1.5;
  st.consume_failed_msgs = 2;
  info.status_table["T"] = st;
  auto back = ConsumerRunningInfo::decode(info.encode());
  ASSERT_TRUE(back.ok()) << back.error().to_string() << "\n" << to_string(info.encode());
  EXPECT_EQ(*back, info);

  // Java's: Properties may hold a number, doubles as numbers, jstack absent, unknown keys ignored.
  const std::string java =
      R"({"mqTable":{{"brokerName":"broker-a","queueId":0,"topic":"T"}:{"cachedMsgCount":0,"commitOffset":5,"droped":false,"locked":false,"tryUnlockTimes":0}},)"
      R"("properties":{"PROP_CONSUMER_START_TIMESTAMP":1700000000000,"consumeFromWhere":"CONSUME_FROM_LAST_OFFSET"},)"
      R"("statusTable":{"T":{"consumeFailedMsgs":0,"consumeFailedTPS":0.0,"consumeOKTPS":2.25,"consumeRT":1.0,"pullRT":3.5,"pullTPS":2.5}},)"
      R"("subscriptionSet":[{"classFilterMode":false,"codeSet":[],"expressionType":"TAG","subString":"*","subVersion":1,"tagsSet":[],"topic":"T"}],"unknown":1})";
  auto j = ConsumerRunningInfo::decode(to_bytes(java));
  ASSERT_TRUE(j.ok()) << j.error().to_string();
  EXPECT_EQ(j->mq_table.at(kQ0).commit_offset, 5);
  EXPECT_EQ(j->properties.at("PROP_CONSUMER_START_TIMESTAMP"), "1700000000000");
  EXPECT_DOUBLE_EQ(j->status_table.at("T").consume_ok_tps, 2.25);
  EXPECT_DOUBLE_EQ(j->status_table.at("T").pull_rt, 3.5);
  EXPECT_EQ(j->subscription_set.at(0).topic, "T");
  EXPECT_FALSE(j->jstack.has_value());

  auto bad = ConsumerRunningInfo::decode(to_bytes(R"({"statusTable":{"T":{"consumeOKTPS":"fast"}}})"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().detail.find("consumeOKTPS"), std::string::npos) << bad.error().detail;
}

TEST(ConsumeMessageDirectlyResult, ExactFieldsAndEnumNames) {
  ConsumeMessageDirectlyResult r;
  r.consume_result = CMResult::CR_LATER;
  r.spent_time_mills = 7;
  EXPECT_EQ(to_string(r.encode()), R"({"autoCommit":true,"consumeResult":"CR_LATER","order":false,"spentTimeMills":7})");
  auto back = ConsumeMessageDirectlyResult::decode(r.encode());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, r);
  auto bad = ConsumeMessageDirectlyResult::decode(to_bytes(R"({"consumeResult":"CR_MAYBE"})"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().detail.find("CR_MAYBE"), std::string::npos) << bad.error().detail;
}

TEST(ClientAdminHeaders, RocketMQsFieldNames) {
  ResetOffsetRequestHeader h{"T", "G", -1, false};
  const ExtFields f = h.to_fields();
  EXPECT_EQ(f.get("isForce").value_or(""), "false");
  EXPECT_EQ(f.get("timestamp").value_or(""), "-1");
  auto back = ResetOffsetRequestHeader::from_fields(f);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, h);
  auto missing = ResetOffsetRequestHeader::from_fields(ExtFields{{"topic", "T"}, {"group", "G"}, {"timestamp", "1"}});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().detail.find("isForce"), std::string::npos) << missing.error().detail;
  GetConsumerRunningInfoRequestHeader ri{"G", "10.0.0.1@x", false};
  EXPECT_EQ(ri.to_fields().get("clientId").value_or(""), "10.0.0.1@x");
  EXPECT_EQ(ri.to_fields().get("consumerGroup").value_or(""), "G");
}

}  // namespace
}  // namespace ferry::remoting::body
