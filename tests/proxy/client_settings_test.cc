// The settings the proxy answers a client's Telemetry SETTINGS with, and Heartbeat and
// NotifyClientTermination against what it knows (src/proxy/client_settings.h).
#include "proxy/client_settings.h"

#include <gtest/gtest.h>

namespace ferry::proxy {
namespace {

v2::Settings producer_settings() {
  v2::Settings s;
  s.set_client_type(v2::PRODUCER);
  s.mutable_publishing()->add_topics()->set_name("T");
  s.mutable_request_timeout()->set_seconds(3);
  s.mutable_user_agent()->set_language(v2::NODE_JS);
  return s;
}

v2::Settings consumer_settings(std::string group = "G") {
  v2::Settings s;
  s.set_client_type(v2::SIMPLE_CONSUMER);
  s.mutable_subscription()->mutable_group()->set_name(group);
  v2::SubscriptionEntry& e = *s.mutable_subscription()->add_subscriptions();
  e.mutable_topic()->set_name("T");
  e.mutable_expression()->set_type(v2::TAG);
  e.mutable_expression()->set_expression("*");
  return s;
}

TEST(ClientSettings, AProducerGetsWhatTheNodeClientNeedsToStart) {
  ClientSettingsStore store(16, 4 * 1024 * 1024);
  V2Result<v2::Settings> r = store.accept("c1", producer_settings());
  ASSERT_FALSE(refusal(r));
  const v2::Settings& s = std::get<v2::Settings>(r);
  EXPECT_EQ(s.client_type(), v2::PRODUCER);
  EXPECT_EQ(s.request_timeout().seconds(), 3) << "echoed";
  EXPECT_EQ(s.user_agent().language(), v2::NODE_JS) << "echoed";
  ASSERT_TRUE(s.backoff_policy().has_exponential_backoff()) << "the Node.js client asserts it";
  EXPECT_EQ(s.backoff_policy().max_attempts(), 3);
  EXPECT_EQ(s.backoff_policy().exponential_backoff().initial().nanos(), 10'000'000);
  EXPECT_EQ(s.backoff_policy().exponential_backoff().max().seconds(), 1);
  EXPECT_EQ(s.backoff_policy().exponential_backoff().multiplier(), 2.0f);
  EXPECT_EQ(s.publishing().max_body_size(), 4 * 1024 * 1024) << "0 would make the client refuse every send";
  EXPECT_TRUE(s.publishing().validate_message_type());
  EXPECT_FALSE(s.metric().on());
  EXPECT_EQ(store.heartbeat("c1").code(), v2::OK);
}

TEST(ClientSettings, AConsumerGetsTheGroupsRetryPolicy) {
  ClientSettingsStore store(16, 4 * 1024 * 1024);
  V2Result<v2::Settings> r = store.accept("c2", consumer_settings());
  ASSERT_FALSE(refusal(r));
  const v2::Settings& s = std::get<v2::Settings>(r);
  EXPECT_EQ(s.subscription().receive_batch_size(), 32);
  EXPECT_EQ(s.subscription().long_polling_timeout().seconds(), 20);
  EXPECT_FALSE(s.subscription().fifo());
  EXPECT_EQ(s.backoff_policy().max_attempts(), 17) << "retryMaxTimes 16 + 1";
  ASSERT_EQ(s.backoff_policy().customized_backoff().next_size(), 18);
  EXPECT_EQ(s.backoff_policy().customized_backoff().next(0).seconds(), 1);
  EXPECT_EQ(s.backoff_policy().customized_backoff().next(17).seconds(), 7200);
  EXPECT_EQ(s.subscription().subscriptions(0).topic().name(), "T") << "echoed";
}

TEST(ClientSettings, RefusalsAndTheClientsLifetime) {
  ClientSettingsStore store(2, 1024);
  EXPECT_EQ(refusal(store.accept("c1", v2::Settings{}))->code, v2::BAD_REQUEST);
  EXPECT_EQ(refusal(store.accept("", producer_settings()))->code, v2::CLIENT_ID_REQUIRED);
  EXPECT_EQ(refusal(store.accept("c1", consumer_settings("bad group")))->code, v2::ILLEGAL_CONSUMER_GROUP);
  v2::Settings bad_topic = producer_settings();
  bad_topic.mutable_publishing()->add_topics()->set_name("bad topic");
  EXPECT_EQ(refusal(store.accept("c1", bad_topic))->code, v2::ILLEGAL_TOPIC);
  EXPECT_EQ(store.heartbeat("c1").code(), v2::UNRECOGNIZED_CLIENT_TYPE);
  EXPECT_EQ(store.heartbeat("c1").message(), "cannot find client settings for this client");

  ASSERT_FALSE(refusal(store.accept("c1", producer_settings())));
  ASSERT_FALSE(refusal(store.accept("c2", producer_settings())));
  EXPECT_EQ(refusal(store.accept("c3", producer_settings()))->code, v2::TOO_MANY_REQUESTS) << "bounded";
  EXPECT_FALSE(refusal(store.accept("c1", consumer_settings()))) << "a known client may send again";
  EXPECT_EQ(store.terminate("c1").code(), v2::OK);
  EXPECT_EQ(store.terminate("c1").code(), v2::UNRECOGNIZED_CLIENT_TYPE);
  EXPECT_EQ(store.find("c1"), nullptr);
  ASSERT_FALSE(refusal(store.accept("c3", producer_settings()))) << "room again";
  EXPECT_EQ(store.find("c3")->publishing().max_body_size(), 1024);
}

}  // namespace
}  // namespace ferry::proxy
