// Every request recorded from the ali-ons 3.12.0 client (client_requests_ali_ons.jsonl) goes
// through a JSON frame, the stream decoder and the typed header/body a broker or NameServer
// would read. The recorded extFields carry raw JSON numbers and booleans ("queueId":0, "k":false).
#include <gtest/gtest.h>

#include "remoting/body/heartbeat_data.h"
#include "remoting/frame_decoder.h"
#include "remoting/header/client_header.h"
#include "remoting/header/consumer_offset_header.h"
#include "remoting/header/pull_message_header.h"
#include "remoting/header/route_header.h"
#include "remoting/header/send_message_header.h"
#include "remoting/request_code.h"
#include "tests/remoting/vectors.h"

namespace ferry::remoting {
namespace {

class ClientRequests : public ::testing::Test {
 protected:
  void SetUp() override {
    lines_ = testing::load_jsonl("client_requests_ali_ons.jsonl");
    ASSERT_EQ(lines_.size(), 9u);
    // All of them through one decoder, as one connection's byte stream.
    FrameDecoder decoder;
    for (const auto& line : lines_) {
      std::vector<std::uint8_t> body;
      if (line.HasMember("bodyJson")) body = testing::to_bytes(testing::write_json(line["bodyJson"]));
      ASSERT_TRUE(decoder.feed(testing::json_frame_from_fields(line, body)).ok());
      auto cmd = decoder.next();
      ASSERT_TRUE(cmd.ok()) << cmd.error().to_string();
      ASSERT_TRUE(cmd->has_value());
      cmds_.push_back(std::move(**cmd));
    }
  }

  const RemotingCommand& by_opaque(int opaque) {
    for (const auto& c : cmds_) {
      if (c.opaque == opaque) return c;
    }
    ADD_FAILURE() << "no request with opaque " << opaque;
    return cmds_.front();
  }

  std::vector<rapidjson::Document> lines_;
  std::vector<RemotingCommand> cmds_;
};

TEST_F(ClientRequests, CommonHeaderFields) {
  for (std::size_t i = 0; i < cmds_.size(); ++i) {
    EXPECT_EQ(cmds_[i].code, lines_[i]["code"].GetInt());
    EXPECT_EQ(cmds_[i].opaque, lines_[i]["opaque"].GetInt());
    EXPECT_EQ(cmds_[i].flag, 0);
    EXPECT_EQ(cmds_[i].language, LanguageCode::JAVA);
    EXPECT_EQ(cmds_[i].version, 121);
    EXPECT_FALSE(cmds_[i].remark.has_value());
    EXPECT_EQ(cmds_[i].ext_fields.size(), lines_[i]["extFields"].MemberCount());
  }
}

TEST_F(ClientRequests, RouteQuery) {
  const auto& cmd = by_opaque(1);
  EXPECT_EQ(cmd.code, request_code::GET_ROUTEINFO_BY_TOPIC);
  auto h = GetRouteInfoRequestHeader::from_fields(cmd.ext_fields);
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  EXPECT_EQ(h->topic, "TopicTest");
}

TEST_F(ClientRequests, Heartbeat) {
  const auto& cmd = by_opaque(2);
  EXPECT_EQ(cmd.code, request_code::HEART_BEAT);
  EXPECT_TRUE(cmd.ext_fields.empty());
  auto hb = body::HeartbeatData::decode(cmd.body);
  ASSERT_TRUE(hb.ok()) << hb.error().to_string();
  EXPECT_EQ(hb->client_id, "192.0.2.2@5831");
  EXPECT_TRUE(hb->producer_data_set.empty());
  ASSERT_EQ(hb->consumer_data_set.size(), 1u);
  const auto& c = hb->consumer_data_set[0];
  EXPECT_EQ(c.group_name, "GID_NODE_SMOKE");
  EXPECT_EQ(c.consume_type, body::ConsumeType::CONSUME_PASSIVELY);
  EXPECT_EQ(c.message_model, body::MessageModel::CLUSTERING);
  EXPECT_EQ(c.consume_from_where, body::ConsumeFromWhere::CONSUME_FROM_FIRST_OFFSET);
  EXPECT_FALSE(c.unit_mode);
  ASSERT_EQ(c.subscription_data_set.size(), 1u);
  const auto& s = c.subscription_data_set[0];
  EXPECT_EQ(s.topic, "TopicTest");
  EXPECT_EQ(s.sub_string, "*");
  EXPECT_TRUE(s.tags_set.empty());
  EXPECT_TRUE(s.code_set.empty());
  EXPECT_EQ(s.sub_version, 1795991228460);
  EXPECT_EQ(s.expression_type, "TAG") << "absent expressionType means TAG";
  EXPECT_FALSE(s.class_filter_mode);
}

TEST_F(ClientRequests, ConsumerList) {
  const auto& cmd = by_opaque(3);
  EXPECT_EQ(cmd.code, request_code::GET_CONSUMER_LIST_BY_GROUP);
  auto h = GetConsumerListByGroupRequestHeader::from_fields(cmd.ext_fields);
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  EXPECT_EQ(h->consumer_group, "GID_NODE_SMOKE");
}

TEST_F(ClientRequests, QueryOffsetWithRawNumberQueueId) {
  const auto& cmd = by_opaque(4);
  EXPECT_EQ(cmd.code, request_code::QUERY_CONSUMER_OFFSET);
  EXPECT_EQ(*cmd.ext_fields.find("queueId"), "0") << "raw JSON 0 is kept as its text";
  auto h = QueryConsumerOffsetRequestHeader::from_fields(cmd.ext_fields);
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  EXPECT_EQ(h->topic, "TopicTest");
  EXPECT_EQ(h->consumer_group, "GID_NODE_SMOKE");
  EXPECT_EQ(h->queue_id, QueueId(0));
}

TEST_F(ClientRequests, Pull) {
  const auto& cmd = by_opaque(6);
  EXPECT_EQ(cmd.code, request_code::PULL_MESSAGE);
  auto h = PullMessageRequestHeader::from_fields(cmd.ext_fields);
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  EXPECT_EQ(h->consumer_group, "GID_NODE_SMOKE");
  EXPECT_EQ(h->topic, "TopicTest");
  EXPECT_EQ(h->queue_id, QueueId(0));
  EXPECT_EQ(h->queue_offset, QueueOffset(0));
  EXPECT_EQ(h->max_msg_nums, 32);
  EXPECT_EQ(h->sys_flag, 6);
  EXPECT_EQ(h->commit_offset, QueueOffset(-1));
  EXPECT_EQ(h->suspend_timeout_millis, 15000);
  EXPECT_EQ(h->subscription, "*");
  EXPECT_EQ(h->sub_version, 1795991228460);
  EXPECT_FALSE(h->expression_type.has_value());
}

TEST_F(ClientRequests, SendV2WithRawNumbersAndBooleans) {
  const auto& cmd = by_opaque(26);
  EXPECT_EQ(cmd.code, request_code::SEND_MESSAGE_V2);
  EXPECT_EQ(*cmd.ext_fields.find("k"), "false");
  EXPECT_EQ(*cmd.ext_fields.find("g"), "1795991228539");
  auto h = SendMessageRequestHeader::from_request(cmd.code, cmd.ext_fields);
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  EXPECT_EQ(h->producer_group, "PID_NODE_SMOKE");
  EXPECT_EQ(h->topic, "TopicTest");
  EXPECT_EQ(h->default_topic, "TBW102");
  EXPECT_EQ(h->default_topic_queue_nums, 4);
  EXPECT_EQ(h->queue_id, QueueId(3));
  EXPECT_EQ(h->sys_flag, 0);
  EXPECT_EQ(h->born_timestamp, 1795991228539);
  EXPECT_EQ(h->flag, 0);
  EXPECT_EQ(h->properties, std::string("TAGS\x01TagA\x02KEYS\x01k0\x02"));
  EXPECT_EQ(h->reconsume_times, 0);
  EXPECT_FALSE(h->unit_mode);
  EXPECT_FALSE(h->max_reconsume_times.has_value()) << "l is absent";
  EXPECT_FALSE(h->batch) << "m is absent: not a batch";
  EXPECT_FALSE(h->broker_name.has_value());
}

TEST_F(ClientRequests, UnregisterProducerAndConsumer) {
  auto p = UnregisterClientRequestHeader::from_fields(by_opaque(43).ext_fields);
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  EXPECT_EQ(p->client_id, "192.0.2.2@5831");
  EXPECT_EQ(p->producer_group, "PID_NODE_SMOKE");
  EXPECT_FALSE(p->consumer_group.has_value());

  auto c = UnregisterClientRequestHeader::from_fields(by_opaque(57).ext_fields);
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  EXPECT_EQ(c->client_id, "192.0.2.2@5831");
  EXPECT_EQ(c->consumer_group, "GID_NODE_SMOKE");
  EXPECT_FALSE(c->producer_group.has_value());
}

TEST_F(ClientRequests, UpdateOffset) {
  const auto& cmd = by_opaque(49);
  EXPECT_EQ(cmd.code, request_code::UPDATE_CONSUMER_OFFSET);
  auto h = UpdateConsumerOffsetRequestHeader::from_fields(cmd.ext_fields);
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  EXPECT_EQ(h->topic, "TopicTest");
  EXPECT_EQ(h->consumer_group, "GID_NODE_SMOKE");
  EXPECT_EQ(h->queue_id, QueueId(0));
  EXPECT_EQ(h->commit_offset, QueueOffset(3));
}

}  // namespace
}  // namespace ferry::remoting
