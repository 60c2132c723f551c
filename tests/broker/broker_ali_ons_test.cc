// The requests the ali-ons 3.12.0 client sent (tests/vectors/client_requests_ali_ons.jsonl,
// decoded from their recorded JSON frames) replayed against a broker, each reply checked the way
// ali-ons reads it (its lib/protocol/command/remoting_command.js, mq_client_api.js and
// message/message_decoder.js):
//   * it reads the whole second int of a frame as the header length and parses the header as
//     JSON, so every reply to its JSON requests must be a JSON frame;
//   * it reads the reply's header values with Number(...): decimal text;
//   * it sends UPDATE_CONSUMER_OFFSET as a request (flag 0) and ignores the reply;
//   * it reads nextBeginOffset, minOffset, maxOffset and suggestWhichBrokerId from every pull reply
//     it does not throw on (0, 19, 20, 21);
//   * it decodes stored messages with 4-byte IPv4 hosts and a 1-byte topic length;
//   * it asks the route of %RETRY%{group} right after its first heartbeat;
//   * a new group starts where QUERY_CONSUMER_OFFSET says: 0 for a queue whose min offset is 0.
// tests/interop runs the client itself against the daemons; this is the offline half.
#include "remoting/body/consumer_id_list.h"
#include "remoting/frame_decoder.h"
#include "tests/broker/broker_fixture.h"
#include "tests/remoting/vectors.h"
#include "tests/support/broker_inspector.h"

using ferry::testing::BrokerInspector;

namespace ferry::broker::testing {
namespace {

using namespace std::chrono_literals;

class AliOnsRequests : public BrokerTest {
 protected:
  void SetUp() override {
    for (const auto& line : remoting::testing::load_jsonl("client_requests_ali_ons.jsonl")) {
      std::vector<std::uint8_t> body;
      if (line.HasMember("bodyJson")) body = remoting::testing::to_bytes(remoting::testing::write_json(line["bodyJson"]));
      remoting::FrameDecoder decoder;
      ASSERT_TRUE(decoder.feed(remoting::testing::json_frame_from_fields(line, body)).ok());
      auto cmd = decoder.next();
      ASSERT_TRUE(cmd.ok()) << cmd.error().to_string();
      ASSERT_TRUE(cmd->has_value());
      recorded_.push_back(std::move(**cmd));
    }
    ASSERT_EQ(recorded_.size(), 9u);
  }

  // The recorded request with this opaque (the replay gives it a fresh one).
  RemotingCommand recorded(std::int32_t opaque) {
    for (const auto& c : recorded_) {
      if (c.opaque == opaque) return c;
    }
    ADD_FAILURE() << "no recorded request with opaque " << opaque;
    return {};
  }

  // Sends it and checks the reply's frame as ali-ons reads any reply.
  Call replay(std::int32_t opaque, Duration timeout = 5s) {
    RemotingCommand req = recorded(opaque);
    EXPECT_EQ(req.serialize_type, remoting::SerializeType::json);
    EXPECT_EQ(req.flag, 0) << "ali-ons sends every request two-way, UPDATE_CONSUMER_OFFSET included";
    Call c = req.code == rc::PULL_MESSAGE ? call_pull(req, timeout) : call(req, timeout);
    expect_json_reply(c, opaque);
    return c;
  }

  static void expect_json_reply(const Call& c, std::int32_t opaque) {
    EXPECT_TRUE(c.ok) << "recorded request " << opaque << ": no reply: " << c.error;
    EXPECT_EQ(c.reply.serialize_type, remoting::SerializeType::json)
        << "recorded request " << opaque << " (code " << c.reply.code << "): the reply is not a JSON frame; "
        << "ali-ons would read its whole marked header length as the JSON length";
    EXPECT_TRUE(c.reply.is_response()) << "recorded request " << opaque;
  }

  static bool is_decimal(const std::string& s) {
    if (s.empty()) return false;
    std::size_t i = s[0] == '-' ? 1 : 0;
    if (i == s.size()) return false;
    for (; i < s.size(); ++i) {
      if (s[i] < '0' || s[i] > '9') return false;
    }
    return true;
  }

  static void expect_pull_fields(const Call& c) {
    for (const char* f : {"nextBeginOffset", "minOffset", "maxOffset", "suggestWhichBrokerId"}) {
      EXPECT_TRUE(is_decimal(c.field(f))) << "pull reply " << c.reply.code << " (" << c.remark() << "): " << f << " = "
                                          << c.field(f);
    }
  }

  void create_topic_test() {
    Call t = call(create_topic_request(topic_header("TopicTest", 4)));
    ASSERT_EQ(t.reply.code, code::SUCCESS) << t.remark();
  }

  std::vector<RemotingCommand> recorded_;
};

// ali-ons' message_decoder.js innerDecode over a pull body: fixed 4-byte hosts, a 1-byte topic
// length, a 2-byte properties length. The messages' topics, bodies and sysFlags; `problem` says
// where a record does not end where its TOTALSIZE says.
struct AliOnsView {
  std::vector<std::string> topics;
  std::vector<std::string> bodies;
  std::vector<std::int32_t> sys_flags;
  std::string problem;
};

AliOnsView decode_as_ali_ons(const std::vector<std::uint8_t>& b) {
  AliOnsView out;
  std::size_t p = 0;
  auto i32 = [&](std::size_t at) {
    return static_cast<std::int32_t>((std::uint32_t{b[at]} << 24) | (std::uint32_t{b[at + 1]} << 16) |
                                     (std::uint32_t{b[at + 2]} << 8) | std::uint32_t{b[at + 3]});
  };
  while (p < b.size()) {
    if (b.size() - p < 4) {
      out.problem = "a torn record at byte " + std::to_string(p);
      return out;
    }
    const std::int32_t total = i32(p);
    if (total <= 0 || static_cast<std::size_t>(total) > b.size() - p) {
      out.problem = "TOTALSIZE " + std::to_string(total) + " at byte " + std::to_string(p);
      return out;
    }
    std::size_t q = p + 4 + 4 + 4 + 4 + 4 + 8 + 8;  // size, magic, crc, queueId, flag, queueOffset, phyOffset
    out.sys_flags.push_back(i32(q));
    q += 4 + 8 + 8 + 8 + 8 + 4 + 8;  // sysFlag, born ts, born host 4+4, store ts, store host 4+4, reconsume, prepared
    const std::int32_t body_len = i32(q);
    q += 4;
    out.bodies.emplace_back(b.begin() + static_cast<std::ptrdiff_t>(q), b.begin() + static_cast<std::ptrdiff_t>(q + static_cast<std::size_t>(body_len)));
    q += static_cast<std::size_t>(body_len);
    const std::size_t topic_len = b[q];
    q += 1;
    out.topics.emplace_back(b.begin() + static_cast<std::ptrdiff_t>(q), b.begin() + static_cast<std::ptrdiff_t>(q + topic_len));
    q += topic_len;
    const std::size_t props_len = (std::size_t{b[q]} << 8) | b[q + 1];
    q += 2 + props_len;
    if (q != p + static_cast<std::size_t>(total)) {
      out.problem = "the record at byte " + std::to_string(p) + " ends at " + std::to_string(q - p) +
                    " as ali-ons reads it, TOTALSIZE says " + std::to_string(total);
      return out;
    }
    p = q;
  }
  return out;
}

TEST_F(AliOnsRequests, TheRecordedSessionGetsRepliesAliOnsCanRead) {
  boot();
  create_topic_test();

  // Heartbeat: the group, its subscription and %RETRY%GID_NODE_SMOKE, whose route ali-ons asks
  // for next: the broker registers it with the NameServers at once, not at the next period.
  const std::size_t registrations_before = names_->registrations.size();
  ASSERT_EQ(replay(2).reply.code, code::SUCCESS);
  ASSERT_NE(BrokerInspector(broker()).topics().find("%RETRY%GID_NODE_SMOKE"), nullptr);
  run_for(3s);
  bool registered = false;
  for (std::size_t i = registrations_before; i < names_->registrations.size(); ++i) {
    registered |= names_->registrations[i].topic_config_serialize_wrapper.topic_config_table.contains("%RETRY%GID_NODE_SMOKE");
  }
  EXPECT_TRUE(registered) << "no registration within 3 s of the heartbeat carried %RETRY%GID_NODE_SMOKE ("
                          << names_->registrations.size() - registrations_before << " registrations)";

  Call list = replay(3);
  ASSERT_EQ(list.reply.code, code::SUCCESS) << list.remark();
  auto ids = remoting::body::ConsumerIdList::decode(list.reply.body);
  ASSERT_TRUE(ids.ok()) << ids.error().to_string();
  EXPECT_EQ(ids->consumer_id_list, std::vector<std::string>{"192.0.2.2@5831"});

  // A new group, queue 0 empty (min offset 0): offset 0, so ali-ons' default
  // CONSUME_FROM_LAST_OFFSET starts at the first message too.
  Call q = replay(4);
  ASSERT_EQ(q.reply.code, code::SUCCESS) << q.remark();
  EXPECT_EQ(q.field("offset"), "0");

  // The send (queue 3, raw numbers and "k":false in its header).
  Call s = replay(26);
  ASSERT_EQ(s.reply.code, code::SUCCESS) << s.remark();
  EXPECT_EQ(s.field("queueId"), "3");
  EXPECT_EQ(s.field("queueOffset"), "0");
  EXPECT_EQ(s.field("msgId").size(), 32u) << s.field("msgId");

  // The pull of queue 0 once it holds a message: found, the four fields, a body ali-ons decodes.
  Msg m;
  m.topic = "TopicTest";
  m.body = "for ali-ons";
  m.tag("TagA").keys("k0");
  ASSERT_EQ(send(m).reply.code, code::SUCCESS);
  Call found = replay(6);
  ASSERT_EQ(found.reply.code, code::SUCCESS) << found.remark();
  expect_pull_fields(found);
  EXPECT_EQ(found.field("nextBeginOffset"), "1");
  EXPECT_EQ(found.field("minOffset"), "0");
  EXPECT_EQ(found.field("maxOffset"), "1");
  const AliOnsView view = decode_as_ali_ons(found.reply.body);
  ASSERT_EQ(view.problem, "");
  ASSERT_EQ(view.bodies.size(), 1u);
  EXPECT_EQ(view.bodies[0], "for ali-ons");
  EXPECT_EQ(view.topics[0], "TopicTest");
  EXPECT_EQ(view.sys_flags[0] & 0x30, 0) << "an IPv6 born or store host, which ali-ons cannot decode";

  // The same pull at the queue's end (held, then answered) and beyond it: 19 and 21, each with
  // the four fields ali-ons reads.
  RemotingCommand at_end = recorded(6);
  at_end.ext_fields.set("queueOffset", "1");
  Call held = call_pull(at_end, 30s);
  expect_json_reply(held, 6);
  EXPECT_EQ(held.reply.code, code::PULL_NOT_FOUND) << held.remark();
  expect_pull_fields(held);
  EXPECT_EQ(held.field("nextBeginOffset"), "1");
  RemotingCommand beyond = recorded(6);
  beyond.ext_fields.set("queueOffset", "5");
  Call moved = call_pull(beyond, 30s);
  expect_json_reply(moved, 6);
  EXPECT_EQ(moved.reply.code, code::PULL_OFFSET_MOVED) << moved.remark();
  expect_pull_fields(moved);
  EXPECT_EQ(moved.field("nextBeginOffset"), "1");

  // UPDATE_CONSUMER_OFFSET as ali-ons sends it (flag 0): stored, and a reply it may ignore.
  ASSERT_EQ(replay(49).reply.code, code::SUCCESS);
  Call after = replay(4);
  ASSERT_EQ(after.reply.code, code::SUCCESS) << after.remark();
  EXPECT_EQ(after.field("offset"), "3");

  EXPECT_EQ(replay(43).reply.code, code::SUCCESS);
  EXPECT_EQ(replay(57).reply.code, code::SUCCESS);
  EXPECT_EQ(BrokerInspector(broker()).consumer_services().consumers().registrations(), 0u) << "the consumer did not unregister";
}

}  // namespace
}  // namespace ferry::broker::testing
