// UPDATE_NAMESRV_CONFIG (318) and GET_NAMESRV_CONFIG (319): properties text both ways; only
// orderMessageEnable changes at run time, all or nothing, and refusals name the key.
#include "remoting/body/properties_text.h"
#include "tests/namesrv/namesrv_fixture.h"

namespace ferry::namesrv::testing {
namespace {

RemotingCommand update_config(const std::string& text) {
  RemotingCommand r = plain_request(rc::UPDATE_NAMESRV_CONFIG);
  r.body.assign(text.begin(), text.end());
  return r;
}

std::map<std::string, std::string> settings(Reply r) {
  auto s = remoting::body::parse_properties_text(r.body_text());
  EXPECT_TRUE(s.ok()) << s.error().to_string();
  return s.ok() ? *s : std::map<std::string, std::string>{};
}

TEST_F(NamesrvTest, ConfigIsReportedAndOnlyRunTimeKeysChange) {
  const NodeId c = add_client("admin");
  auto before = settings(expect_code(c, plain_request(rc::GET_NAMESRV_CONFIG), resp::SUCCESS));
  EXPECT_EQ(before.at("orderMessageEnable"), "false");
  EXPECT_EQ(before.at("brokerChannelExpiredTime"), "120000");
  EXPECT_EQ(before.count("listenPort"), 1u);

  Reply fixed = expect_code(c, update_config("orderMessageEnable=true\nlistenPort=1\n"), resp::SYSTEM_ERROR);
  EXPECT_NE(fixed.remark.find("key 'listenPort' cannot change while the NameServer runs"), std::string::npos) << fixed.remark;
  EXPECT_FALSE(name_server().config().order_message_enable);  // all or nothing
  Reply unknown = expect_code(c, update_config("kvConfigPath=/tmp/x"), resp::SYSTEM_ERROR);
  EXPECT_NE(unknown.remark.find("key 'kvConfigPath' is not a NameServer setting Ferry knows"), std::string::npos)
      << unknown.remark;
  Reply bad = expect_code(c, update_config("orderMessageEnable=maybe"), resp::SYSTEM_ERROR);
  EXPECT_NE(bad.remark.find("orderMessageEnable: \"maybe\" is not true or false"), std::string::npos) << bad.remark;

  expect_code(c, update_config("orderMessageEnable = true\n"), resp::SUCCESS);
  EXPECT_TRUE(name_server().config().order_message_enable);
  EXPECT_EQ(settings(expect_code(c, plain_request(rc::GET_NAMESRV_CONFIG), resp::SUCCESS)).at("orderMessageEnable"), "true");
  // Applied at once: routes carry orderTopicConf now.
  const NodeId a = add_client("broker-a");
  expect_code(a, plain_request(rc::PUT_KV_CONFIG, remoting::PutKvConfigRequestHeader{kOrderTopicConfigNamespace, "T", "broker-a:4"}.to_fields()),
              resp::SUCCESS);
  register_broker(a, broker_on(a, "broker-a", {topic("T", 4)}));
  auto t = route(a, "T");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->order_topic_conf, std::optional<std::string>("broker-a:4"));
}

}  // namespace
}  // namespace ferry::namesrv::testing
