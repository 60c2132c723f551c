// FrameDecoder: streams split anywhere, many frames per feed, bounded buffering, and every kind
// of bad input reported as an error value that names the reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "remoting/frame_codec.h"
#include "remoting/frame_decoder.h"
#include "tests/remoting/vectors.h"

namespace ferry::remoting {
namespace {

using testing::to_bytes;

void be32(std::vector<std::uint8_t>& out, std::uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) out.push_back(static_cast<std::uint8_t>(v >> s));
}

// A frame with an arbitrary marked header length word and header text.
std::vector<std::uint8_t> raw_frame(std::uint32_t marked, std::string_view header,
                                    std::string_view body = {}) {
  std::vector<std::uint8_t> f;
  be32(f, static_cast<std::uint32_t>(4 + header.size() + body.size()));
  be32(f, marked);
  f.insert(f.end(), header.begin(), header.end());
  f.insert(f.end(), body.begin(), body.end());
  return f;
}

RemotingCommand sample(int opaque, SerializeType type, std::string body) {
  RemotingCommand c = make_request(10, opaque, type);
  std::string topic = "T";
  topic += std::to_string(opaque);
  c.ext_fields.set("topic", topic);
  c.body = to_bytes(body);
  return c;
}

std::vector<std::uint8_t> encode(const RemotingCommand& c) {
  auto f = encode_frame(c);
  EXPECT_TRUE(f.ok()) << f.error().to_string();
  return f.ok() ? *f : std::vector<std::uint8_t>{};
}

// Feeds `bytes` and expects next() to fail with a message containing `reason`.
void expect_error(const std::vector<std::uint8_t>& bytes, std::string_view reason,
                  std::size_t frame_bytes_max = kFrameBytesMaxDefault) {
  FrameDecoder d(frame_bytes_max);
  ASSERT_TRUE(d.feed(bytes).ok());
  auto r = d.next();
  ASSERT_FALSE(r.ok()) << "expected an error about: " << reason;
  EXPECT_EQ(r.error().code, Errc::corrupt);
  EXPECT_NE(r.error().detail.find(reason), std::string::npos) << r.error().detail;
  // Sticky: the same error again, and feed() refuses.
  auto again = d.next();
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().detail, r.error().detail);
  EXPECT_FALSE(d.feed(to_bytes("x")).ok());
  EXPECT_TRUE(d.failed());
}

TEST(FrameCodec, BodyViewsEncodeAsTheSameBytesAsAnOwnedBody) {
  auto pinned = std::make_shared<const std::vector<std::uint8_t>>(std::vector<std::uint8_t>{'x', 'y', 'z'});
  RemotingCommand viewed = make_request(11, 7);
  viewed.ext_fields.set("k", "v");
  viewed.body = {'a', 'b'};
  viewed.body_views.emplace_back(pinned, Bytes(pinned->data(), 3));
  viewed.body_views.emplace_back(pinned, Bytes(pinned->data() + 1, 2));
  RemotingCommand owned = viewed;
  owned.body_views.clear();
  owned.body = {'a', 'b', 'x', 'y', 'z', 'y', 'z'};
  EXPECT_EQ(viewed.body_size(), 7u);
  EXPECT_EQ(viewed.body_bytes(), owned.body);
  const auto a = encode_frame(viewed);
  const auto b = encode_frame(owned);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, *b);
  auto back = decode_frame(Bytes(a->data(), a->size()));
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(back->body, owned.body);
  EXPECT_TRUE(back->body_views.empty());
  // The frame limit counts the views.
  EXPECT_FALSE(encode_frame(viewed, a->size() - 1).ok());
}

TEST(FrameDecoder, ByteByByte) {
  const auto frame = encode(sample(7, SerializeType::json, "payload"));
  FrameDecoder d;
  for (std::size_t i = 0; i < frame.size(); ++i) {
    auto r = d.next();
    ASSERT_TRUE(r.ok());
    ASSERT_FALSE(r->has_value()) << "frame complete after only " << i << " bytes";
    ASSERT_TRUE(d.feed(std::span(frame).subspan(i, 1)).ok());
  }
  auto r = d.next();
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_EQ(**r, sample(7, SerializeType::json, "payload"));
  EXPECT_EQ(d.buffered_bytes(), 0u);
}

TEST(FrameDecoder, ManyFramesInOneFeedThenAPartialOne) {
  std::vector<std::uint8_t> stream;
  for (int i = 0; i < 5; ++i) {
    const auto f = encode(sample(i, i % 2 ? SerializeType::rocketmq : SerializeType::json,
                                 std::string(static_cast<std::size_t>(i), 'b')));
    stream.insert(stream.end(), f.begin(), f.end());
  }
  const auto last = encode(sample(99, SerializeType::json, "tail"));
  stream.insert(stream.end(), last.begin(), last.begin() + 10);

  FrameDecoder d;
  ASSERT_TRUE(d.feed(stream).ok());
  for (int i = 0; i < 5; ++i) {
    auto r = d.next();
    ASSERT_TRUE(r.ok() && r->has_value()) << i;
    EXPECT_EQ((*r)->opaque, i);
    EXPECT_EQ((*r)->body.size(), static_cast<std::size_t>(i));
  }
  auto none = d.next();
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  EXPECT_EQ(d.buffered_bytes(), 10u);
  ASSERT_TRUE(d.feed(std::span(last).subspan(10)).ok());
  auto r = d.next();
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_EQ((*r)->opaque, 99);
}

TEST(FrameDecoder, FeedRefusesWhileACompleteFrameWaits) {
  const auto frame = encode(sample(1, SerializeType::json, ""));
  FrameDecoder d;
  ASSERT_TRUE(d.feed(frame).ok());
  auto busy = d.feed(frame);
  ASSERT_FALSE(busy.ok());
  EXPECT_EQ(busy.error().code, Errc::busy);
  EXPECT_EQ(d.buffered_bytes(), frame.size()) << "refused bytes are not buffered";
  ASSERT_TRUE(d.next().ok());
  EXPECT_TRUE(d.feed(frame).ok());
}

// What Channel::read_loop does: reads of any size straight into space(), committing what each
// read brought (less than offered, as a socket does), with frames consumed in between so the
// buffer's unconsumed tail moves to the front.
TEST(FrameDecoder, ReadsIntoSpaceAndCommitsWhatArrived) {
  std::vector<std::uint8_t> stream;
  std::vector<RemotingCommand> sent;
  for (int i = 0; i < 7; ++i) {
    sent.push_back(sample(i, i % 2 ? SerializeType::rocketmq : SerializeType::json,
                          std::string(static_cast<std::size_t>(100 * i), static_cast<char>('a' + i))));
    const auto f = encode(sent.back());
    stream.insert(stream.end(), f.begin(), f.end());
  }
  FrameDecoder d;
  std::vector<RemotingCommand> got;
  std::size_t at = 0;
  const std::size_t reads[] = {3, 1, 50, 700, 2, 4096, 13};
  for (std::size_t k = 0; at < stream.size(); ++k) {
    auto room = d.space(64);
    ASSERT_TRUE(room.ok()) << room.error().to_string();
    ASSERT_EQ(room->size(), 64u);
    const std::size_t n = std::min({reads[k % std::size(reads)], room->size(), stream.size() - at});
    std::copy_n(stream.begin() + static_cast<std::ptrdiff_t>(at), n, room->begin());
    // Bytes past the committed ones are not taken: scribble on them.
    std::fill(room->begin() + static_cast<std::ptrdiff_t>(n), room->end(), std::uint8_t{0xEE});
    d.commit(n);
    at += n;
    for (;;) {
      auto r = d.next();
      ASSERT_TRUE(r.ok()) << r.error().to_string();
      if (!r->has_value()) break;
      got.push_back(std::move(**r));
    }
  }
  EXPECT_EQ(got, sent);
  EXPECT_EQ(d.buffered_bytes(), 0u);
}

TEST(FrameDecoder, SpaceRefusesWhileACompleteFrameWaitsAndAnUncommittedSpaceBuffersNothing) {
  const auto frame = encode(sample(1, SerializeType::json, "x"));
  FrameDecoder d;
  auto room = d.space(frame.size());
  ASSERT_TRUE(room.ok());
  std::copy(frame.begin(), frame.end(), room->begin());
  d.commit(frame.size());
  auto busy = d.space(16);
  ASSERT_FALSE(busy.ok());
  EXPECT_EQ(busy.error().code, Errc::busy);
  ASSERT_TRUE(d.next().ok());
  ASSERT_TRUE(d.space(16).ok());  // offered, never committed (a read that failed)
  EXPECT_EQ(d.buffered_bytes(), 0u);
  ASSERT_TRUE(d.feed(frame).ok());
  auto r = d.next();
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_EQ((*r)->opaque, 1);
}

TEST(FrameDecoder, OversizedLengthFailsBeforeTheFrameArrives) {
  std::vector<std::uint8_t> prefix;
  be32(prefix, 16 * 1024 * 1024 - 3);  // 4 + this > 16 MiB
  expect_error(prefix, "exceeds the maximum frame");
}

TEST(FrameDecoder, ConfigurableMaximum) {
  const auto frame = encode(sample(1, SerializeType::json, std::string(100, 'x')));
  expect_error(frame, "exceeds the maximum frame", frame.size() - 1);
  FrameDecoder d(frame.size());
  ASSERT_TRUE(d.feed(frame).ok());
  auto r = d.next();
  ASSERT_TRUE(r.ok() && r->has_value());
}

TEST(FrameDecoder, NegativeLength) {
  std::vector<std::uint8_t> f;
  be32(f, 0xFFFFFFF0u);
  expect_error(f, "negative frame length -16");
}

TEST(FrameDecoder, LengthShorterThanTheHeaderLengthField) {
  std::vector<std::uint8_t> f(7, 0);
  f[3] = 3;  // totalLen 3, then 3 bytes
  expect_error(f, "shorter than the 4-byte header-length field");
}

TEST(FrameDecoder, HeaderLengthBeyondTheFrame) {
  auto f = raw_frame(50, R"({"code":1})");
  expect_error(f, "header length 50 exceeds");
}

// A header longer than header_bytes_max fails from the 8 prefix bytes alone: the decoder neither
// buffers nor parses it (a 3 MiB JSON header used to hold the loop ~30 ms).
TEST(FrameDecoder, HeaderOverTheBoundFailsFromItsLengthAlone) {
  const std::uint32_t declared = 3 * 1024 * 1024;
  std::vector<std::uint8_t> prefix;
  be32(prefix, declared + 4 + 100);  // a frame with room for it, under the 16 MiB frame bound
  be32(prefix, declared);
  FrameDecoder d;
  ASSERT_TRUE(d.feed(prefix).ok());
  auto r = d.next();
  ASSERT_FALSE(r.ok()) << "the header's length was not checked before its bytes arrived";
  EXPECT_EQ(r.error().code, Errc::corrupt);
  EXPECT_EQ(r.error().detail, "header of 3145728 bytes declared, more than the 262144 a header may have");
  EXPECT_FALSE(d.feed(to_bytes("more")).ok()) << "the error is sticky";

  // A smaller bound, as a server may set: the same for a binary header.
  FrameDecoder small(kFrameBytesMaxDefault, {}, false, 1024);
  std::vector<std::uint8_t> binary;
  be32(binary, 4 + 1025);
  be32(binary, 1u << 24 | 1025);
  ASSERT_TRUE(small.feed(binary).ok());
  auto rb = small.next();
  ASSERT_FALSE(rb.ok());
  EXPECT_NE(rb.error().detail.find("header of 1025 bytes declared, more than the 1024"), std::string::npos) << rb.error().detail;
}

// The largest header a client legitimately sends: a send whose 32,767 bytes of properties are all
// separators, each escaped to 6 bytes of JSON. It decodes under the default bound.
TEST(FrameDecoder, ASendsLargestPropertiesFitTheHeaderBound) {
  RemotingCommand c = make_request(310, 1, SerializeType::json);
  c.ext_fields.set("a", "producer-group");
  c.ext_fields.set("b", "TopicTest");
  c.ext_fields.set("i", std::string(32767, '\x01'));
  const std::vector<std::uint8_t> f = encode(c);
  ASSERT_GT(f.size(), 6u * 32767) << "every separator is escaped";
  FrameDecoder d;
  ASSERT_TRUE(d.feed(f).ok());
  auto r = d.next();
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  ASSERT_TRUE(r->has_value());
  const std::string* props = (*r)->ext_fields.find("i");
  ASSERT_NE(props, nullptr);
  EXPECT_EQ(props->size(), 32767u);
}

TEST(FrameDecoder, UnknownSerializeType) {
  expect_error(raw_frame(2u << 24 | 10, R"({"code":1})"), "unknown serialize type 2");
  expect_error(raw_frame(0xFFu << 24 | 10, R"({"code":1})"), "unknown serialize type 255");
}

TEST(FrameDecoder, MalformedJsonHeader) {
  const std::string h = R"({"code":1,)";
  expect_error(raw_frame(static_cast<std::uint32_t>(h.size()), h), "malformed JSON");
}

TEST(FrameDecoder, TruncatedBinaryHeader) {
  const std::string h("\x00\x0a\x00", 3);
  expect_error(raw_frame(1u << 24 | 3, h), "shorter than the 13-byte fixed part");
}

TEST(FrameDecoder, EmptyFrameIsAnError) {
  // totalLen 4, header length 0: a JSON header cannot be empty.
  expect_error(raw_frame(0, ""), "malformed JSON");
}

TEST(FrameDecoder, FrameWithHeaderOnlyAndEmptyBody) {
  const std::string h = R"({"code":34,"opaque":5})";
  FrameDecoder d;
  ASSERT_TRUE(d.feed(raw_frame(static_cast<std::uint32_t>(h.size()), h)).ok());
  auto r = d.next();
  ASSERT_TRUE(r.ok() && r->has_value()) << (r.ok() ? "" : r.error().to_string());
  EXPECT_EQ((*r)->code, 34);
  EXPECT_EQ((*r)->opaque, 5);
  EXPECT_TRUE((*r)->body.empty());
}

TEST(FrameCodec, DecodeFrameWantsExactlyOneFrame) {
  auto frame = encode(sample(1, SerializeType::json, "abc"));
  frame.push_back(0);
  auto r = decode_frame(frame);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().detail.find("were given"), std::string::npos) << r.error().detail;
  frame.resize(frame.size() - 2);
  EXPECT_FALSE(decode_frame(frame).ok());
  EXPECT_FALSE(decode_frame(std::vector<std::uint8_t>{0, 0}).ok());
}

TEST(FrameCodec, EncodeRefusesAnOversizedFrame) {
  RemotingCommand c = sample(1, SerializeType::rocketmq, std::string(200, 'x'));
  auto r = encode_frame(c, 100);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::invalid_argument);
  EXPECT_NE(r.error().detail.find("exceeds the maximum 100"), std::string::npos) << r.error().detail;
}

TEST(FrameCodec, HeadIsReusableAndLeavesTheBodyOut) {
  std::vector<std::uint8_t> head;
  const RemotingCommand big = sample(1, SerializeType::json, std::string(1000, 'x'));
  ASSERT_TRUE(encode_frame_head(big, head).ok());
  const std::size_t first = head.size();
  const RemotingCommand small = sample(2, SerializeType::rocketmq, "yz");
  ASSERT_TRUE(encode_frame_head(small, head).ok());
  EXPECT_NE(head.size(), first);
  std::vector<std::uint8_t> frame = head;
  frame.insert(frame.end(), small.body.begin(), small.body.end());
  auto back = decode_frame(frame);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(*back, small);
  // totalLen covers the body although the body is not in `head`.
  EXPECT_EQ(frame.size(), 4u + ((std::uint32_t{head[0]} << 24) | (head[1] << 16) | (head[2] << 8) | head[3]));
}

}  // namespace
}  // namespace ferry::remoting
