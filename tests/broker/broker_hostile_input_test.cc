// Hostile and oversized requests (issue "Hardening"): each is answered with a clear code and
// remark, costs the broker no more than a bound, stores nothing, and the broker keeps serving.
#include <fmt/format.h>

#include "common/msg_id.h"
#include "remoting/header/consumer_offset_header.h"
#include "remoting/header/topic_admin_header.h"
#include "tests/broker/broker_fixture.h"
#include "tests/support/broker_inspector.h"

using ferry::testing::BrokerInspector;

namespace ferry::broker::testing {
namespace {

// `count` distinct short keys with empty values: "k0\x01\x02k1\x01\x02...".
std::string many_keys(std::size_t count) {
  std::string text;
  for (std::size_t i = 0; i < count; ++i) text += fmt::format("k{}\x01\x02", i);
  return text;
}

RemotingCommand send_with_properties_text(std::string text, std::int32_t request_code) {
  Msg m;
  m.properties_text = std::move(text);
  return send_request(m, request_code);
}

TEST_F(BrokerTest, PropertiesOverTheRecordLimitAreRefusedBeforeTheyAreParsed) {
  boot();
  std::string big = many_keys(5'000);  // over the record's 32,767 bytes, within a header's 256 KiB
  ASSERT_GT(big.size(), std::size_t{32'767});
  const std::string expected = fmt::format("properties of {} bytes (max 32767)", big.size());
  for (std::int32_t request_code : {rc::SEND_MESSAGE, rc::SEND_MESSAGE_V2}) {
    Call c = call(send_with_properties_text(big, request_code));
    EXPECT_EQ(c.reply.code, code::MESSAGE_ILLEGAL) << "request code " << request_code << ": " << c.remark();
    EXPECT_EQ(c.remark(), expected) << "request code " << request_code;
  }
  // The same bound on a batch's own properties field.
  RemotingCommand batch = batch_request({Msg{}, Msg{}});
  remoting::SendMessageRequestHeader h = send_header(Msg{});
  h.batch = true;
  h.properties = big;
  batch.ext_fields = h.to_fields_v2();
  Call b = call(std::move(batch));
  EXPECT_EQ(b.reply.code, code::MESSAGE_ILLEGAL) << b.remark();
  EXPECT_EQ(b.remark(), expected);

  // Over 1 MiB of keys makes a header past what any header may be (frame_format.h): its length
  // closes the connection before a byte of it is parsed, so no reply comes.
  std::string huge = many_keys(140'000);
  ASSERT_GT(huge.size(), std::size_t{1} << 20);
  auto closed = cluster().run_task(client_node_,
                                   invoke(client_.get(), addr_, send_with_properties_text(huge, rc::SEND_MESSAGE_V2),
                                          std::chrono::seconds(5)),
                                   std::chrono::seconds(60));
  ASSERT_TRUE(closed.ok()) << closed.report.message;
  EXPECT_FALSE(closed.value->ok) << "a header over the bound was answered: " << closed.value->reply.code;

  // Nothing was stored, and the broker goes on serving.
  Pull p;
  Call empty = pull(p);
  EXPECT_TRUE(messages_of(empty.reply).empty());
  ASSERT_EQ(send(Msg{}).reply.code, code::SUCCESS);
  Call one = pull(p);
  ASSERT_EQ(one.reply.code, code::SUCCESS) << one.remark();
  EXPECT_EQ(messages_of(one.reply).size(), 1u);
}

TEST_F(BrokerTest, ManyKeysWithinTheLimitAreStoredAndReadBackInOrder) {
  boot();
  Msg m;
  for (int i = 0; i < 4'000; ++i) m.set(fmt::format("k{}", i), "v");  // about 31 KB of properties
  std::string text = *encode_properties(m.props);
  ASSERT_LT(text.size(), 32'000u) << "the test's message must fit a record with the broker's CLUSTER";
  ASSERT_EQ(send(m).reply.code, code::SUCCESS);
  Pull p;
  Call c = pull(p);
  ASSERT_EQ(c.reply.code, code::SUCCESS) << c.remark();
  std::vector<MessageExt> got = messages_of(c.reply);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].properties.get("k0"), "v");
  EXPECT_EQ(got[0].properties.get("k3999"), "v");
  EXPECT_EQ(got[0].properties.size(), m.props.size() + 1) << "every key, and the broker's CLUSTER";
}

// VIEW_MESSAGE_BY_ID takes a client-chosen CommitLog offset. Only an offset where a message record
// starts is answered; anywhere else (inside a record, inside a body crafted to look like a record
// head) is refused without copying anything.
TEST_F(BrokerTest, ViewByIdAnswersOnlyAtARecordBoundary) {
  boot();
  auto view_at = [this](std::int64_t offset) { return call(view_request(offset)); };
  // A body that starts like a record head: a size of 1,500 (less than what follows it in the
  // file) and the message magic. A broker trusting the size would copy 1,500 bytes from there.
  std::string forged(2'000, 'x');
  const unsigned char head[] = {0x00, 0x00, 0x05, 0xdc, 0xda, 0xa3, 0x20, 0xa7};
  forged.replace(0, sizeof head, reinterpret_cast<const char*>(head), sizeof head);
  Msg m;
  m.body = forged;
  Call sent = send(m);
  ASSERT_EQ(sent.reply.code, code::SUCCESS) << sent.remark();
  ASSERT_EQ(send(Msg{}).reply.code, code::SUCCESS);
  auto id = decode_offset_msg_id(sent.field("msgId"));
  ASSERT_TRUE(id.ok());
  const std::int64_t record = id->offset.value();

  Call whole = view_at(record);
  ASSERT_EQ(whole.reply.code, code::SUCCESS) << whole.remark();
  auto viewed = messages_of(whole.reply);
  ASSERT_EQ(viewed.size(), 1u);
  EXPECT_EQ(body_text(viewed[0]), forged);
  const std::string bytes(whole.reply.body.begin(), whole.reply.body.end());
  const std::size_t body_at = bytes.find(std::string(reinterpret_cast<const char*>(head), sizeof head));
  ASSERT_NE(body_at, std::string::npos);

  for (std::int64_t inside : {record + 1, record + 4, record + static_cast<std::int64_t>(body_at)}) {
    Call v = view_at(inside);
    EXPECT_EQ(v.reply.code, code::SYSTEM_ERROR) << "offset " << inside << " is inside the record at " << record;
    EXPECT_NE(v.remark().find("no record starts at commit-log offset " + std::to_string(inside)), std::string::npos)
        << v.remark();
    EXPECT_TRUE(v.reply.body.empty()) << v.reply.body.size() << " bytes copied from offset " << inside;
  }
  Call past = view_at(broker().store().max_phy_offset().value() + (1 << 20));
  EXPECT_EQ(past.reply.code, code::SYSTEM_ERROR);
  EXPECT_NE(past.remark().find("outside the log"), std::string::npos) << past.remark();
}


// UPDATE_CONSUMER_OFFSET stores only offsets of real queues under valid names: a client cannot
// grow the offset table (and consumerOffset.json) with made-up topics, groups or queues.
TEST_F(BrokerTest, OffsetCommitsNeedAValidGroupAnExistingTopicAndOneOfItsQueues) {
  boot();
  ASSERT_EQ(send(Msg{}).reply.code, code::SUCCESS);  // topic T exists (auto-created, 4 queues)
  auto update = [this](const std::string& group, const std::string& topic, std::int32_t queue) {
    return call(update_offset_request(group, topic, queue, 1));
  };
  const std::size_t before = broker().offsets().table().size();
  Call no_topic = update("CG", "NoSuchTopic", 0);
  EXPECT_EQ(no_topic.reply.code, code::TOPIC_NOT_EXIST) << no_topic.remark();
  Call long_group = update(std::string(300, 'g'), "T", 0);
  EXPECT_EQ(long_group.reply.code, code::SYSTEM_ERROR);
  EXPECT_NE(long_group.remark().find("300"), std::string::npos) << long_group.remark();
  Call bad_chars = update("CG", "T/../x", 0);
  EXPECT_EQ(bad_chars.reply.code, code::SYSTEM_ERROR) << bad_chars.remark();
  Call no_queue = update("CG", "T", 99);
  EXPECT_EQ(no_queue.reply.code, code::SYSTEM_ERROR);
  EXPECT_NE(no_queue.remark().find("queueId[99] is illegal"), std::string::npos) << no_queue.remark();
  EXPECT_EQ(broker().offsets().table().size(), before) << "nothing was stored";

  Call good = update("CG", "T", 3);
  EXPECT_EQ(good.reply.code, code::SUCCESS) << good.remark();
  EXPECT_EQ(broker().offsets().query("CG", "T", QueueId(3)), QueueOffset(1));
}

// The topic table is bounded: sends to made-up topics cannot grow it (and topics.json) forever.
TEST_F(BrokerTest, TheTopicTableIsBounded) {
  config_.topics_max = 9;
  boot();
  const std::size_t system_topics = BrokerInspector(broker()).topics().table().size();
  ASSERT_EQ(system_topics, 7u) << "the test leaves room for exactly two topics";
  EXPECT_EQ(send(Msg{.topic = "A"}).reply.code, code::SUCCESS);
  EXPECT_EQ(send(Msg{.topic = "B"}).reply.code, code::SUCCESS);
  Call third = send(Msg{.topic = "C"});
  EXPECT_EQ(third.reply.code, code::TOPIC_NOT_EXIST) << third.remark();
  EXPECT_EQ(BrokerInspector(broker()).topics().find("C"), nullptr);
  EXPECT_EQ(send(Msg{.topic = "A"}).reply.code, code::SUCCESS) << "existing topics go on";

  remoting::CreateTopicRequestHeader h = topic_header("D", 1);
  RemotingCommand create = create_topic_request(h);
  Call refused = call(create);
  EXPECT_EQ(refused.reply.code, code::SYSTEM_ERROR);
  EXPECT_NE(refused.remark().find("the topic table is full: 9 topics"), std::string::npos) << refused.remark();
  h.topic = "A";  // replacing an existing topic needs no room
  create.ext_fields = h.to_fields();
  EXPECT_EQ(call(create).reply.code, code::SUCCESS);
  EXPECT_EQ(BrokerInspector(broker()).topics().table().size(), 9u);
}

// A burst of topic changes is persisted in a couple of writes of topics.json, not one full
// re-serialization per change (quadratic in the table), and the file holds every topic after.
TEST_F(BrokerTest, ABurstOfTopicChangesIsPersistedInAFewWrites) {
  boot();
  run_for(std::chrono::seconds(1));
  const std::uint64_t before = BrokerInspector(broker()).topics().background_writes();
  for (int i = 0; i < 500; ++i) {
    TopicConfig t;
    t.topic_name = fmt::format("Burst{}", i);
    t.read_queue_nums = t.write_queue_nums = 1;
    t.perm = 6;
    ASSERT_TRUE(BrokerInspector(broker()).put_topic(t).ok());
  }
  run_for(std::chrono::seconds(2));
  const std::uint64_t writes = BrokerInspector(broker()).topics().background_writes() - before;
  EXPECT_GE(writes, 1u);
  EXPECT_LE(writes, 2u) << "500 changes";
  auto file = node(broker_).disk().open("config/topics.json", {});
  ASSERT_TRUE(file.ok()) << file.error().to_string();
  const std::vector<std::uint8_t>& bytes = *(*file)->data();
  const std::string json(bytes.begin(), bytes.end());
  EXPECT_NE(json.find("\"Burst499\""), std::string::npos) << "the last change is in the file";
}

}  // namespace
}  // namespace ferry::broker::testing
