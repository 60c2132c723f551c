// SQL92 subscriptions on the broker over raw frames (issue 35; docs/broker.md "SQL92 filters"):
// served only with enablePropertyFilter, evaluated on each message's properties before it leaves
// the broker, refused with RocketMQ's codes and a message naming the position, and checked by
// CHECK_CLIENT_CONFIG as a Java consumer does before it starts.
#include "remoting/body/heartbeat_data.h"
#include "tests/broker/broker_fixture.h"

namespace ferry::broker::testing {
namespace {

std::vector<std::string> bodies(const std::vector<MessageExt>& ms) {
  std::vector<std::string> out;
  for (const MessageExt& m : ms) out.emplace_back(m.body.begin(), m.body.end());
  return out;
}

using ferry::testing::consumer_heartbeat;
using ferry::testing::heartbeat_request;

class SqlFilterTest : public BrokerTest {
 protected:
  // Ten messages on T queue 0: "m0".."m9", property a = i except on multiples of 3, region eu
  // on even ones and us on odd ones, tag TagA on the first five.
  void send_ten() {
    for (int i = 0; i < 10; ++i) {
      Msg m;
      m.body = "m" + std::to_string(i);
      if (i % 3 != 0) m.set("a", std::to_string(i));
      m.set("region", i % 2 == 0 ? "eu" : "us");
      m.tag(i < 5 ? "TagA" : "TagB");
      ASSERT_EQ(send(m).reply.code, code::SUCCESS);
    }
  }
};

Pull sql_pull(std::string expression) {
  Pull p;
  p.group = "SqlGroup";
  p.subscription = std::move(expression);
  p.expression_type = "SQL92";
  return p;
}

RemotingCommand check_client(const std::string& type, const std::string& expression) {
  remoting::body::CheckClientRequestBody b;
  b.client_id = "10.0.0.9@1";
  b.group = "SqlGroup";
  b.subscription_data = remoting::body::SubscriptionData{.topic = "T", .sub_string = expression, .expression_type = type};
  RemotingCommand req = remoting::make_request(rc::CHECK_CLIENT_CONFIG, 0);
  req.body = b.encode();
  return req;
}

TEST_F(SqlFilterTest, Sql92NeedsEnablePropertyFilter) {
  boot();
  send_ten();
  Call c = pull(sql_pull("a > 1"));
  EXPECT_EQ(c.reply.code, code::SYSTEM_ERROR);
  EXPECT_NE(c.remark().find("does not support consumer to filter message by SQL92"), std::string::npos) << c.remark();
  Call check = call(check_client("SQL92", "a > 1"));
  EXPECT_EQ(check.reply.code, code::SYSTEM_ERROR) << check.remark();
  EXPECT_EQ(call(check_client("TAG", "TagA")).reply.code, code::SUCCESS);
}

TEST_F(SqlFilterTest, Sql92SelectsOnTheBrokerByProperties) {
  config_.enable_property_filter = true;
  boot();
  send_ten();
  EXPECT_EQ(bodies(all_of(sql_pull("a > 4 AND region = 'us'"))), (std::vector<std::string>{"m5", "m7"}))
      << "m9 has no property a: NULL, not selected";
  EXPECT_EQ(bodies(all_of(sql_pull("a IS NULL OR TAGS = 'TagB' AND region IN ('eu')"))),
            (std::vector<std::string>{"m0", "m3", "m6", "m8", "m9"}));
  EXPECT_EQ(bodies(all_of(sql_pull("NOT (a BETWEEN 2 AND 7)"))), (std::vector<std::string>{"m1", "m8"}));
  EXPECT_EQ(all_of(sql_pull("TRUE")).size(), 10u);
  EXPECT_TRUE(all_of(sql_pull("FALSE")).empty());

  // A pull whose subscription matches nothing in what it scanned moves on.
  Call none = pull(sql_pull("region = 'ap'"));
  EXPECT_EQ(none.reply.code, code::PULL_RETRY_IMMEDIATELY);
  EXPECT_EQ(none.field("nextBeginOffset"), "10");
}

TEST_F(SqlFilterTest, Sql92ThatDoesNotCompileIsRefusedNamingThePosition) {
  config_.enable_property_filter = true;
  boot();
  send_ten();
  Call c = pull(sql_pull("a > 'x'"));
  EXPECT_EQ(c.reply.code, code::SUBSCRIPTION_PARSE_FAILED);
  EXPECT_EQ(c.remark(), "parse the consumer's subscription failed: line 1, column 5: '>' compares numbers; this "
                        "operand is String");
  Pull odd_type = sql_pull("a > 1");
  odd_type.expression_type = "sql";
  EXPECT_EQ(pull(odd_type).reply.code, code::SUBSCRIPTION_PARSE_FAILED);

  Call check = call(check_client("SQL92", "a = 1\nAND b ="));
  EXPECT_EQ(check.reply.code, code::SUBSCRIPTION_PARSE_FAILED);
  EXPECT_EQ(check.remark(), "line 2, column 8: expected a value (a property, a string, a number, TRUE, FALSE, NULL "
                            "or '('), found end of text");
  EXPECT_EQ(call(check_client("SQL92", "a = 1")).reply.code, code::SUCCESS);
}

// A consumer whose pulls carry no subscription (RocketMQ's push consumer) is served from its
// heartbeat's: compiled when it arrives; one that did not compile answers 27.
TEST_F(SqlFilterTest, Sql92FromTheHeartbeatServesPullsWithoutASubscription) {
  config_.enable_property_filter = true;
  boot();
  send_ten();
  auto hb = consumer_heartbeat("10.0.0.9@1", "SqlGroup", "T", "region = 'eu' AND a >= 4");
  hb.consumer_data_set[0].subscription_data_set[0].expression_type = "SQL92";
  ASSERT_EQ(call(heartbeat_request(hb)).reply.code, code::SUCCESS);
  Pull p = sql_pull("");
  p.subscription.reset();
  EXPECT_EQ(bodies(all_of(p)), (std::vector<std::string>{"m4", "m8"}));

  hb.consumer_data_set[0].subscription_data_set[0].sub_string = "region = ";
  hb.consumer_data_set[0].subscription_data_set[0].sub_version = 200;
  ASSERT_EQ(call(heartbeat_request(hb)).reply.code, code::SUCCESS);
  Call broken = pull(p);
  EXPECT_EQ(broken.reply.code, code::FILTER_DATA_NOT_EXIST);
  EXPECT_NE(broken.remark().find("line 1, column 10"), std::string::npos) << broken.remark();
}

}  // namespace
}  // namespace ferry::broker::testing
