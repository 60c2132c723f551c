// Message trace records (common/message_trace.h): the bodies a RocketMQ 4.9 client writes to
// RMQ_SYS_TRACE_TOPIC decode field by field (written here by hand from TraceDataEncoder's layout,
// not by our encoder), our encoder's output decodes to what it encoded, and damaged records are
// errors that name the context and field, never a crash.
#include "common/message_trace.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

namespace ferry {
namespace {

// Fields joined with \x01, the context ended by \x02.
std::string context(std::initializer_list<std::string_view> fields) {
  std::string out;
  for (std::string_view f : fields) {
    if (!out.empty()) out += '\x01';
    out += f;
  }
  return out + '\x02';
}

TEST(MessageTrace, AJavaClientsPubAndSubContextsDecode) {
  const std::string body =
      context({"Pub", "1733480000123", "DefaultRegion", "OrderProducers", "Orders", "7F0000010000ABCD", "TagA", "k1 k2",
               "10.0.0.5:10911", "512", "3", "0", "0A00000500002A9F00000000000004D2", "true", "10.0.0.9"}) +
      context({"SubBefore", "1733480000200", "DefaultRegion", "OrderReaders", "req-1", "7F0000010000ABCD", "0", "k1 k2"}) +
      context({"SubAfter", "req-1", "7F0000010000ABCD", "12", "false", "k1 k2", "2", "1733480000212", "OrderReaders"}) +
      context({"EndTransaction", "1733480000300", "DefaultRegion", "TxProducers", "Orders", "7F0000010000ABCE", "", "",
               "10.0.0.5:10911", "1", "7F0000010000ABCE", "COMMIT_MESSAGE", "true"}) +
      context({"Future", "whatever"});  // a type a later client writes: skipped
  Result<std::vector<TraceContext>> got = decode_trace_data(body);
  ASSERT_TRUE(got.ok()) << got.error().to_string();
  ASSERT_EQ(got->size(), 4u);
  const TraceContext& pub = (*got)[0];
  EXPECT_EQ(pub.type, TraceType::pub);
  EXPECT_EQ(pub.timestamp_ms, 1733480000123);
  EXPECT_EQ(pub.group, "OrderProducers");
  EXPECT_EQ(pub.bean.topic, "Orders");
  EXPECT_EQ(pub.bean.msg_id, "7F0000010000ABCD");
  EXPECT_EQ(pub.bean.keys, "k1 k2");
  EXPECT_EQ(pub.bean.body_length, 512);
  EXPECT_EQ(pub.cost_ms, 3);
  EXPECT_EQ(pub.bean.offset_msg_id, "0A00000500002A9F00000000000004D2");
  EXPECT_TRUE(pub.success);
  EXPECT_EQ(pub.bean.client_host, "10.0.0.9");
  const TraceContext& before = (*got)[1];
  EXPECT_EQ(before.type, TraceType::sub_before);
  EXPECT_EQ(before.request_id, "req-1");
  EXPECT_EQ(before.bean.retry_times, 0);
  const TraceContext& after = (*got)[2];
  EXPECT_EQ(after.type, TraceType::sub_after);
  EXPECT_EQ(after.cost_ms, 12);
  EXPECT_FALSE(after.success);
  EXPECT_EQ(after.context_code, 2);
  EXPECT_EQ(after.timestamp_ms, 1733480000212);
  EXPECT_EQ(after.group, "OrderReaders");
  const TraceContext& end = (*got)[3];
  EXPECT_EQ(end.type, TraceType::end_transaction);
  EXPECT_EQ(end.bean.msg_type, 1);
  EXPECT_EQ(end.bean.transaction_state, "COMMIT_MESSAGE");
  EXPECT_TRUE(end.bean.from_transaction_check);
}

TEST(MessageTrace, TheOldestPubFormAndAShortSubAfterDecode) {
  const std::string body = context({"Pub", "1", "R", "G", "T", "ID", "", "", "h:1", "0", "0", "0", "false"}) +
                           context({"SubAfter", "r", "ID", "5", "TRUE", ""});
  Result<std::vector<TraceContext>> got = decode_trace_data(body);
  ASSERT_TRUE(got.ok()) << got.error().to_string();
  ASSERT_EQ(got->size(), 2u);
  EXPECT_FALSE((*got)[0].success);
  EXPECT_TRUE((*got)[0].bean.offset_msg_id.empty());
  EXPECT_TRUE((*got)[1].success) << "Boolean.parseBoolean ignores letter case";
  EXPECT_TRUE((*got)[1].group.empty());
}

TEST(MessageTrace, DamagedContextsAreErrorsNamingTheField) {
  Result<std::vector<TraceContext>> short_pub = decode_trace_data(context({"Pub", "1", "R"}));
  ASSERT_FALSE(short_pub.ok());
  EXPECT_EQ(short_pub.error().detail, "trace context 0: Pub with 3 fields (at least 13)");
  Result<std::vector<TraceContext>> bad_number =
      decode_trace_data(context({"SubAfter", "r", "ID", "5", "true", "k"}) + context({"SubAfter", "r", "ID", "5x", "true", "k"}));
  ASSERT_FALSE(bad_number.ok());
  EXPECT_EQ(bad_number.error().detail, "trace context 1: costTime \"5x\" is not a number");
  EXPECT_TRUE(decode_trace_data("").ok());
}

RC_GTEST_PROP(MessageTrace, EncodedContextsDecodeToThemselves, ()) {
  // Field texts without the two splitors (a client's group, topic or keys never hold them).
  const auto text = rc::gen::container<std::string>(rc::gen::inRange<char>(' ', '~'));
  TraceContext c;
  c.type = *rc::gen::element(TraceType::pub, TraceType::sub_before, TraceType::sub_after, TraceType::end_transaction);
  c.timestamp_ms = *rc::gen::inRange<std::int64_t>(0, 1LL << 50);
  c.group = *text;
  c.bean.msg_id = *text;
  c.bean.keys = *text;
  c.success = *rc::gen::arbitrary<bool>();
  c.cost_ms = *rc::gen::inRange(0, 100000);
  if (c.type == TraceType::pub || c.type == TraceType::end_transaction) {
    c.region_id = *text;
    c.bean.topic = *text;
    c.bean.tags = *text;
    c.bean.store_host = *text;
    c.bean.msg_type = *rc::gen::inRange(0, 4);
  }
  if (c.type == TraceType::pub) {
    c.bean.body_length = *rc::gen::inRange(0, 1 << 22);
    c.bean.offset_msg_id = *text;
  }
  if (c.type == TraceType::sub_before) {
    c.region_id = *text;
    c.request_id = *text;
    c.bean.retry_times = *rc::gen::inRange(0, 16);
    c.success = true;  // not in the record
    c.cost_ms = 0;
  }
  if (c.type == TraceType::sub_after) {
    c.request_id = *text;
    c.context_code = *rc::gen::inRange(0, 5);
  }
  if (c.type == TraceType::end_transaction) {
    c.bean.transaction_id = *text;
    c.bean.transaction_state = *rc::gen::element<std::string>("COMMIT_MESSAGE", "ROLLBACK_MESSAGE", "UNKNOW");
    c.bean.from_transaction_check = *rc::gen::arbitrary<bool>();
    c.success = true;  // not in the record
    c.cost_ms = 0;
  }
  Result<std::vector<TraceContext>> back = decode_trace_data(encode_trace_context(c));
  RC_ASSERT(back.ok());
  RC_ASSERT(back->size() == 1u);
  RC_ASSERT(back->front() == c);
}

}  // namespace
}  // namespace ferry
