// SendMessage on its way to a broker (src/proxy/v2_send.h): the remoting properties a v2 message
// becomes, each refusal with the code and message RocketMQ 5.3's proxy answers, the topic message
// type check, and the FIFO queue choice (Guava's consistentHash, checked against Guava's own
// golden values).
#include "proxy/v2_send.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <string>

namespace ferry::proxy {
namespace {

constexpr WallMs kNow = 1'700'000'000'000;

v2::Message message(std::string topic = "T", std::string body = "hello") {
  v2::Message m;
  m.mutable_topic()->set_name(topic);
  m.set_body(body);
  m.mutable_system_properties()->set_message_id("01C0A80001000000000000000000000001");
  return m;
}

v2::SendMessageRequest request(std::initializer_list<v2::Message> ms) {
  v2::SendMessageRequest r;
  for (const v2::Message& m : ms) *r.add_messages() = m;
  return r;
}

PreparedSend sent(V2Result<PreparedSend> r) {
  if (const Refusal* refused = refusal(r)) {
    ADD_FAILURE() << refused->code << " " << refused->message;
    return {};
  }
  return std::move(std::get<PreparedSend>(r));
}

Refusal refused(const V2Result<PreparedSend>& r) {
  const Refusal* x = refusal(r);
  if (x == nullptr) {
    ADD_FAILURE() << "sent, expected a refusal";
    return {};
  }
  return *x;
}

std::string prop(const Message& m, std::string_view key) {
  auto v = m.properties.get(key);
  return v ? std::string(*v) : "<absent>";
}

TEST(V2Send, AMessageBecomesRocketMqsRemotingProperties) {
  v2::Message m = message();
  v2::SystemProperties& sp = *m.mutable_system_properties();
  sp.set_tag("TagA");
  sp.add_keys("order-1");
  sp.add_keys("user-7");
  sp.set_born_host("client-host");
  sp.mutable_born_timestamp()->set_seconds(1'700'000'000);
  sp.mutable_born_timestamp()->set_nanos(123'000'000);
  sp.set_trace_context("00-abc-01");
  (*m.mutable_user_properties())["b"] = "2";
  (*m.mutable_user_properties())["a"] = "1";
  const PreparedSend p = sent(prepare_send(request({m}), SendLimits{}, kNow, "10.0.0.7:51234"));
  ASSERT_EQ(p.messages.size(), 1u);
  const Message& out = p.messages[0];
  EXPECT_EQ(out.topic, "T");
  EXPECT_EQ(std::string(out.body.begin(), out.body.end()), "hello");
  EXPECT_EQ(prop(out, "TAGS"), "TagA");
  EXPECT_EQ(prop(out, "KEYS"), "order-1 user-7");
  EXPECT_EQ(prop(out, "UNIQ_KEY"), "01C0A80001000000000000000000000001");
  EXPECT_EQ(prop(out, "PGROUP"), "T") << "the proxy's producer group is the topic";
  EXPECT_EQ(prop(out, "RECONSUME_TIME"), "0");
  EXPECT_EQ(prop(out, "__BORNHOST"), "client-host");
  EXPECT_EQ(prop(out, "BORN_TIMESTAMP"), "1700000000123");
  EXPECT_EQ(prop(out, "TRACE_CONTEXT"), "00-abc-01");
  EXPECT_EQ(prop(out, "a"), "1");
  EXPECT_EQ(prop(out, "b"), "2");
  EXPECT_EQ(prop(out, "TRAN_MSG"), "<absent>");
  EXPECT_EQ(prop(out, "__SHARDINGKEY"), "<absent>");
  EXPECT_EQ(p.type, TopicMessageType::normal);
  EXPECT_FALSE(p.message_group);
  // User properties come first, in name order, whatever order the protobuf map kept.
  EXPECT_EQ(out.properties.begin()->first, "a");
}

TEST(V2Send, WithoutATagTagsIsEmptyAndTheBornHostIsThePeer) {
  const PreparedSend p = sent(prepare_send(request({message()}), SendLimits{}, kNow, "10.0.0.7:51234"));
  EXPECT_EQ(prop(p.messages[0], "TAGS"), "");
  EXPECT_EQ(prop(p.messages[0], "KEYS"), "<absent>");
  EXPECT_EQ(prop(p.messages[0], "__BORNHOST"), "10.0.0.7:51234");
}

TEST(V2Send, FifoDelayAndTransactionMessages) {
  v2::Message fifo = message();
  fifo.mutable_system_properties()->set_message_group("order-42");
  const PreparedSend f = sent(prepare_send(request({fifo}), SendLimits{}, kNow, "p"));
  EXPECT_EQ(prop(f.messages[0], "__SHARDINGKEY"), "order-42");
  EXPECT_EQ(f.type, TopicMessageType::fifo);
  EXPECT_EQ(f.message_group, std::optional<std::string>("order-42"));

  v2::Message delay = message();
  delay.mutable_system_properties()->mutable_delivery_timestamp()->set_seconds(kNow / 1000 + 60);
  const PreparedSend d = sent(prepare_send(request({delay}), SendLimits{}, kNow, "p"));
  EXPECT_EQ(prop(d.messages[0], "TIMER_DELIVER_MS"), std::to_string(kNow + 60'000));
  EXPECT_EQ(d.type, TopicMessageType::delay);

  v2::Message tx = message();
  tx.mutable_system_properties()->set_message_type(v2::TRANSACTION);
  tx.mutable_system_properties()->mutable_orphaned_transaction_recovery_duration()->set_seconds(30);
  const PreparedSend t = sent(prepare_send(request({tx}), SendLimits{}, kNow, "p"));
  EXPECT_EQ(prop(t.messages[0], "TRAN_MSG"), "true");
  EXPECT_EQ(prop(t.messages[0], "CHECK_IMMUNITY_TIME_IN_SECONDS"), "30");
  EXPECT_EQ(t.type, TopicMessageType::transaction);
}

TEST(V2Send, RefusalsAreRocketMqsCodesAndMessages) {
  EXPECT_EQ(refused(prepare_send(v2::SendMessageRequest{}, SendLimits{}, kNow, "p")).code, v2::MESSAGE_CORRUPTED);
  Refusal r = refused(prepare_send(request({message("bad topic")}), SendLimits{}, kNow, "p"));
  EXPECT_EQ(r.code, v2::ILLEGAL_TOPIC);
  EXPECT_EQ(refused(prepare_send(request({message("TBW102")}), SendLimits{}, kNow, "p")).code, v2::ILLEGAL_TOPIC);
  EXPECT_EQ(refused(prepare_send(request({message("T"), message("U")}), SendLimits{}, kNow, "p")).message,
            "topic in message is not same");

  r = refused(prepare_send(request({message("T", "")}), SendLimits{}, kNow, "p"));
  EXPECT_EQ(r.code, v2::MESSAGE_BODY_EMPTY);
  r = refused(prepare_send(request({message("T", std::string(4 * 1024 * 1024 + 1, 'x'))}), SendLimits{}, kNow, "p"));
  EXPECT_EQ(r.code, v2::MESSAGE_BODY_TOO_LARGE);
  EXPECT_EQ(r.message, "message body cannot exceed the max 4194304");
  EXPECT_TRUE(std::holds_alternative<PreparedSend>(
      prepare_send(request({message("T", std::string(4 * 1024 * 1024, 'x'))}), SendLimits{}, kNow, "p")));

  v2::Message m = message();
  (*m.mutable_user_properties())["UNIQ_KEY"] = "mine";
  r = refused(prepare_send(request({m}), SendLimits{}, kNow, "p"));
  EXPECT_EQ(r.code, v2::ILLEGAL_MESSAGE_PROPERTY_KEY);
  EXPECT_EQ(r.message, "property is used by system: UNIQ_KEY");
  m = message();
  (*m.mutable_user_properties())["__SHARDINGKEY"] = "allowed";  // not in RocketMQ's reserved set
  EXPECT_TRUE(std::holds_alternative<PreparedSend>(prepare_send(request({m}), SendLimits{}, kNow, "p")));
  m = message();
  (*m.mutable_user_properties())["k"] = std::string("a\x01", 2);
  EXPECT_EQ(refused(prepare_send(request({m}), SendLimits{}, kNow, "p")).code, v2::ILLEGAL_MESSAGE_PROPERTY_KEY);
  m = message();
  (*m.mutable_user_properties())["k"] = "\xc2\x85";  // U+0085, a C1 control
  EXPECT_EQ(refused(prepare_send(request({m}), SendLimits{}, kNow, "p")).code, v2::ILLEGAL_MESSAGE_PROPERTY_KEY);
  m = message();
  for (int i = 0; i < 129; ++i) (*m.mutable_user_properties())["k" + std::to_string(i)] = "v";
  EXPECT_EQ(refused(prepare_send(request({m}), SendLimits{}, kNow, "p")).code, v2::MESSAGE_PROPERTIES_TOO_LARGE);
  m = message();
  (*m.mutable_user_properties())["big"] = std::string(16 * 1024, 'v');
  r = refused(prepare_send(request({m}), SendLimits{}, kNow, "p"));
  EXPECT_EQ(r.code, v2::MESSAGE_PROPERTIES_TOO_LARGE);
  EXPECT_EQ(r.message, "the total size of user property is too large, max is 16384");

  m = message();
  m.mutable_system_properties()->set_tag("A|B");
  EXPECT_EQ(refused(prepare_send(request({m}), SendLimits{}, kNow, "p")).code, v2::ILLEGAL_MESSAGE_TAG);
  m = message();
  m.mutable_system_properties()->set_tag("  ");
  EXPECT_EQ(refused(prepare_send(request({m}), SendLimits{}, kNow, "p")).code, v2::ILLEGAL_MESSAGE_TAG);
  m = message();
  m.mutable_system_properties()->add_keys(" ");
  EXPECT_EQ(refused(prepare_send(request({m}), SendLimits{}, kNow, "p")).code, v2::ILLEGAL_MESSAGE_KEY);
  m = message();
  m.mutable_system_properties()->set_message_id("");
  r = refused(prepare_send(request({m}), SendLimits{}, kNow, "p"));
  EXPECT_EQ(r.code, v2::ILLEGAL_MESSAGE_ID);
  EXPECT_EQ(r.message, "message id cannot be empty");

  m = message();
  m.mutable_system_properties()->mutable_delivery_timestamp()->set_seconds(kNow / 1000 + 86'400 + 1);
  r = refused(prepare_send(request({m}), SendLimits{}, kNow, "p"));
  EXPECT_EQ(r.code, v2::ILLEGAL_DELIVERY_TIME);
  EXPECT_EQ(r.message, "the max delay time of message is too large, max is 86400000");
  m = message();
  m.mutable_system_properties()->mutable_delivery_timestamp()->set_seconds(kNow / 1000 - 60);  // past: accepted
  EXPECT_TRUE(std::holds_alternative<PreparedSend>(prepare_send(request({m}), SendLimits{}, kNow, "p")));

  m = message();
  m.mutable_system_properties()->set_message_group(std::string(64, 'g'));
  r = refused(prepare_send(request({m}), SendLimits{}, kNow, "p"));
  EXPECT_EQ(r.code, v2::ILLEGAL_MESSAGE_GROUP);
  EXPECT_EQ(r.message, "message group exceed the max size 64");
  m.mutable_system_properties()->set_message_group(std::string(63, 'g'));
  EXPECT_TRUE(std::holds_alternative<PreparedSend>(prepare_send(request({m}), SendLimits{}, kNow, "p")));

  m = message();
  m.mutable_system_properties()->set_message_type(v2::TRANSACTION);
  m.mutable_system_properties()->mutable_orphaned_transaction_recovery_duration()->set_seconds(3601);
  EXPECT_EQ(refused(prepare_send(request({m}), SendLimits{}, kNow, "p")).code, v2::BAD_REQUEST);
}

std::string gzip(const std::string& in) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(in.size() + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

TEST(V2Send, AGzipBodyIsInflatedAndAnInvalidOneRefused) {
  v2::Message m = message("T", gzip(std::string(10'000, 'z')));
  m.mutable_system_properties()->set_body_encoding(v2::GZIP);
  const PreparedSend p = sent(prepare_send(request({m}), SendLimits{}, kNow, "p"));
  EXPECT_EQ(p.messages[0].body.size(), 10'000u);
  m.set_body("not gzip");
  EXPECT_EQ(refused(prepare_send(request({m}), SendLimits{}, kNow, "p")).code, v2::MESSAGE_CORRUPTED);
  // A small stream that inflates past the limit is refused, not inflated whole.
  SendLimits small;
  small.max_body_bytes = 1'000;
  m.set_body(gzip(std::string(100'000, 'z')));
  EXPECT_EQ(refused(prepare_send(request({m}), small, kNow, "p")).code, v2::MESSAGE_CORRUPTED);
}

TEST(V2Send, TheTopicMessageTypeCheck) {
  EXPECT_FALSE(check_topic_message_type(TopicMessageType::normal, TopicMessageType::normal));
  EXPECT_FALSE(check_topic_message_type(TopicMessageType::mixed, TopicMessageType::fifo));
  std::optional<Refusal> r = check_topic_message_type(TopicMessageType::normal, TopicMessageType::fifo);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->code, v2::MESSAGE_PROPERTY_CONFLICT_WITH_TYPE);
  EXPECT_EQ(r->message, "TopicMessageType validate failed, the expected type is NORMAL, but actual type is FIFO");
}

TEST(V2Send, FifoQueuesAsGuavasConsistentHashPicksThem) {
  // Guava's own golden values (HashingTest, "implementations across languages are equivalent").
  const int golden100[] = {0, 55, 62, 8, 45, 59, 86, 97, 82, 59, 73, 37, 17, 56, 86, 21, 90, 37, 38, 83};
  for (int i = 0; i < 20; ++i) EXPECT_EQ(guava_consistent_hash(i, 100), golden100[i]) << i;
  EXPECT_EQ(guava_consistent_hash(10863919174838991LL, 11), 6);
  EXPECT_EQ(guava_consistent_hash(2016238256797177309LL, 11), 3);
  EXPECT_EQ(guava_consistent_hash(1673758223894951030LL, 11), 5);
  EXPECT_EQ(guava_consistent_hash(2, 100001), 80343);
  EXPECT_EQ(guava_consistent_hash(2201, 100001), 22152);
  EXPECT_EQ(guava_consistent_hash(2202, 100001), 15018);
  // A group's queue: its Java hashCode ("a".hashCode() = 97; a negative one widens with its sign).
  EXPECT_EQ(select_fifo_queue("a", 8), static_cast<std::size_t>(guava_consistent_hash(97, 8)));
  EXPECT_LT(select_fifo_queue("order-with-a-negative-hash-code-xyz", 8), 8u);
  EXPECT_EQ(select_fifo_queue("any", 1), 0u);
}

}  // namespace
}  // namespace ferry::proxy
