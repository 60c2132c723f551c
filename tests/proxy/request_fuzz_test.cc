// The proxy's core against hostile gRPC requests (issue 37's "grpc fuzz"): valid requests of every
// RPC mutated at the byte level (what parses is what gRPC would hand the proxy), and requests with
// huge fields and absurd counts, each served on a simulated cluster. Every answer must carry a
// status with a code of the v2 enum; nothing may crash, hang or store a message from a refused
// send. Deterministic per seed (the simulated client node's random draws), so a failure replays.
#include <google/protobuf/stubs/logging.h>

#include <set>

#include "proxy/messaging_core.h"
#include "proxy/v2_access.h"
#include "tests/support/client_fixture.h"

namespace ferry::proxy {
namespace {

using namespace std::chrono_literals;

class RequestFuzzTest : public client::testing::ClientTest {
 protected:
  MessagingCore& core() {
    if (!core_) {
      core_ = std::make_unique<MessagingCore>(client_rt(), instance(), ProxyConfig{});
      const Status s = core_->start();
      EXPECT_TRUE(s.ok()) << s.error().to_string();
    }
    return *core_;
  }
  ~RequestFuzzTest() override { core_.reset(); }

  Random& rnd() { return client_rt().random(); }

  // `bytes` with a few random edits: flips, insertions, deletions, a truncation, a repeat.
  std::string mutate(std::string bytes) {
    const int edits = static_cast<int>(rnd().between(1, 3));
    for (int i = 0; i < edits; ++i) {
      const std::size_t at = bytes.empty() ? 0 : rnd().below(bytes.size());
      switch (rnd().below(5)) {
        case 0:
          if (!bytes.empty()) bytes[at] = static_cast<char>(bytes[at] ^ (1u << rnd().below(8)));
          break;
        case 1: bytes.insert(at, 1, static_cast<char>(rnd().below(256))); break;
        case 2:
          if (!bytes.empty()) bytes.erase(at, 1 + rnd().below(4));
          break;
        case 3: bytes.resize(at); break;
        case 4: bytes += bytes.substr(at, 16); break;  // a field again (protobuf keeps the last)
      }
    }
    return bytes;
  }

  template <typename Request>
  bool mutated(const Request& valid, Request& out) {
    return out.ParseFromString(mutate(valid.SerializeAsString()));
  }

  static void expect_status(const v2::Status& s, const char* rpc) {
    EXPECT_TRUE(v2::Code_IsValid(s.code())) << rpc << ": code " << s.code();
    EXPECT_NE(s.code(), v2::CODE_UNSPECIFIED) << rpc << ": no status";
  }

  std::unique_ptr<MessagingCore> core_;
};

v2::SendMessageRequest valid_send() {
  v2::SendMessageRequest r;
  v2::Message& m = *r.add_messages();
  m.mutable_topic()->set_name("T");
  m.set_body("body");
  m.mutable_system_properties()->set_message_id("FUZZ-1");
  m.mutable_system_properties()->set_tag("TagA");
  m.mutable_system_properties()->add_keys("k");
  (*m.mutable_user_properties())["a"] = "b";
  return r;
}

v2::ReceiveMessageRequest valid_receive() {
  v2::ReceiveMessageRequest r;
  r.mutable_group()->set_name("G");
  r.mutable_message_queue()->mutable_topic()->set_name("T");
  r.mutable_message_queue()->mutable_broker()->set_name("broker-a");
  r.mutable_filter_expression()->set_type(v2::TAG);
  r.mutable_filter_expression()->set_expression("*");
  r.set_batch_size(16);
  r.mutable_invisible_duration()->set_seconds(15);
  r.mutable_long_polling_timeout()->set_seconds(5);
  return r;
}

// Protobuf logs every string field with bad UTF-8 it refuses to parse: quiet while mutating.
class QuietProtobuf {
 public:
  QuietProtobuf() : previous_(google::protobuf::SetLogHandler(nullptr)) {}
  ~QuietProtobuf() { google::protobuf::SetLogHandler(previous_); }

 private:
  google::protobuf::LogHandler* previous_;
};

TEST_F(RequestFuzzTest, MutatedRequestsOfEveryRpcAreAnsweredWithAStatus) {
  const QuietProtobuf quiet;
  boot({"broker-a"}, {{"T", 2}});
  // A real handle to mutate: one message sent and received.
  ASSERT_EQ(run(core().send_message(valid_send(), CallContext{"c", "10.0.0.7:1"})).status().code(), v2::OK);
  std::string handle;
  for (const v2::ReceiveMessageResponse& r : run(core().receive_message(valid_receive(), CallContext{"c", "10.0.0.7:1"}))) {
    if (r.has_message()) handle = r.message().system_properties().receipt_handle();
  }
  ASSERT_FALSE(handle.empty()) << seed_text();
  v2::AckMessageRequest ack;
  ack.mutable_group()->set_name("G");
  ack.mutable_topic()->set_name("T");
  ack.add_entries()->set_receipt_handle(handle);
  ack.mutable_entries(0)->set_message_id("FUZZ-1");
  v2::ChangeInvisibleDurationRequest change;
  change.mutable_group()->set_name("G");
  change.mutable_topic()->set_name("T");
  change.set_receipt_handle(handle);
  change.set_message_id("FUZZ-1");
  change.mutable_invisible_duration()->set_seconds(20);
  v2::ForwardMessageToDeadLetterQueueRequest forward;
  forward.mutable_group()->set_name("G");
  forward.mutable_topic()->set_name("T");
  forward.set_receipt_handle(handle);
  forward.set_message_id("FUZZ-1");
  forward.set_delivery_attempt(17);
  forward.set_max_delivery_attempts(16);
  v2::QueryRouteRequest route;
  route.mutable_topic()->set_name("T");
  route.mutable_endpoints()->set_scheme(v2::IPv4);
  route.mutable_endpoints()->add_addresses()->set_host("10.0.0.5");
  v2::QueryAssignmentRequest assignment;
  *assignment.mutable_topic() = route.topic();
  assignment.mutable_group()->set_name("G");
  *assignment.mutable_endpoints() = route.endpoints();
  v2::EndTransactionRequest end;
  end.mutable_topic()->set_name("T");
  end.set_transaction_id("TX");
  end.set_message_id("FUZZ-1");
  end.set_resolution(v2::COMMIT);
  v2::TelemetryCommand settings;
  settings.mutable_settings()->set_client_type(v2::SIMPLE_CONSUMER);
  settings.mutable_settings()->mutable_subscription()->mutable_group()->set_name("G");
  settings.mutable_settings()->mutable_subscription()->add_subscriptions()->mutable_topic()->set_name("T");

  // Until 300 mutated requests parsed (most edits break a protobuf: a truncated field, bad UTF-8).
  int parsed = 0;
  int tried = 0;
  const CallContext who{"fuzz", "10.0.0.7:2"};
  for (; parsed < 300 && tried < 5'000; ++tried) {
    switch (rnd().below(9)) {
      case 0: {
        v2::SendMessageRequest r;
        if (!mutated(valid_send(), r)) continue;
        (void)needed_v2_access(r);
        expect_status(run(core().send_message(std::move(r), who)).status(), "SendMessage");
        break;
      }
      case 1: {
        v2::ReceiveMessageRequest r;
        if (!mutated(valid_receive(), r)) continue;
        CallContext c = who;
        if (rnd().one_in(2)) c.remaining = std::chrono::milliseconds(rnd().between(0, 30'000));
        const auto answers = run(core().receive_message(std::move(r), c));
        ASSERT_FALSE(answers.empty()) << "ReceiveMessage answered nothing" << seed_text();
        ASSERT_TRUE(answers.front().has_status()) << "a receive stream starts with its status" << seed_text();
        expect_status(answers.front().status(), "ReceiveMessage");
        break;
      }
      case 2: {
        v2::AckMessageRequest r;
        if (!mutated(ack, r)) continue;
        expect_status(run(core().ack_message(std::move(r))).status(), "AckMessage");
        break;
      }
      case 3: {
        v2::ChangeInvisibleDurationRequest r;
        if (!mutated(change, r)) continue;
        expect_status(run(core().change_invisible_duration(std::move(r))).status(), "ChangeInvisibleDuration");
        break;
      }
      case 4: {
        v2::ForwardMessageToDeadLetterQueueRequest r;
        if (!mutated(forward, r)) continue;
        expect_status(run(core().forward_to_dead_letter_queue(std::move(r))).status(), "ForwardMessageToDeadLetterQueue");
        break;
      }
      case 5: {
        v2::QueryRouteRequest r;
        if (!mutated(route, r)) continue;
        expect_status(run(core().query_route(std::move(r))).status(), "QueryRoute");
        break;
      }
      case 6: {
        v2::QueryAssignmentRequest r;
        if (!mutated(assignment, r)) continue;
        expect_status(run(core().query_assignment(std::move(r))).status(), "QueryAssignment");
        break;
      }
      case 7: {
        v2::EndTransactionRequest r;
        if (!mutated(end, r)) continue;
        expect_status(run(core().end_transaction(std::move(r))).status(), "EndTransaction");
        break;
      }
      case 8: {
        v2::TelemetryCommand r;
        if (!mutated(settings, r)) continue;
        (void)needed_v2_access(r);
        if (std::optional<v2::TelemetryCommand> answer = core().telemetry(r, who)) expect_status(answer->status(), "Telemetry");
        break;
      }
    }
    ++parsed;
    if (HasFatalFailure()) return;
  }
  EXPECT_EQ(parsed, 300) << "of " << tried << " mutations" << seed_text();
}

TEST_F(RequestFuzzTest, HugeFieldsAndAbsurdCountsAreRefusedAndStoreNothing) {
  boot({"broker-a"}, {{"T", 1}});
  const CallContext who{"fuzz", "10.0.0.7:2"};
  auto refused = [&](v2::SendMessageRequest r, const char* what) {
    const v2::SendMessageResponse a = run(core().send_message(std::move(r), who));
    EXPECT_NE(a.status().code(), v2::OK) << what << seed_text();
    expect_status(a.status(), what);
  };
  v2::SendMessageRequest r = valid_send();
  r.mutable_messages(0)->mutable_topic()->set_name(std::string(1 << 20, 'T'));
  refused(r, "a topic of 1 MiB");
  r = valid_send();
  r.mutable_messages(0)->set_body(std::string(4 * 1024 * 1024 + 1, 'x'));
  refused(r, "a body over 4 MiB");
  r = valid_send();
  for (int i = 0; i < 200; ++i) (*r.mutable_messages(0)->mutable_user_properties())["p" + std::to_string(i)] = "v";
  refused(r, "200 user properties");
  r = valid_send();
  (*r.mutable_messages(0)->mutable_user_properties())["big"] = std::string(64 * 1024, 'v');
  refused(r, "a 64 KiB property");
  r = valid_send();
  r.mutable_messages(0)->mutable_system_properties()->set_message_group(std::string(1000, 'g'));
  refused(r, "a message group of 1000 bytes");
  r = valid_send();
  r.mutable_messages(0)->mutable_system_properties()->mutable_delivery_timestamp()->set_seconds(std::int64_t{1} << 40);
  refused(r, "a delivery time in the year 36000");
  r = valid_send();
  r.mutable_messages(0)->mutable_system_properties()->set_body_encoding(v2::GZIP);
  r.mutable_messages(0)->set_body("not gzip at all");
  refused(r, "a GZIP body that is not gzip");
  r = valid_send();
  r.clear_messages();
  refused(r, "no message");
  EXPECT_TRUE(pull_all(MessageQueue{"T", "broker-a", QueueId(0)}).empty()) << "a refused send stored something" << seed_text();

  // 10,000 messages in one request: refused or stored whole, never half.
  r = valid_send();
  for (int i = 1; i < 10'000; ++i) *r.add_messages() = r.messages(0);
  const v2::SendMessageResponse batch = run(core().send_message(std::move(r), who));
  expect_status(batch.status(), "a batch of 10,000");
  const std::size_t stored = pull_all(MessageQueue{"T", "broker-a", QueueId(0)}).size();
  EXPECT_TRUE(stored == 0 || stored == 10'000) << stored << " of a batch of 10,000 stored" << seed_text();

  v2::ReceiveMessageRequest receive = valid_receive();
  receive.set_batch_size(std::numeric_limits<std::int32_t>::max());
  receive.mutable_invisible_duration()->set_seconds(std::numeric_limits<std::int64_t>::max());
  auto answers = run(core().receive_message(receive, who));
  ASSERT_FALSE(answers.empty());
  EXPECT_EQ(answers.front().status().code(), v2::ILLEGAL_INVISIBLE_TIME) << seed_text();
  receive = valid_receive();
  receive.set_batch_size(-5);
  receive.mutable_long_polling_timeout()->set_seconds(-1);
  answers = run(core().receive_message(receive, who));
  ASSERT_FALSE(answers.empty());
  expect_status(answers.front().status(), "a negative batch and polling time");

  v2::AckMessageRequest ack;
  ack.mutable_group()->set_name("G");
  ack.mutable_topic()->set_name("T");
  for (int i = 0; i < 5'000; ++i) ack.add_entries()->set_receipt_handle(std::string(rnd().below(200), 'h'));
  const v2::AckMessageResponse acked = run(core().ack_message(std::move(ack)));
  expect_status(acked.status(), "5,000 garbage handles");
  EXPECT_NE(acked.status().code(), v2::OK);

  v2::TelemetryCommand settings;
  settings.mutable_settings()->mutable_publishing();
  for (int i = 0; i < 5'000; ++i) settings.mutable_settings()->mutable_publishing()->add_topics()->set_name("P" + std::to_string(i));
  std::optional<v2::TelemetryCommand> answer = core().telemetry(settings, who);
  ASSERT_TRUE(answer.has_value());
  expect_status(answer->status(), "5,000 published topics");
}

}  // namespace
}  // namespace ferry::proxy
