// POP receipt handles and a POP reply's offset-info strings (common/pop_receipt.h), and the
// base64 of BATCH_ACK_MESSAGE's bitsets (common/base64.h): the formats RocketMQ 5's ExtraInfoUtil
// and Java's Base64 write, byte for byte, and refusals that say what is wrong.
#include "common/pop_receipt.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <set>

#include "common/base64.h"

namespace ferry {
namespace {

TEST(PopReceipt, EncodesRocketMqsEightFieldsAndParsesThemBack) {
  const ReceiptHandle h{.ck_offset = 100, .pop_time = 1'700'000'000'000, .invisible_time = 60'000, .revive_qid = 3,
                        .retry = PopRetry::none, .broker_name = "broker-a", .queue_id = 2, .queue_offset = 103};
  EXPECT_EQ(h.encode(), "100 1700000000000 60000 3 0 broker-a 2 103");
  auto back = ReceiptHandle::parse(h.encode());
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(*back, h);
  EXPECT_EQ(back->visible_at(), 1'700'000'060'000);
  EXPECT_FALSE(back->is_order());
  // The gRPC proxy's handles carry a ninth field (the CommitLog offset): ignored.
  auto proxy = ReceiptHandle::parse("7 1700000000000 60000 999 1 broker-b 0 7 123456");
  ASSERT_TRUE(proxy.ok()) << proxy.error().to_string();
  EXPECT_TRUE(proxy->is_order());
  EXPECT_EQ(proxy->retry, PopRetry::v1);
  EXPECT_EQ(proxy->broker_name, "broker-b");
}

TEST(PopReceipt, RefusesAHandleNamingWhatIsWrong) {
  auto detail = [](std::string_view text) {
    auto r = ReceiptHandle::parse(text);
    return r.ok() ? std::string("parsed") : r.error().detail;
  };
  EXPECT_NE(detail("100 1700000000000 60000 3 0 broker-a 2").find("7 fields, expected 8"), std::string::npos);
  EXPECT_NE(detail("x 1 1 3 0 b 2 103").find("ckOffset \"x\""), std::string::npos);
  EXPECT_NE(detail("1 1 1 3 9 b 2 103").find("retry flag \"9\""), std::string::npos);
  EXPECT_NE(detail("1 1 1 3 0  2 103").find("empty brokerName"), std::string::npos);
  EXPECT_NE(detail("1 1 1 3 0 b 2 103x").find("queueOffset"), std::string::npos);
  EXPECT_NE(detail("1 1 1 99999999999 0 b 2 103").find("reviveQid"), std::string::npos);
  EXPECT_EQ(detail(""), "receipt handle \"\": 1 fields, expected 8");
}

TEST(PopReceipt, AChangedHandleStartsAtTheMessageItself) {
  const ReceiptHandle h{.ck_offset = 100, .pop_time = 1'000, .invisible_time = 60'000, .revive_qid = 3,
                        .retry = PopRetry::v1, .broker_name = "b", .queue_id = 0, .queue_offset = 103};
  EXPECT_EQ(h.after_change(5'000, 30'000, 3).encode(), "103 5000 30000 3 1 b 0 103");
}

TEST(PopReceipt, RetryTopicsAreNamedAsRocketMqNamesThem) {
  EXPECT_EQ(pop_retry_topic("GID_x", "TopicA", PopRetry::v1), "%RETRY%GID_x_TopicA");
  EXPECT_EQ(pop_retry_topic("GID_x", "TopicA", PopRetry::v2), "%RETRY%GID_x+TopicA");
  EXPECT_EQ(pop_retry_of("%RETRY%GID_x_TopicA"), PopRetry::v1);
  EXPECT_EQ(pop_retry_of("%RETRY%GID_x+TopicA"), PopRetry::v2);
  EXPECT_EQ(pop_retry_of("TopicA"), PopRetry::none);
  EXPECT_EQ(pop_real_topic("TopicA", "G", PopRetry::none), "TopicA");
  EXPECT_EQ(pop_real_topic("TopicA", "G", PopRetry::v1), "%RETRY%G_TopicA");
}

TEST(PopReceipt, OffsetInfoStringsRoundTripAndKeyAsClientsKeyThem) {
  PopQueueInfo retry{.retry = PopRetry::v1, .queue_id = 0, .start_offset = 7, .msg_offsets = {7}, .order_counts = {},
                     .order_count_least = 0};
  PopQueueInfo topic{.retry = PopRetry::none, .queue_id = 2, .start_offset = 100, .msg_offsets = {100, 103},
                     .order_counts = {{100, 1}, {103, 0}}, .order_count_least = 0};
  const std::vector<PopQueueInfo> qs{retry, topic};
  EXPECT_EQ(encode_start_offset_info(qs), "1 0 7;0 2 100");
  EXPECT_EQ(encode_msg_offset_info(qs), "1 0 7;0 2 100,103");
  EXPECT_EQ(encode_order_count_info({topic}), "0 qo2%100 1;0 2 0");
  auto info = OffsetInfo::parse(encode_start_offset_info(qs), encode_msg_offset_info(qs), encode_order_count_info({topic}));
  ASSERT_TRUE(info.ok()) << info.error().to_string();
  EXPECT_EQ(info->start_offsets.at("0@2"), 100);
  EXPECT_EQ(info->start_offsets.at("1@0"), 7);
  EXPECT_EQ(info->msg_offsets.at("0@2"), (std::vector<std::int64_t>{100, 103}));
  EXPECT_EQ(info->order_counts.at(OffsetInfo::offset_key(PopRetry::none, 2, 100)), 1);
  EXPECT_EQ(info->order_counts.at(OffsetInfo::queue_key(PopRetry::none, 2)), 0);
}

TEST(PopReceipt, MalformedOffsetInfoIsAnErrorNamingTheEntry) {
  auto bad = [](std::string_view s, std::string_view m) {
    auto r = OffsetInfo::parse(s, m, "");
    return r.ok() ? std::string("parsed") : r.error().detail;
  };
  EXPECT_NE(bad("0 2", "").find("startOffsetInfo entry \"0 2\": 2 fields"), std::string::npos);
  EXPECT_NE(bad("0 2 1;0 2 5", "").find("listed twice"), std::string::npos);
  EXPECT_NE(bad("", "0 2 1,x").find("offset \"x\""), std::string::npos);
  EXPECT_NE(bad("7 2 1", "").find("retry flag"), std::string::npos);
  EXPECT_EQ(bad("", ""), "parsed");
}

TEST(Base64, MatchesRfc4648AndJavasEncoder) {
  auto enc = [](std::string_view s) { return base64_encode(std::vector<std::uint8_t>(s.begin(), s.end())); };
  EXPECT_EQ(enc(""), "");
  EXPECT_EQ(enc("f"), "Zg==");
  EXPECT_EQ(enc("fo"), "Zm8=");
  EXPECT_EQ(enc("foo"), "Zm9v");
  EXPECT_EQ(enc("foobar"), "Zm9vYmFy");
  EXPECT_EQ(base64_encode({0x2A}), "Kg==");  // a BitSet of {1, 3, 5}
  EXPECT_EQ(base64_encode({0xFB, 0xFF}), "+/8=");
  for (std::string_view s : {"", "f", "fo", "foo", "foob", "fooba", "foobar"}) {
    auto back = base64_decode(enc(s));
    ASSERT_TRUE(back.ok()) << back.error().to_string();
    EXPECT_EQ(std::string(back->begin(), back->end()), s);
  }
}

TEST(Base64, RefusesWhatIsNotBase64) {
  EXPECT_NE(base64_decode("Zg=").error().detail.find("not a multiple of 4"), std::string::npos);
  EXPECT_NE(base64_decode("Z===").error().detail.find("padding at position 1"), std::string::npos);
  EXPECT_NE(base64_decode("Zg==Zg==").error().detail.find("padding at position 2"), std::string::npos);
  EXPECT_NE(base64_decode("Zm 9").error().detail.find("is not base64"), std::string::npos);
  EXPECT_NE(base64_decode("Zg=a").error().detail.find("data after padding"), std::string::npos);
}

// ---- properties ----------------------------------------------------------------------------

rc::Gen<std::string> broker_names() {
  return rc::gen::nonEmpty(rc::gen::container<std::string>(rc::gen::elementOf(std::string("abcXYZ-_.0123456789"))));
}

RC_GTEST_PROP(PopReceipt, EveryHandleParsesBackToItself, ()) {
  ReceiptHandle h;
  h.ck_offset = *rc::gen::arbitrary<std::int64_t>();
  h.pop_time = *rc::gen::arbitrary<std::int64_t>();
  h.invisible_time = *rc::gen::arbitrary<std::int64_t>();
  h.revive_qid = *rc::gen::arbitrary<std::int32_t>();
  h.retry = *rc::gen::element(PopRetry::none, PopRetry::v1, PopRetry::v2);
  h.broker_name = *broker_names();
  h.queue_id = *rc::gen::arbitrary<std::int32_t>();
  h.queue_offset = *rc::gen::arbitrary<std::int64_t>();
  auto back = ReceiptHandle::parse(h.encode());
  RC_ASSERT(back.ok());
  RC_ASSERT(*back == h);
}

RC_GTEST_PROP(PopReceipt, AnyTextIsRefusedOrReadsAsAHandleThatWritesItselfBack, (const std::string& text)) {
  auto h = ReceiptHandle::parse(text);
  if (!h.ok()) {
    RC_ASSERT(h.error().detail.find("receipt handle") != std::string::npos);
    return;
  }
  auto again = ReceiptHandle::parse(h->encode());
  RC_ASSERT(again.ok());
  RC_ASSERT(*again == *h);
}

RC_GTEST_PROP(PopReceipt, OffsetInfoStringsReadBackWhatWasWritten, ()) {
  // Distinct (retry, queue) pairs, as one POP reply holds at most one entry for each.
  const auto keys = *rc::gen::container<std::set<std::pair<int, std::int32_t>>>(
      rc::gen::pair(rc::gen::inRange(0, 3), rc::gen::inRange<std::int32_t>(0, 1024)));
  std::vector<PopQueueInfo> queues;
  for (const auto& [retry, queue] : keys) {
    PopQueueInfo q;
    q.retry = retry == 0 ? PopRetry::none : retry == 1 ? PopRetry::v1 : PopRetry::v2;
    q.queue_id = queue;
    q.start_offset = *rc::gen::inRange<std::int64_t>(0, std::int64_t{1} << 40);
    q.msg_offsets = *rc::gen::nonEmpty(rc::gen::container<std::vector<std::int64_t>>(rc::gen::inRange<std::int64_t>(0, 1 << 30)));
    queues.push_back(q);
  }
  auto info = OffsetInfo::parse(encode_start_offset_info(queues), encode_msg_offset_info(queues), "");
  RC_ASSERT(info.ok());
  RC_ASSERT(info->start_offsets.size() == queues.size());
  for (const PopQueueInfo& q : queues) {
    const std::string key = OffsetInfo::queue_key(q.retry, q.queue_id);
    RC_ASSERT(info->start_offsets.at(key) == q.start_offset);
    RC_ASSERT(info->msg_offsets.at(key) == q.msg_offsets);
  }
}

RC_GTEST_PROP(Base64, BytesRoundTripAndAnyTextIsDecodedOrRefused, (const std::vector<std::uint8_t>& bytes, const std::string& text)) {
  auto back = base64_decode(base64_encode(bytes));
  RC_ASSERT(back.ok());
  RC_ASSERT(*back == bytes);
  auto decoded = base64_decode(text);
  if (decoded.ok()) RC_ASSERT(base64_encode(*decoded).size() == text.size());
}

}  // namespace
}  // namespace ferry
