// The SEND_BATCH_MESSAGE body decoder: round trip, and every truncation or bad length of a
// valid body is an error naming the entry (never a crash).
#include <gtest/gtest.h>

#include "broker/batch_decoder.h"
#include "tests/broker/broker_fixture.h"

namespace ferry::broker::testing {
namespace {

TEST(BatchDecoder, DecodesEntriesInOrder) {
  const char* bodies[] = {"", "aaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbb"};
  std::vector<Msg> msgs(3);
  for (int i = 0; i < 3; ++i) {
    msgs[i].body = bodies[i];
    msgs[i].flag = i;
    msgs[i].keys(fmt::format("k{}", i));
  }
  const auto body = encode_batch(msgs);
  auto got = decode_batch(Bytes(body.data(), body.size()));
  ASSERT_TRUE(got.ok()) << got.error().to_string();
  ASSERT_EQ(got->size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ((*got)[i].flag, i);
    EXPECT_EQ(std::string(as_text((*got)[i].body)), msgs[i].body);
    EXPECT_EQ((*got)[i].properties, *encode_properties(msgs[i].props));
  }
}

TEST(BatchDecoder, EveryTruncationAndEveryFlippedLengthByteIsAnError) {
  std::vector<Msg> msgs(2);
  msgs[0].keys("x");
  msgs[1].body = "second";
  const auto body = encode_batch(msgs);
  const std::size_t first = (std::size_t{body[2]} << 8) | body[3];  // the first entry's totalSize
  for (std::size_t n = 0; n < body.size(); ++n) {
    auto r = decode_batch(Bytes(body.data(), n));
    EXPECT_EQ(r.ok(), n == first) << n;  // cut at the entry boundary: a valid one-entry batch
  }
  // Flip bytes of the first entry's length fields (totalSize 0..3, bodyLen 16..19).
  for (std::size_t pos : {0u, 3u, 16u, 19u}) {
    auto copy = body;
    copy[pos] ^= 0x40;
    auto r = decode_batch(Bytes(copy.data(), copy.size()));
    ASSERT_FALSE(r.ok()) << pos;
    EXPECT_NE(r.error().detail.find("batch message"), std::string::npos) << r.error().detail;
  }
}

}  // namespace
}  // namespace ferry::broker::testing
