// The proxy's core (src/proxy/messaging_core.h) between a gRPC client's requests and a simulated
// cluster: QueryRoute from the NameServers' route, SendMessage stored with RocketMQ's remoting
// properties, a FIFO message group always on one queue, refusals answered in the status.
#include "proxy/messaging_core.h"

#include <map>
#include <set>

#include "broker/broker_config.h"
#include "remoting/body/body_json.h"
#include "remoting/body/subscription_group_config.h"
#include "remoting/request_code.h"
#include "tests/support/broker_inspector.h"
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
  ~MessagingCoreTest() override {
    core_.reset();
    restarted_.reset();
  }

  // The proxy's process dies and starts again: a new client instance and a new core, nothing
  // remembered. (The old instance stays, silent, as the dead process's would.)
  void restart_proxy() {
    core_.reset();
    restarted_ = std::make_unique<client::ClientInstance>(client_rt(), cluster().client_config("proxy-2"));
    core_ = std::make_unique<MessagingCore>(client_rt(), *restarted_, ProxyConfig{});
    const Status s = core_->start();
    ASSERT_TRUE(s.ok()) << s.error().to_string();
  }

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

  std::unique_ptr<client::ClientInstance> restarted_;
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

TEST_F(MessagingCoreTest, QueryAssignmentGivesAPushConsumerEachBroker) {
  boot({"broker-a", "broker-b"}, {{"T", 4}});
  v2::QueryAssignmentRequest request;
  request.mutable_topic()->set_name("T");
  request.mutable_group()->set_name("G");
  *request.mutable_endpoints() = route_request("T").endpoints();
  const v2::QueryAssignmentResponse r = run(core().query_assignment(request));
  ASSERT_EQ(r.status().code(), v2::OK) << r.status().message();
  std::set<std::string> brokers;
  for (const v2::Assignment& a : r.assignments()) {
    brokers.insert(a.message_queue().broker().name());
    EXPECT_EQ(a.message_queue().id(), -1);
  }
  EXPECT_EQ(brokers, (std::set<std::string>{"broker-a", "broker-b"})) << seed_text();
  request.mutable_group()->set_name("bad group");
  EXPECT_EQ(run(core().query_assignment(request)).status().code(), v2::ILLEGAL_CONSUMER_GROUP);
  request.mutable_group()->set_name("G");
  request.mutable_topic()->set_name("Nope");
  EXPECT_EQ(run(core().query_assignment(request)).status().code(), v2::TOPIC_NOT_FOUND);
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

v2::ReceiveMessageRequest receive_request(std::string topic, std::string group, std::int64_t invisible_ms) {
  v2::ReceiveMessageRequest r;
  r.mutable_group()->set_name(group);
  r.mutable_message_queue()->mutable_topic()->set_name(topic);
  r.mutable_filter_expression()->set_type(v2::TAG);
  r.mutable_filter_expression()->set_expression("*");
  r.set_batch_size(16);
  r.mutable_invisible_duration()->set_seconds(invisible_ms / 1000);
  r.mutable_long_polling_timeout()->set_seconds(5);
  return r;
}

// The messages of a receive's stream, after checking its shape: the status first, the time last.
std::vector<v2::Message> messages_of(const std::vector<v2::ReceiveMessageResponse>& stream, v2::Code* code) {
  std::vector<v2::Message> out;
  EXPECT_GE(stream.size(), 2u);
  if (stream.empty()) return out;
  EXPECT_EQ(stream.front().content_case(), v2::ReceiveMessageResponse::kStatus);
  EXPECT_EQ(stream.back().content_case(), v2::ReceiveMessageResponse::kDeliveryTimestamp);
  *code = stream.front().status().code();
  for (const v2::ReceiveMessageResponse& r : stream) {
    if (r.has_message()) out.push_back(r.message());
  }
  return out;
}

TEST_F(MessagingCoreTest, ReceiveAckAndChangeInvisibleDuration) {
  boot({"broker-a"}, {{"R", 2}});
  for (int i = 0; i < 3; ++i) {
    const v2::SendMessageResponse s = run(core().send_message(send_request("R", "r" + std::to_string(i), "RID-" + std::to_string(i)), CallContext{}));
    ASSERT_EQ(s.status().code(), v2::OK) << s.status().message();
  }
  const CallContext ctx{"c1", "10.0.0.7:5000", 30s};
  std::map<std::string, v2::Message> got;  // body -> message
  for (int round = 0; round < 5 && got.size() < 3; ++round) {
    v2::Code code = v2::CODE_UNSPECIFIED;
    for (v2::Message& m : messages_of(run(core().receive_message(receive_request("R", "G", 15'000), ctx)), &code)) {
      got[m.body()] = std::move(m);
    }
    EXPECT_TRUE(code == v2::OK || code == v2::MESSAGE_NOT_FOUND) << code;
  }
  ASSERT_EQ(got.size(), 3u) << seed_text();
  for (const auto& [body, m] : got) {
    EXPECT_EQ(m.topic().name(), "R");
    EXPECT_EQ(m.system_properties().delivery_attempt(), 1);
    EXPECT_EQ(std::count(m.system_properties().receipt_handle().begin(), m.system_properties().receipt_handle().end(), ' '), 8)
        << "nine fields: " << m.system_properties().receipt_handle();
  }
  // r0 acknowledged; r1 left; r2 made visible again in 1 s (a new handle, the CommitLog offset kept).
  v2::AckMessageRequest ack;
  ack.mutable_group()->set_name("G");
  ack.mutable_topic()->set_name("R");
  v2::AckMessageEntry& e = *ack.add_entries();
  e.set_message_id(got["r0"].system_properties().message_id());
  e.set_receipt_handle(got["r0"].system_properties().receipt_handle());
  v2::AckMessageEntry& bad = *ack.add_entries();
  bad.set_message_id("x");
  bad.set_receipt_handle("not a handle");
  const v2::AckMessageResponse acked = run(core().ack_message(ack));
  ASSERT_EQ(acked.entries_size(), 2);
  EXPECT_EQ(acked.entries(0).status().code(), v2::OK) << acked.entries(0).status().message() << " handle " << e.receipt_handle();
  EXPECT_EQ(acked.entries(1).status().code(), v2::INVALID_RECEIPT_HANDLE);
  EXPECT_EQ(acked.status().code(), v2::MULTIPLE_RESULTS);

  v2::ChangeInvisibleDurationRequest change;
  change.mutable_group()->set_name("G");
  change.mutable_topic()->set_name("R");
  change.set_receipt_handle(got["r2"].system_properties().receipt_handle());
  change.mutable_invisible_duration()->set_seconds(1);
  const v2::ChangeInvisibleDurationResponse changed = run(core().change_invisible_duration(change));
  ASSERT_EQ(changed.status().code(), v2::OK) << changed.status().message();
  const std::string& old_handle = got["r2"].system_properties().receipt_handle();
  EXPECT_NE(changed.receipt_handle(), old_handle);
  EXPECT_EQ(changed.receipt_handle().substr(changed.receipt_handle().rfind(' ')), old_handle.substr(old_handle.rfind(' ')));

  // r2 comes back in about a second, r1 after its 15 s; r0 never.
  std::multiset<std::string> back;
  const MonoTime start = client_rt().now();
  while (client_rt().now() < start + 40s && back.size() < 2) {
    v2::Code code = v2::CODE_UNSPECIFIED;
    for (const v2::Message& m : messages_of(run(core().receive_message(receive_request("R", "G", 15'000), ctx)), &code)) {
      back.insert(m.body());
      EXPECT_EQ(m.system_properties().delivery_attempt(), 2) << m.body();
    }
  }
  EXPECT_EQ(back, (std::multiset<std::string>{"r1", "r2"})) << seed_text();
}

TEST_F(MessagingCoreTest, AMessageForwardedToTheDeadLetterQueueIsStoredThere) {
  boot({"broker-a"}, {{"R", 1}});
  ASSERT_EQ(run(core().send_message(send_request("R", "poison", "PID-1"), CallContext{})).status().code(), v2::OK);
  const CallContext ctx{"c1", "p", 30s};
  std::vector<v2::Message> got;
  for (int round = 0; round < 5 && got.empty(); ++round) {
    v2::Code code = v2::CODE_UNSPECIFIED;
    got = messages_of(run(core().receive_message(receive_request("R", "G", 15'000), ctx)), &code);
  }
  ASSERT_EQ(got.size(), 1u) << seed_text();
  v2::ForwardMessageToDeadLetterQueueRequest f;
  f.mutable_group()->set_name("G");
  f.mutable_topic()->set_name("R");
  f.set_receipt_handle(got[0].system_properties().receipt_handle());
  f.set_message_id(got[0].system_properties().message_id());
  f.set_delivery_attempt(1);
  f.set_max_delivery_attempts(16);
  const v2::ForwardMessageToDeadLetterQueueResponse r = run(core().forward_to_dead_letter_queue(f));
  ASSERT_EQ(r.status().code(), v2::OK) << r.status().message();
  const std::vector<MessageExt> dead = pull_all(MessageQueue{"%DLQ%G", "broker-a", QueueId(0)});
  ASSERT_EQ(dead.size(), 1u) << seed_text();
  EXPECT_EQ(body_text(dead[0]), "poison");
  EXPECT_EQ(dead[0].properties.get("UNIQ_KEY"), std::optional<std::string_view>("PID-1"));

  // A handle without its CommitLog offset (eight fields) cannot be forwarded.
  const std::string& h = got[0].system_properties().receipt_handle();
  f.set_receipt_handle(h.substr(0, h.rfind(' ')));
  EXPECT_EQ(run(core().forward_to_dead_letter_queue(f)).status().code(), v2::INVALID_RECEIPT_HANDLE);
}

TEST_F(MessagingCoreTest, TelemetrySettingsThenHeartbeatsThenTermination) {
  boot({"broker-a"}, {{"T", 1}});
  const CallContext ctx{"node-client-1", "10.0.0.7:5000", 30s};
  v2::HeartbeatRequest hb;
  hb.mutable_group()->set_name("G");
  EXPECT_EQ(core().heartbeat(hb, ctx).status().code(), v2::UNRECOGNIZED_CLIENT_TYPE) << "no settings yet";

  v2::TelemetryCommand settings;
  settings.mutable_settings()->set_client_type(v2::SIMPLE_CONSUMER);
  settings.mutable_settings()->mutable_subscription()->mutable_group()->set_name("G");
  settings.mutable_settings()->mutable_subscription()->add_subscriptions()->mutable_topic()->set_name("T");
  const std::optional<v2::TelemetryCommand> answer = core().telemetry(settings, ctx);
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->status().code(), v2::OK);
  ASSERT_TRUE(answer->has_settings());
  EXPECT_EQ(answer->settings().subscription().receive_batch_size(), 32);
  EXPECT_EQ(core().heartbeat(hb, ctx).status().code(), v2::OK);
  hb.mutable_group()->set_name("bad group");
  EXPECT_EQ(core().heartbeat(hb, ctx).status().code(), v2::ILLEGAL_CONSUMER_GROUP);

  v2::TelemetryCommand empty;
  empty.mutable_settings();  // neither publishing nor subscription
  EXPECT_EQ(core().telemetry(empty, ctx)->status().code(), v2::BAD_REQUEST);
  EXPECT_FALSE(core().telemetry(v2::TelemetryCommand{}, ctx)) << "no command, nothing to answer";

  v2::NotifyClientTerminationRequest bye;
  bye.mutable_group()->set_name("G");
  EXPECT_EQ(core().notify_client_termination(bye, ctx).status().code(), v2::OK);
  EXPECT_EQ(core().notify_client_termination(bye, ctx).status().code(), v2::UNRECOGNIZED_CLIENT_TYPE);
  hb.mutable_group()->set_name("G");
  EXPECT_EQ(core().heartbeat(hb, ctx).status().code(), v2::UNRECOGNIZED_CLIENT_TYPE);
}

TEST_F(MessagingCoreTest, ATransactionCommittedAppearsAndARolledBackOneNever) {
  boot({"broker-a"}, {{"Tx", 1}});
  auto half = [&](std::string body, std::string id) {
    v2::SendMessageRequest r = send_request("Tx", std::move(body), std::move(id));
    r.mutable_messages(0)->mutable_system_properties()->set_message_type(v2::TRANSACTION);
    const v2::SendMessageResponse sent = run(core().send_message(std::move(r), CallContext{}));
    EXPECT_EQ(sent.status().code(), v2::OK) << sent.status().message();
    return sent.entries_size() == 1 ? sent.entries(0).transaction_id() : std::string();
  };
  const std::string commit_id = half("yes", "TX-1");
  const std::string rollback_id = half("no", "TX-2");
  ASSERT_FALSE(commit_id.empty());
  const MessageQueue q{"Tx", "broker-a", QueueId(0)};
  EXPECT_TRUE(pull_all(q).empty()) << "a half message is not on its topic";

  auto end = [&](std::string id, std::string message_id, v2::TransactionResolution resolution) {
    v2::EndTransactionRequest e;
    e.mutable_topic()->set_name("Tx");
    e.set_message_id(std::move(message_id));
    e.set_transaction_id(std::move(id));
    e.set_resolution(resolution);
    e.set_source(v2::SOURCE_CLIENT);
    return run(core().end_transaction(std::move(e))).status();
  };
  EXPECT_EQ(end(commit_id, "TX-1", v2::COMMIT).code(), v2::OK);
  EXPECT_EQ(end(rollback_id, "TX-2", v2::ROLLBACK).code(), v2::OK);
  const v2::Status again = end(commit_id, "TX-1", v2::COMMIT);
  EXPECT_EQ(again.code(), v2::INTERNAL_SERVER_ERROR) << "ended already";
  EXPECT_EQ(again.message(), "cannot found transaction data");
  EXPECT_EQ(end("", "TX-3", v2::COMMIT).code(), v2::INVALID_TRANSACTION_ID);

  ASSERT_TRUE(eventually([&] { return !pull_all(q).empty(); }, 30s)) << seed_text();
  const MonoTime seen = client_rt().now();
  eventually([&] { return client_rt().now() >= seen + 10s; }, 20s);  // time for a wrong delivery to show
  const std::vector<MessageExt> visible = pull_all(q);
  ASSERT_EQ(visible.size(), 1u) << "the rolled-back one never appears";
  EXPECT_EQ(body_text(visible[0]), "yes");
}

TEST_F(MessagingCoreTest, ABrokersTransactionCheckReachesAPublishingClientAndItsAnswerEndsIt) {
  broker_config_.transaction_timeout = 1s;
  broker_config_.transaction_check_interval = 2s;
  boot({"broker-a"}, {{"Tx", 1}});
  std::vector<std::pair<std::string, v2::TelemetryCommand>> relayed;
  bool stream_open = false;
  core().set_telemetry_sink([&](const std::string& client, v2::TelemetryCommand command) {
    if (!stream_open) return false;
    relayed.emplace_back(client, std::move(command));
    return true;
  });
  v2::TelemetryCommand settings;
  settings.mutable_settings()->set_client_type(v2::PRODUCER);
  settings.mutable_settings()->mutable_publishing()->add_topics()->set_name("Tx");
  ASSERT_EQ(core().telemetry(settings, CallContext{"producer-1", "10.0.0.7:5000"})->status().code(), v2::OK);

  v2::SendMessageRequest r = send_request("Tx", "unknown at first", "TX-CHECK-1");
  r.mutable_messages(0)->mutable_system_properties()->set_message_type(v2::TRANSACTION);
  const v2::SendMessageResponse sent = run(core().send_message(std::move(r), CallContext{"producer-1", "10.0.0.7:5000"}));
  ASSERT_EQ(sent.status().code(), v2::OK) << sent.status().message();
  // No stream takes the first checks: they are dropped, and the broker asks again.
  ASSERT_TRUE(eventually([&] { return core().checks_dropped() > 0; }, 30s)) << seed_text();
  stream_open = true;
  ASSERT_TRUE(eventually([&] { return !relayed.empty(); }, 30s)) << seed_text();
  EXPECT_EQ(relayed[0].first, "producer-1");
  ASSERT_TRUE(relayed[0].second.has_recover_orphaned_transaction_command());
  const v2::RecoverOrphanedTransactionCommand& check = relayed[0].second.recover_orphaned_transaction_command();
  EXPECT_EQ(check.transaction_id(), sent.entries(0).transaction_id());
  EXPECT_EQ(check.message().topic().name(), "Tx") << "the real topic, not the half topic";
  EXPECT_EQ(check.message().body(), "unknown at first");
  EXPECT_EQ(check.message().system_properties().message_id(), "TX-CHECK-1");

  v2::EndTransactionRequest e;
  e.mutable_topic()->set_name("Tx");
  e.set_message_id("TX-CHECK-1");
  e.set_transaction_id(check.transaction_id());
  e.set_resolution(v2::COMMIT);
  e.set_source(v2::SOURCE_SERVER_CHECK);
  EXPECT_EQ(run(core().end_transaction(std::move(e))).status().code(), v2::OK);
  const MessageQueue q{"Tx", "broker-a", QueueId(0)};
  ASSERT_TRUE(eventually([&] { return !pull_all(q).empty(); }, 30s)) << seed_text();
  EXPECT_EQ(body_text(pull_all(q)[0]), "unknown at first");
}

// The proxy's process dies (its core and everything it remembered are gone) and a broker crashes:
// the handles from before the proxy's crash still work (they are the brokers'), one past its
// invisible time is answered INVALID_RECEIPT_HANDLE, an ack to the crashed broker fails clearly,
// sends go on to the other broker, and every message is received in the end.
TEST_F(MessagingCoreTest, HandlesOutliveAProxyCrashAndABrokerCrashLosesNothing) {
  boot({"broker-a", "broker-b"}, {{"T", 2}});
  std::set<std::string> sent;
  auto send = [&](std::string id) {
    const v2::SendMessageResponse r = run(core().send_message(send_request("T", "body-" + id, id), CallContext{"p", "10.0.0.7:1"}));
    if (r.status().code() == v2::OK) sent.insert(id);
    return r.status();
  };
  for (int i = 0; i < 20; ++i) ASSERT_EQ(send(fmt::format("M-{}", i)).code(), v2::OK) << seed_text();
  auto receive_from = [&](std::string broker, std::int64_t invisible_s) {
    v2::ReceiveMessageRequest r;
    r.mutable_group()->set_name("G");
    r.mutable_message_queue()->mutable_topic()->set_name("T");
    r.mutable_message_queue()->mutable_broker()->set_name(std::move(broker));
    r.set_batch_size(32);
    r.mutable_invisible_duration()->set_seconds(invisible_s);
    r.mutable_long_polling_timeout()->set_seconds(5);
    std::vector<v2::Message> out;
    for (v2::ReceiveMessageResponse& m : run(core().receive_message(std::move(r), CallContext{"c", "10.0.0.8:1"}))) {
      if (m.has_message()) out.push_back(std::move(*m.mutable_message()));
    }
    return out;
  };
  auto ack = [&](const v2::Message& m) {
    v2::AckMessageRequest r;
    r.mutable_group()->set_name("G");
    r.mutable_topic()->set_name("T");
    v2::AckMessageEntry& e = *r.add_entries();
    e.set_message_id(m.system_properties().message_id());
    e.set_receipt_handle(m.system_properties().receipt_handle());
    return run(core().ack_message(std::move(r))).status();
  };
  std::set<std::string> received;
  const std::vector<v2::Message> from_a = receive_from("broker-a", 60);
  const std::vector<v2::Message> from_b = receive_from("broker-b", 60);
  const MonoTime received_at = client_rt().now();
  ASSERT_FALSE(from_a.empty()) << seed_text();
  ASSERT_GE(from_b.size(), 2u) << seed_text();

  // The proxy crashes: a new core knows nothing of what the old one did.
  restart_proxy();
  run(instance().shutdown());  // the dead process's instance goes quiet
  EXPECT_EQ(ack(from_b[0]).code(), v2::OK) << "a handle from before the proxy's crash" << seed_text();
  received.insert(from_b[0].system_properties().message_id());
  // Past its invisible time (and any clock skew) a handle is refused clearly; its message comes back.
  eventually([&] { return client_rt().now() >= received_at + 90s; }, 100s);
  const v2::Status late = ack(from_b[1]);
  EXPECT_EQ(late.code(), v2::INVALID_RECEIPT_HANDLE) << late.message() << seed_text();

  // broker-a crashes for 10 s: an ack to it fails with a status, sends go on to broker-b.
  cluster().restart(cluster().broker_node(0), sim::CrashKind::process_kill, 10s);
  const v2::Status to_dead = ack(from_a[0]);
  EXPECT_NE(to_dead.code(), v2::OK) << "an ack to a crashed broker" << seed_text();
  int sends_ok = 0;
  for (int i = 0; i < 10; ++i) sends_ok += send(fmt::format("D-{}", i)).code() == v2::OK;
  EXPECT_GE(sends_ok, 8) << "sends while broker-a is down go to broker-b" << seed_text();

  // In the end every message sent is received (the unacknowledged come back).
  ASSERT_TRUE(eventually([&] {
    for (const char* broker : {"broker-a", "broker-b"}) {
      for (const v2::Message& m : receive_from(broker, 30)) {
        if (ack(m).code() == v2::OK) received.insert(m.system_properties().message_id());
      }
    }
    return std::includes(received.begin(), received.end(), sent.begin(), sent.end());
  }, 180s)) << received.size() << " of " << sent.size() << " received" << seed_text();
}

// A master fails over to a slave under the proxy (controller mode, SYNC_MASTER, every replica in
// sync acknowledging): sends through the proxy go on once the new master is in the route, and
// every send the proxy answered OK is received through it in the end.
TEST_F(MessagingCoreTest, AMasterFailoverUnderTheProxyLosesNoAnsweredSend) {
  sim::cluster::ClusterSpec spec;
  spec.controllers = 3;
  sim::cluster::BrokerGroupSpec& g = spec.brokers.front();
  g.slaves = 2;
  g.role = broker::BrokerRole::sync_master;
  g.controller_mode = true;
  g.config.ha.all_ack_in_sync_state_set = true;
  spec.topics.push_back(sim::cluster::TopicSpec{"T", 2});
  boot(std::move(spec));
  std::set<std::string> answered;
  int next = 0;
  auto send_until = [&](std::size_t want, Duration limit) {
    return eventually([&] {
      const std::string id = fmt::format("FO-{}", next++);
      const v2::SendMessageResponse r = run(core().send_message(send_request("T", "body-" + id, id), CallContext{"p", "10.0.0.7:1"}));
      if (r.status().code() == v2::OK) answered.insert(id);
      return answered.size() >= want;
    }, limit);
  };
  ASSERT_TRUE(send_until(10, 60s)) << answered.size() << " sends answered OK" << seed_text();
  // The slaves catch up and join the master's SyncStateSet: only then may one of them take over.
  std::optional<std::size_t> master;
  ASSERT_TRUE(eventually([&] {
    for (std::size_t i = 0; i < cluster().broker_count(); ++i) {
      broker::Broker* b = cluster().broker(i);
      if (b != nullptr && b->replicas() != nullptr && b->replicas()->is_master() &&
          ferry::testing::BrokerInspector(*b).ha_master().sync_state_set().size() == 3) {
        master = i;
        return true;
      }
    }
    return false;
  }, 120s)) << seed_text();

  // The master's process dies; the controllers elect a slave.
  cluster().kill(cluster().broker_node(*master));
  ASSERT_TRUE(send_until(20, 180s)) << "sends after the failover: " << answered.size() << " answered OK" << seed_text();

  std::set<std::string> received;
  ASSERT_TRUE(eventually([&] {
    v2::ReceiveMessageRequest r;
    r.mutable_group()->set_name("G");
    r.mutable_message_queue()->mutable_topic()->set_name("T");
    r.set_batch_size(32);
    r.mutable_invisible_duration()->set_seconds(15);
    r.mutable_long_polling_timeout()->set_seconds(5);
    for (const v2::ReceiveMessageResponse& m : run(core().receive_message(std::move(r), CallContext{"c", "10.0.0.8:1"}))) {
      if (!m.has_message()) continue;
      v2::AckMessageRequest a;
      a.mutable_group()->set_name("G");
      a.mutable_topic()->set_name("T");
      a.add_entries()->set_receipt_handle(m.message().system_properties().receipt_handle());
      if (run(core().ack_message(std::move(a))).status().code() == v2::OK) received.insert(m.message().system_properties().message_id());
    }
    return std::includes(received.begin(), received.end(), answered.begin(), answered.end());
  }, 240s)) << received.size() << " of " << answered.size() << " answered sends received" << seed_text();
}

// A group whose config says consumeMessageOrderly (RocketMQ 5's field, GET_SUBSCRIPTIONGROUP_CONFIG)
// pops in order: while a batch of a queue is unacknowledged nothing more of that queue comes; an
// ordinary group gets the next messages at once. Its clients' settings say fifo.
TEST_F(MessagingCoreTest, AnOrderlyGroupReceivesAQueueOneBatchAtATime) {
  boot({"broker-a"}, {{"F", 1}});
  remoting::body::SubscriptionGroupConfig orderly;
  orderly.group_name = "GF";
  orderly.consume_message_orderly = true;
  remoting::RemotingCommand update = remoting::make_request(remoting::request_code::UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, 0);
  update.body = remoting::body::write_body([&](remoting::json::Writer& w) { orderly.write(w); });
  ASSERT_TRUE(run(instance().update_topic_route("F")).ok()) << seed_text();
  const std::optional<std::string> master = instance().master_address("broker-a");
  ASSERT_TRUE(master.has_value());
  Result<remoting::RemotingCommand> updated = run(instance().rpc().invoke(*master, std::move(update), 3s));
  ASSERT_TRUE(updated.ok() && updated->code == 0) << seed_text();

  for (int i = 0; i < 6; ++i) {
    ASSERT_EQ(run(core().send_message(send_request("F", fmt::format("m{}", i), fmt::format("F-{}", i)), CallContext{"p", "10.0.0.7:1"}))
                  .status()
                  .code(),
              v2::OK);
  }
  auto receive = [&](std::string group) {
    v2::ReceiveMessageRequest r;
    r.mutable_group()->set_name(std::move(group));
    r.mutable_message_queue()->mutable_topic()->set_name("F");
    r.set_batch_size(2);
    r.mutable_invisible_duration()->set_seconds(30);
    r.mutable_long_polling_timeout()->set_seconds(5);
    std::vector<v2::Message> out;
    for (v2::ReceiveMessageResponse& m : run(core().receive_message(std::move(r), CallContext{"c", "10.0.0.8:1"}))) {
      if (m.has_message()) out.push_back(std::move(*m.mutable_message()));
    }
    return out;
  };
  // The message numbers of a batch, and whether they run on from `from` one by one (a POP may
  // return fewer than asked).
  auto numbers = [](const std::vector<v2::Message>& ms) {
    std::vector<int> out;
    for (const v2::Message& m : ms) out.push_back(std::stoi(m.body().substr(1)));
    return out;
  };
  auto runs_on_from = [](const std::vector<int>& ns, int from) {
    for (std::size_t i = 0; i < ns.size(); ++i) {
      if (ns[i] != from + static_cast<int>(i)) return false;
    }
    return !ns.empty();
  };
  const std::vector<v2::Message> first = receive("GF");
  const std::vector<int> first_numbers = numbers(first);
  ASSERT_TRUE(runs_on_from(first_numbers, 0)) << ::testing::PrintToString(first_numbers) << seed_text();
  EXPECT_TRUE(receive("GF").empty()) << "the queue waits for its batch" << seed_text();
  for (const v2::Message& m : first) {
    v2::AckMessageRequest a;
    a.mutable_group()->set_name("GF");
    a.mutable_topic()->set_name("F");
    a.add_entries()->set_receipt_handle(m.system_properties().receipt_handle());
    ASSERT_EQ(run(core().ack_message(std::move(a))).status().code(), v2::OK) << seed_text();
  }
  const std::vector<int> next = numbers(receive("GF"));
  EXPECT_TRUE(runs_on_from(next, static_cast<int>(first.size())))
      << "the next batch once the first is acknowledged: " << ::testing::PrintToString(next) << seed_text();

  const std::vector<int> n1 = numbers(receive("GN"));
  ASSERT_TRUE(runs_on_from(n1, 0)) << ::testing::PrintToString(n1) << seed_text();
  const std::vector<int> n2 = numbers(receive("GN"));
  EXPECT_TRUE(runs_on_from(n2, static_cast<int>(n1.size())))
      << "an ordinary group is not held: " << ::testing::PrintToString(n2) << seed_text();

  auto fifo_of = [&](std::string group) {
    v2::TelemetryCommand settings;
    settings.mutable_settings()->set_client_type(v2::SIMPLE_CONSUMER);
    settings.mutable_settings()->mutable_subscription()->mutable_group()->set_name(group);
    settings.mutable_settings()->mutable_subscription()->add_subscriptions()->mutable_topic()->set_name("F");
    std::optional<v2::TelemetryCommand> answer = run(core().telemetry_with_group(settings, CallContext{"c-" + group, "10.0.0.8:1"}));
    EXPECT_TRUE(answer && answer->has_settings());
    return answer && answer->settings().subscription().fifo();
  };
  EXPECT_TRUE(fifo_of("GF"));
  EXPECT_FALSE(fifo_of("GN"));
}

// A message of an orderly group received and left retryMaxTimes + 1 times goes to %DLQ%{group} from
// the proxy (a broker does not move FIFO POP messages itself), and is not handed out again.
TEST_F(MessagingCoreTest, AMessagePastItsAttemptsGoesToTheDeadLetterQueue) {
  boot({"broker-a"}, {{"F", 1}});
  remoting::body::SubscriptionGroupConfig group;
  group.group_name = "GD";
  group.consume_message_orderly = true;
  group.retry_max_times = 1;  // two attempts
  remoting::RemotingCommand update = remoting::make_request(remoting::request_code::UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, 0);
  update.body = remoting::body::write_body([&](remoting::json::Writer& w) { group.write(w); });
  ASSERT_TRUE(run(instance().update_topic_route("F")).ok()) << seed_text();
  Result<remoting::RemotingCommand> updated = run(instance().rpc().invoke(*instance().master_address("broker-a"), std::move(update), 3s));
  ASSERT_TRUE(updated.ok() && updated->code == 0) << seed_text();
  ASSERT_EQ(run(core().send_message(send_request("F", "poison", "POISON-1"), CallContext{"p", "10.0.0.7:1"})).status().code(), v2::OK);

  std::vector<std::int32_t> attempts;
  ASSERT_TRUE(eventually([&] {
    v2::ReceiveMessageRequest r;
    r.mutable_group()->set_name("GD");
    r.mutable_message_queue()->mutable_topic()->set_name("F");
    r.set_batch_size(1);
    r.mutable_invisible_duration()->set_seconds(10);
    r.mutable_long_polling_timeout()->set_seconds(5);
    for (v2::ReceiveMessageResponse& m : run(core().receive_message(std::move(r), CallContext{"c", "10.0.0.8:1"}))) {
      if (m.has_message()) attempts.push_back(m.message().system_properties().delivery_attempt());  // left unacknowledged
    }
    return core().dead_lettered() > 0;
  }, 120s)) << ::testing::PrintToString(attempts) << seed_text();
  EXPECT_EQ(attempts, (std::vector<std::int32_t>{1, 2})) << "handed out twice, then to the DLQ" << seed_text();
  std::vector<MessageExt> dead;
  ASSERT_TRUE(eventually([&] {
    dead = pull_all(MessageQueue{"%DLQ%GD", "broker-a", QueueId(0)});
    return !dead.empty();
  }, 30s)) << seed_text();
  EXPECT_EQ(body_text(dead[0]), "poison");
}

TEST_F(MessagingCoreTest, ReceiveRefusalsAreInTheStreamsStatus) {
  boot({"broker-a"}, {{"R", 2}});
  auto first_code = [&](v2::ReceiveMessageRequest r, CallContext ctx) {
    const std::vector<v2::ReceiveMessageResponse> stream = run(core().receive_message(std::move(r), ctx));
    EXPECT_EQ(stream.size(), 2u);
    return stream.empty() ? v2::Status{} : stream.front().status();
  };
  const CallContext ctx{"c1", "p", 30s};
  v2::Status s = first_code(receive_request("R", "G", 5'000), ctx);
  EXPECT_EQ(s.code(), v2::ILLEGAL_INVISIBLE_TIME);
  EXPECT_EQ(s.message(), "the invisibleTime is too small. min is 10000");
  EXPECT_EQ(first_code(receive_request("R", "G", 13 * 3600 * 1000LL), ctx).code(), v2::ILLEGAL_INVISIBLE_TIME);
  EXPECT_EQ(first_code(receive_request("R", "bad group", 15'000), ctx).code(), v2::ILLEGAL_CONSUMER_GROUP);
  EXPECT_EQ(first_code(receive_request("R", "CID_RMQ_SYS_X", 15'000), ctx).code(), v2::ILLEGAL_CONSUMER_GROUP);
  EXPECT_EQ(first_code(receive_request("Nope", "G", 15'000), ctx).code(), v2::TOPIC_NOT_FOUND);
  EXPECT_EQ(first_code(receive_request("R", "G", 15'000), CallContext{"c1", "p", 3s}).code(), v2::ILLEGAL_POLLING_TIME);
  v2::ReceiveMessageRequest sql = receive_request("R", "G", 15'000);
  sql.mutable_filter_expression()->set_type(v2::SQL);
  sql.mutable_filter_expression()->set_expression("a >");
  EXPECT_EQ(first_code(sql, ctx).code(), v2::ILLEGAL_FILTER_EXPRESSION);
  // Nothing there: MESSAGE_NOT_FOUND after the polling time, as the clients read it.
  EXPECT_EQ(first_code(receive_request("R", "G", 15'000), ctx).code(), v2::MESSAGE_NOT_FOUND);
}

}  // namespace
}  // namespace ferry::proxy
