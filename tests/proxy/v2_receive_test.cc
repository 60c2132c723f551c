// A popped message as a gRPC client receives it (src/proxy/v2_receive.h), field by field as
// RocketMQ 5.3's proxy builds it.
#include "proxy/v2_receive.h"

#include <gtest/gtest.h>

#include "common/pop_receipt.h"

namespace ferry::proxy {
namespace {

constexpr WallMs kNow = 1'700'000'000'000;

MessageExt popped() {
  MessageExt m;
  m.topic = "%RETRY%G_OrderEvents";  // a retried message keeps the topic asked for
  const std::string body = "hello";
  m.body.assign(body.begin(), body.end());
  m.properties.set("TAGS", "TagA");
  m.properties.set("KEYS", "order-1 user-7");
  m.properties.set("UNIQ_KEY", "01C0A8000100002A9F6B0A1B2C3D0001");
  m.properties.set("__SHARDINGKEY", "order-1");
  m.properties.set("TRACE_CONTEXT", "00-abc-01");
  m.properties.set("color", "blue");
  m.properties.set(kPropertyPopCk, "100 1700000000000 15000 3 1 broker-a 0 103");
  m.queue_id = QueueId(0);
  m.queue_offset = QueueOffset(103);
  m.physical_offset = PhysicalOffset(987654);
  m.born_timestamp_ms = 1'699'999'999'001;
  m.born_host = HostPort::v4(10, 0, 0, 7, 51234);
  m.store_timestamp_ms = 1'699'999'999'002;
  m.store_host = HostPort::v4(10, 0, 0, 9, 10911);
  m.reconsume_times = 2;
  m.offset_msg_id = "0A00000900002A9F00000000000F1206";
  return m;
}

TEST(V2Receive, APoppedMessageAsRocketMqsProxyHandsItOut) {
  const v2::Message v = to_v2_message(popped(), "OrderEvents", kNow);
  EXPECT_EQ(v.topic().name(), "OrderEvents");
  EXPECT_EQ(v.body(), "hello");
  const v2::SystemProperties& sp = v.system_properties();
  EXPECT_EQ(sp.tag(), "TagA");
  ASSERT_EQ(sp.keys_size(), 2);
  EXPECT_EQ(sp.keys(1), "user-7");
  EXPECT_EQ(sp.message_id(), "01C0A8000100002A9F6B0A1B2C3D0001");
  EXPECT_EQ(sp.body_digest().type(), v2::MD5);
  EXPECT_EQ(sp.body_digest().checksum(), "5D41402ABC4B2A76B9719D911017C592");  // MD5("hello"), upper case
  EXPECT_EQ(sp.body_encoding(), v2::IDENTITY);
  EXPECT_EQ(sp.message_type(), v2::FIFO);
  EXPECT_EQ(sp.message_group(), "order-1");
  EXPECT_EQ(sp.born_timestamp().seconds(), 1'699'999'999);
  EXPECT_EQ(sp.born_timestamp().nanos(), 1'000'000);
  EXPECT_EQ(sp.born_host(), "10.0.0.7") << "the born host's address without its port";
  EXPECT_EQ(sp.store_host(), "10.0.0.9:10911");
  EXPECT_EQ(sp.receipt_handle(), "100 1700000000000 15000 3 1 broker-a 0 103 987654");
  EXPECT_EQ(sp.queue_id(), 0);
  EXPECT_EQ(sp.queue_offset(), 103);
  EXPECT_EQ(sp.delivery_attempt(), 3) << "reconsumeTimes + 1";
  EXPECT_EQ(sp.trace_context(), "00-abc-01");
  EXPECT_FALSE(sp.has_invisible_duration()) << "RocketMQ's proxy leaves it out";
  EXPECT_FALSE(sp.has_delivery_timestamp());
  EXPECT_FALSE(sp.has_dead_letter_queue());
  // User properties: what RocketMQ does not reserve, __SHARDINGKEY and TRACE_CONTEXT included.
  EXPECT_EQ(v.user_properties().at("color"), "blue");
  EXPECT_EQ(v.user_properties().at("__SHARDINGKEY"), "order-1");
  EXPECT_EQ(v.user_properties().count("TAGS"), 0u);
  EXPECT_EQ(v.user_properties().count("UNIQ_KEY"), 0u);
  EXPECT_EQ(v.user_properties().count("POP_CK"), 0u);
  // The broker reads the proxy's handle: its eight fields, the ninth ignored.
  Result<ReceiptHandle> h = ReceiptHandle::parse(sp.receipt_handle());
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  EXPECT_EQ(h->queue_offset, 103);
}

TEST(V2Receive, TypesDeliveryTimesAndTheDeadLetterOrigin) {
  MessageExt m = popped();
  m.properties = Properties{};
  m.properties.set("TIMER_DELIVER_MS", "1700000060000");
  v2::Message v = to_v2_message(m, "T", kNow);
  EXPECT_EQ(v.system_properties().message_type(), v2::DELAY);
  EXPECT_EQ(v.system_properties().delivery_timestamp().seconds(), 1'700'000'060);
  EXPECT_EQ(v.system_properties().message_id(), "0A00000900002A9F00000000000F1206") << "no UNIQ_KEY: the offset msgId";
  EXPECT_FALSE(v.system_properties().has_receipt_handle()) << "no POP_CK, no handle";
  m.properties.set("TIMER_DELAY_SEC", "30");
  v = to_v2_message(m, "T", kNow);
  EXPECT_EQ(v.system_properties().delivery_timestamp().seconds(), kNow / 1000 + 30) << "TIMER_DELAY_SEC counts from now";

  m.properties = Properties{};
  m.properties.set("TRAN_MSG", "true");
  EXPECT_EQ(to_v2_message(m, "T", kNow).system_properties().message_type(), v2::TRANSACTION);
  m.properties = Properties{};
  EXPECT_EQ(to_v2_message(m, "T", kNow).system_properties().message_type(), v2::NORMAL);
  m.properties.set("__BORNHOST", "client-host");
  EXPECT_EQ(to_v2_message(m, "T", kNow).system_properties().born_host(), "client-host");

  m.properties.set("DLQ_ORIGIN_TOPIC", "OrderEvents");
  EXPECT_FALSE(to_v2_message(m, "T", kNow).system_properties().has_dead_letter_queue()) << "both fields, or none";
  m.properties.set("DLQ_ORIGIN_MESSAGE_ID", "ID1");
  v = to_v2_message(m, "T", kNow);
  ASSERT_TRUE(v.system_properties().has_dead_letter_queue());
  EXPECT_EQ(v.system_properties().dead_letter_queue().topic(), "OrderEvents");
  EXPECT_EQ(v.system_properties().dead_letter_queue().message_id(), "ID1");
}

}  // namespace
}  // namespace ferry::proxy
