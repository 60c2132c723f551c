// RocketMQ 5's v2 protocol as Ferry builds it (src/proxy/proto): the wire bytes of a few messages
// against encodings written out by hand from the protobuf encoding rules and the published field
// numbers (not against our own encoder), and the MessagingService's methods with the paths and
// streaming kinds RocketMQ 5's clients call.
#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "apache/rocketmq/v2/definition.pb.h"
#include "apache/rocketmq/v2/service.grpc.pb.h"
#include "apache/rocketmq/v2/service.pb.h"

namespace v2 = apache::rocketmq::v2;

namespace {

std::string bytes(std::initializer_list<unsigned> b) {
  std::string out;
  for (unsigned c : b) out.push_back(static_cast<char>(c));
  return out;
}

// Message{topic: {name: "T"}, system_properties: {message_id: "ID", message_type: FIFO,
// message_group: "g"}, body: "hi"}, field by field:
//   0a 03 | 12 01 'T'                                topic (1) = Resource{name (2)}
//   1a 0a | 1a 02 'I' 'D' | 30 02 | 8a 01 01 'g'      system_properties (3): message_id (3),
//                                                     message_type (6) = 2, message_group (17)
//   22 02 'h' 'i'                                     body (4)
const std::string kFifoMessage = bytes({0x0a, 0x03, 0x12, 0x01, 'T', 0x1a, 0x0a, 0x1a, 0x02, 'I', 'D', 0x30, 0x02, 0x8a,
                                        0x01, 0x01, 'g', 0x22, 0x02, 'h', 'i'});

TEST(V2Protocol, AMessageEncodesWithThePublishedFieldNumbers) {
  v2::Message m;
  m.mutable_topic()->set_name("T");
  m.mutable_system_properties()->set_message_id("ID");
  m.mutable_system_properties()->set_message_type(v2::FIFO);
  m.mutable_system_properties()->set_message_group("g");
  m.set_body("hi");
  EXPECT_EQ(m.SerializeAsString(), kFifoMessage);

  v2::SendMessageRequest request;
  ASSERT_TRUE(request.ParseFromString(bytes({0x0a, static_cast<unsigned>(kFifoMessage.size())}) + kFifoMessage));
  ASSERT_EQ(request.messages_size(), 1);
  const v2::Message& back = request.messages(0);
  EXPECT_EQ(back.topic().name(), "T");
  EXPECT_EQ(back.system_properties().message_type(), v2::FIFO);
  EXPECT_EQ(back.system_properties().message_group(), "g");
  EXPECT_TRUE(back.system_properties().has_message_group());
  EXPECT_FALSE(back.system_properties().has_delivery_timestamp());
  EXPECT_EQ(back.body(), "hi");
}

TEST(V2Protocol, StatusCodesAndTheReceiveStreamsOneofAreAsPublished) {
  // ReceiveMessageResponse{status (1): Status{code (1): OK = 20000}}; 20000 as a varint: a0 9c 01.
  v2::ReceiveMessageResponse r;
  r.mutable_status()->set_code(v2::OK);
  EXPECT_EQ(r.SerializeAsString(), bytes({0x0a, 0x04, 0x08, 0xa0, 0x9c, 0x01}));
  // delivery_timestamp (3) = Timestamp{seconds (1): 1}.
  v2::ReceiveMessageResponse t;
  ASSERT_TRUE(t.ParseFromString(bytes({0x1a, 0x02, 0x08, 0x01})));
  EXPECT_EQ(t.content_case(), v2::ReceiveMessageResponse::kDeliveryTimestamp);
  EXPECT_EQ(t.delivery_timestamp().seconds(), 1);
  // Codes the proxy answers with.
  EXPECT_EQ(v2::BAD_REQUEST, 40000);
  EXPECT_EQ(v2::ILLEGAL_TOPIC, 40002);
  EXPECT_EQ(v2::MESSAGE_BODY_TOO_LARGE, 41301);
  EXPECT_EQ(v2::TOO_MANY_REQUESTS, 42900);
  EXPECT_EQ(v2::MESSAGE_NOT_FOUND, 40401);
}

TEST(V2Protocol, TheMessagingServiceHasTheMethodsClientsCall) {
  EXPECT_STREQ(v2::MessagingService::service_full_name(), "apache.rocketmq.v2.MessagingService");
  const google::protobuf::ServiceDescriptor* s =
      google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(v2::MessagingService::service_full_name());
  ASSERT_NE(s, nullptr);
  // (name, client streams, server streams): gRPC's path is /apache.rocketmq.v2.MessagingService/<name>.
  const std::vector<std::tuple<std::string, bool, bool>> expected = {
      {"QueryRoute", false, false},
      {"Heartbeat", false, false},
      {"SendMessage", false, false},
      {"QueryAssignment", false, false},
      {"ReceiveMessage", false, true},
      {"AckMessage", false, false},
      {"ForwardMessageToDeadLetterQueue", false, false},
      {"PullMessage", false, true},
      {"UpdateOffset", false, false},
      {"GetOffset", false, false},
      {"QueryOffset", false, false},
      {"EndTransaction", false, false},
      {"Telemetry", true, true},
      {"NotifyClientTermination", false, false},
      {"ChangeInvisibleDuration", false, false},
      {"RecallMessage", false, false},
      {"SyncLiteSubscription", false, false},
  };
  ASSERT_EQ(s->method_count(), static_cast<int>(expected.size()));
  for (int i = 0; i < s->method_count(); ++i) {
    const google::protobuf::MethodDescriptor* m = s->method(i);
    EXPECT_EQ(m->name(), std::get<0>(expected[i]));
    EXPECT_EQ(m->client_streaming(), std::get<1>(expected[i])) << m->name();
    EXPECT_EQ(m->server_streaming(), std::get<2>(expected[i])) << m->name();
  }
  EXPECT_EQ(s->FindMethodByName("SendMessage")->input_type()->full_name(), "apache.rocketmq.v2.SendMessageRequest");
  EXPECT_EQ(s->FindMethodByName("Telemetry")->output_type()->full_name(), "apache.rocketmq.v2.TelemetryCommand");
}

}  // namespace
