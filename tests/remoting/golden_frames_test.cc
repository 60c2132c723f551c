// Golden bytes: the frames of frames.jsonl (made independently of Ferry) decode to exactly the
// fields the vector lists; the binary-header frame re-encodes byte for byte; the JSON frames
// re-encode to bytes that decode to the same command.
#include <gtest/gtest.h>

#include "remoting/frame_codec.h"
#include "remoting/header/send_message_header.h"
#include "remoting/request_code.h"
#include "remoting/response_code.h"
#include "tests/remoting/vectors.h"

namespace ferry::remoting {
namespace {

using testing::bytes_to_hex;
using testing::hex_to_bytes;
using testing::to_bytes;
using testing::to_string;

class GoldenFrames : public ::testing::Test {
 protected:
  void SetUp() override {
    lines_ = testing::load_jsonl("frames.jsonl");
    ASSERT_EQ(lines_.size(), 3u) << "frames.jsonl should hold the JSON request, the binary "
                                    "request and the JSON reply";
  }

  // Checks every field of `cmd` against vector line `v`.
  static void expect_fields(const RemotingCommand& cmd, const rapidjson::Value& v) {
    EXPECT_EQ(static_cast<int>(cmd.serialize_type), v["serializeType"].GetInt());
    EXPECT_EQ(cmd.code, v["code"].GetInt());
    EXPECT_EQ(cmd.opaque, v["opaque"].GetInt());
    EXPECT_EQ(cmd.flag, v["flag"].GetInt());
    EXPECT_EQ(language_name(cmd.language), v["language"].GetString());
    EXPECT_EQ(cmd.version, v["version"].GetInt());
    EXPECT_FALSE(cmd.remark.has_value());
    ExtFields expected;
    const rapidjson::Value& fields = v["extFields"];
    for (auto it = fields.MemberBegin(); it != fields.MemberEnd(); ++it) {
      expected.set(it->name.GetString(), it->value.GetString());
    }
    EXPECT_EQ(cmd.ext_fields, expected) << "same fields in the same order";
    EXPECT_EQ(to_string(cmd.body), v["bodyUtf8"].GetString());
  }

  std::vector<rapidjson::Document> lines_;
};

TEST_F(GoldenFrames, JsonRequestDecodesToTheListedFields) {
  auto cmd = decode_frame(hex_to_bytes(lines_[0]["frameHex"].GetString()));
  ASSERT_TRUE(cmd.ok()) << cmd.error().to_string();
  EXPECT_EQ(cmd->serialize_type, SerializeType::json);
  expect_fields(*cmd, lines_[0]);
  EXPECT_EQ(cmd->code, request_code::SEND_MESSAGE_V2);
  EXPECT_EQ(*cmd->ext_fields.find("i"), std::string("TAGS\x01TagA\x02KEYS\x01k0"));
  EXPECT_FALSE(cmd->is_response());
  EXPECT_FALSE(cmd->is_oneway());
}

TEST_F(GoldenFrames, BinaryRequestDecodesToTheListedFields) {
  auto cmd = decode_frame(hex_to_bytes(lines_[1]["frameHex"].GetString()));
  ASSERT_TRUE(cmd.ok()) << cmd.error().to_string();
  EXPECT_EQ(cmd->serialize_type, SerializeType::rocketmq);
  expect_fields(*cmd, lines_[1]);
}

TEST_F(GoldenFrames, JsonReplyDecodesToTheListedFields) {
  auto cmd = decode_frame(hex_to_bytes(lines_[2]["frameHex"].GetString()));
  ASSERT_TRUE(cmd.ok()) << cmd.error().to_string();
  expect_fields(*cmd, lines_[2]);
  EXPECT_TRUE(cmd->is_response());
  EXPECT_EQ(cmd->code, response_code::SUCCESS);
  auto reply = SendMessageResponseHeader::from_fields(cmd->ext_fields);
  ASSERT_TRUE(reply.ok()) << reply.error().to_string();
  EXPECT_EQ(reply->msg_id, "C0A8000700002A9F0000000000000000");
  EXPECT_EQ(reply->queue_id, QueueId(3));
  EXPECT_EQ(reply->queue_offset, QueueOffset(0));
  EXPECT_FALSE(reply->transaction_id.has_value());
}

TEST_F(GoldenFrames, BinaryRequestReencodesByteForByte) {
  const auto golden = hex_to_bytes(lines_[1]["frameHex"].GetString());
  auto cmd = decode_frame(golden);
  ASSERT_TRUE(cmd.ok()) << cmd.error().to_string();
  auto again = encode_frame(*cmd);
  ASSERT_TRUE(again.ok()) << again.error().to_string();
  EXPECT_EQ(bytes_to_hex(*again), bytes_to_hex(golden));
}

TEST_F(GoldenFrames, BinaryRequestBuiltFromTypedHeaderMatchesTheGoldenBytes) {
  SendMessageRequestHeader h;
  h.producer_group = "PID_X";
  h.topic = "TopicTest";
  h.default_topic = "TBW102";
  h.default_topic_queue_nums = 4;
  h.queue_id = QueueId(3);
  h.sys_flag = 0;
  h.born_timestamp = 1795991228539;
  h.flag = 0;
  h.properties = std::string("TAGS\x01TagA\x02KEYS\x01k0");
  h.reconsume_times = 0;
  h.unit_mode = false;
  h.max_reconsume_times = 16;
  h.batch = false;
  RemotingCommand cmd = make_request(request_code::SEND_MESSAGE_V2, 26, SerializeType::rocketmq);
  cmd.version = 407;
  cmd.ext_fields = h.to_fields_v2();
  cmd.body = to_bytes("hello");
  auto frame = encode_frame(cmd);
  ASSERT_TRUE(frame.ok()) << frame.error().to_string();
  EXPECT_EQ(bytes_to_hex(*frame), lines_[1]["frameHex"].GetString());
}

TEST_F(GoldenFrames, JsonFramesReencodeToEqualCommands) {
  for (std::size_t i : {0u, 2u}) {
    auto cmd = decode_frame(hex_to_bytes(lines_[i]["frameHex"].GetString()));
    ASSERT_TRUE(cmd.ok()) << cmd.error().to_string();
    auto again = encode_frame(*cmd);
    ASSERT_TRUE(again.ok()) << again.error().to_string();
    auto back = decode_frame(*again);
    ASSERT_TRUE(back.ok()) << back.error().to_string();
    EXPECT_EQ(*back, *cmd) << "line " << i;
    expect_fields(*back, lines_[i]);
  }
}

// Not required by the format (JSON allows any key order and spacing), but Ferry's writer is
// meant to produce the reference text exactly; this pins it.
TEST_F(GoldenFrames, JsonWriterReproducesTheReferenceBytes) {
  for (std::size_t i : {0u, 2u}) {
    const auto golden = hex_to_bytes(lines_[i]["frameHex"].GetString());
    auto cmd = decode_frame(golden);
    ASSERT_TRUE(cmd.ok()) << cmd.error().to_string();
    auto again = encode_frame(*cmd);
    ASSERT_TRUE(again.ok()) << again.error().to_string();
    EXPECT_EQ(to_string(*again), to_string(golden)) << "line " << i;
  }
}

TEST_F(GoldenFrames, JsonAndBinaryRequestsCarryTheSameCommand) {
  auto json = decode_frame(hex_to_bytes(lines_[0]["frameHex"].GetString()));
  auto binary = decode_frame(hex_to_bytes(lines_[1]["frameHex"].GetString()));
  ASSERT_TRUE(json.ok() && binary.ok());
  binary->serialize_type = SerializeType::json;
  EXPECT_EQ(*json, *binary);

  auto h = SendMessageRequestHeader::from_request(json->code, json->ext_fields);
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  EXPECT_EQ(h->producer_group, "PID_X");
  EXPECT_EQ(h->topic, "TopicTest");
  EXPECT_EQ(h->default_topic, "TBW102");
  EXPECT_EQ(h->default_topic_queue_nums, 4);
  EXPECT_EQ(h->queue_id, QueueId(3));
  EXPECT_EQ(h->born_timestamp, 1795991228539);
  EXPECT_EQ(h->max_reconsume_times, 16);
  EXPECT_EQ(h->reconsume_times, 0);
  EXPECT_FALSE(h->batch);
  EXPECT_FALSE(h->unit_mode);
  EXPECT_EQ(h->to_fields_v2(), json->ext_fields) << "V2 writer keeps RocketMQ's field order";
}

}  // namespace
}  // namespace ferry::remoting

namespace ferry::remoting {
namespace {

// The worked example of docs/remoting-format.md.
TEST(DocWorkedExample, RouteQueryInBothForms) {
  RemotingCommand c = make_request(request_code::GET_ROUTEINFO_BY_TOPIC, 1, SerializeType::rocketmq);
  c.ext_fields.set("topic", "T");
  auto binary = encode_frame(c);
  ASSERT_TRUE(binary.ok());
  EXPECT_EQ(bytes_to_hex(*binary),
            "00000025" "01000021" "0069" "00" "0197" "00000001" "00000000" "00000000"
            "0000000c" "0005" "746f706963" "00000001" "54");
  c.serialize_type = SerializeType::json;
  auto json = encode_frame(c);
  ASSERT_TRUE(json.ok());
  const std::string text = R"({"code":105,"language":"JAVA","version":407,"opaque":1,"flag":0,)"
                           R"("remark":null,"extFields":{"topic":"T"}})";
  ASSERT_EQ(text.size(), 104u);
  EXPECT_EQ(bytes_to_hex(*json).substr(0, 16), "0000006c00000068");
  EXPECT_EQ(to_string(*json).substr(8), text);
}

}  // namespace
}  // namespace ferry::remoting
