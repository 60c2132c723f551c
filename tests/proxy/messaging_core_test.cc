// The proxy's core (src/proxy/messaging_core.h) between a gRPC client's requests and a simulated
// cluster: QueryRoute from the NameServers' route, SendMessage stored with RocketMQ's remoting
// properties, a FIFO message group always on one queue, refusals answered in the status.
#include "proxy/messaging_core.h"

#include <map>
#include <set>

#include "tests/support/client_fixture.h"

namespace ferry::proxy {
namespace {

using namespace std::chrono_literals;
using client::testing::body_text;

class MessagingCoreTest : public client::testing::ClientTest {
 protected:
  MessagingCore& core() {
    if (!core_) {
      core_ = std::make_unique<MessagingCore>(client_rt(), instance(), ProxyConfig{});
      const Status s = core_->start();
      EXPECT_TRUE(s.ok()) << s.error().to_string();
    }
    return *core_;
  }
  ~MessagingCoreTest() override { core_.reset(); }

  static v2::QueryRouteRequest route_request(std::string topic) {
    v2::QueryRouteRequest r;
    r.mutable_topic()->set_name(topic);
    r.mutable_endpoints()->set_scheme(v2::IPv4);
    v2::Address& a = *r.mutable_endpoints()->add_addresses();
    a.set_host("10.0.0.5");
    a.set_port(8081);
    return r;
  }
  static v2::SendMessageRequest send_request(std::string topic, std::string body, std::string id, std::string group = {}) {
    v2::SendMessageRequest r;
    v2::Message& m = *r.add_messages();
    m.mutable_topic()->set_name(topic);
    m.set_body(body);
    m.mutable_system_properties()->set_message_id(id);
    m.mutable_system_properties()->set_tag("TagA");
    if (!group.empty()) m.mutable_system_properties()->set_message_group(group);
    return r;
  }

  std::unique_ptr<MessagingCore> core_;
};

TEST_F(MessagingCoreTest, QueryRouteAnswersWithTheClusterRoute) {
  boot({"broker-a", "broker-b"}, {{"T", 4}});
  const v2::QueryRouteResponse r = run(core().query_route(route_request("T")));
  EXPECT_EQ(r.status().code(), v2::OK) << r.status().message();
  ASSERT_EQ(r.message_queues_size(), 8) << seed_text();
  std::set<std::string> brokers;
  for (const v2::MessageQueue& q : r.message_queues()) {
    brokers.insert(q.broker().name());
    EXPECT_EQ(q.permission(), v2::READ_WRITE);
    EXPECT_EQ(q.accept_message_types_size(), 4) << "Ferry's topics take every type";
  }
  EXPECT_EQ(brokers, (std::set<std::string>{"broker-a", "broker-b"}));

  const v2::QueryRouteResponse unknown = run(core().query_route(route_request("Nope")));
  EXPECT_EQ(unknown.status().code(), v2::TOPIC_NOT_FOUND);
  EXPECT_EQ(unknown.status().message(), "No topic route info in name server for the topic: Nope");
  EXPECT_EQ(run(core().query_route(route_request("bad topic"))).status().code(), v2::ILLEGAL_TOPIC);
}

TEST_F(MessagingCoreTest, ASentMessageIsStoredWithRocketMqsProperties) {
  boot({"broker-a"}, {{"T", 2}});
  const v2::SendMessageResponse r = run(core().send_message(send_request("T", "hello", "ID-1"), CallContext{"c1", "10.0.0.7:5000"}));
  ASSERT_EQ(r.status().code(), v2::OK) << r.status().message();
  ASSERT_EQ(r.entries_size(), 1);
  EXPECT_EQ(r.entries(0).message_id(), "ID-1");
  std::vector<MessageExt> stored;
  for (int q = 0; q < 2; ++q) {
    for (MessageExt& m : pull_all(MessageQueue{"T", "broker-a", QueueId(q)})) stored.push_back(std::move(m));
  }
  ASSERT_EQ(stored.size(), 1u) << seed_text();
  const MessageExt& m = stored[0];
  EXPECT_EQ(body_text(m), "hello");
  EXPECT_EQ(m.properties.get("UNIQ_KEY"), std::optional<std::string_view>("ID-1"));
  EXPECT_EQ(m.properties.get("TAGS"), std::optional<std::string_view>("TagA"));
  EXPECT_EQ(m.properties.get("PGROUP"), std::optional<std::string_view>("T"));
  EXPECT_EQ(m.properties.get("__BORNHOST"), std::optional<std::string_view>("10.0.0.7:5000"));
  EXPECT_EQ(r.entries(0).offset(), m.queue_offset.value());

  // Refusals come back in the status, nothing stored.
  const v2::SendMessageResponse empty = run(core().send_message(send_request("T", "", "ID-2"), CallContext{}));
  EXPECT_EQ(empty.status().code(), v2::MESSAGE_BODY_EMPTY);
  const v2::SendMessageResponse unknown = run(core().send_message(send_request("Nope", "x", "ID-3"), CallContext{}));
  EXPECT_EQ(unknown.status().code(), v2::TOPIC_NOT_FOUND) << "the proxy creates no topic";
  EXPECT_EQ(unknown.entries_size(), 0);
}

TEST_F(MessagingCoreTest, AMessageGroupStaysOnOneQueue) {
  boot({"broker-a", "broker-b"}, {{"F", 4}});
  std::map<std::string, std::set<std::string>> queues_of;  // group -> queues its messages went to
  for (int i = 0; i < 24; ++i) {
    const std::string group = "order-" + std::to_string(i % 3);
    const v2::SendMessageResponse r =
        run(core().send_message(send_request("F", "m" + std::to_string(i), "ID-" + std::to_string(i), group), CallContext{}));
    ASSERT_EQ(r.status().code(), v2::OK) << r.status().message();
  }
  for (const std::string broker : {"broker-a", "broker-b"}) {
    for (int q = 0; q < 4; ++q) {
      for (const MessageExt& m : pull_all(MessageQueue{"F", broker, QueueId(q)})) {
        auto g = m.properties.get("__SHARDINGKEY");
        ASSERT_TRUE(g.has_value());
        queues_of[std::string(*g)].insert(broker + "/" + std::to_string(q));
      }
    }
  }
  ASSERT_EQ(queues_of.size(), 3u) << seed_text();
  for (const auto& [group, queues] : queues_of) {
    EXPECT_EQ(queues.size(), 1u) << group << " went to several queues";
    // The queue RocketMQ's proxy picks: consistentHash over the 8 write queues sorted by broker, id.
    const std::size_t i = select_fifo_queue(group, 8);
    const std::string expected = std::string(i < 4 ? "broker-a" : "broker-b") + "/" + std::to_string(i % 4);
    EXPECT_EQ(*queues.begin(), expected) << group;
  }
}

}  // namespace
}  // namespace ferry::proxy
