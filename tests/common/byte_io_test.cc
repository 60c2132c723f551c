#include <gtest/gtest.h>

#include <vector>

#include "common/byte_reader.h"
#include "common/byte_writer.h"
#include "common/hex.h"
#include "common/host_port.h"
#include "common/offsets.h"

namespace ferry {
namespace {

TEST(ByteIo, WriterIsBigEndian) {
  std::vector<std::uint8_t> out;
  ByteWriter w(out);
  w.u8(0x01);
  w.i16(-2);
  w.u32(0xdaa320a7);
  w.i64(0x0102030405060708);
  w.text("ab");
  EXPECT_EQ(to_hex(out), "01FFFEDAA320A701020304050607086162");
}

TEST(ByteIo, SpanWriterWritesInPlace) {
  std::array<std::uint8_t, 6> buf{};
  SpanWriter w(buf);
  w.i32(-1);
  w.u16(0x1234);
  EXPECT_EQ(w.remaining(), 0u);
  EXPECT_EQ(to_hex(buf), "FFFFFFFF1234");
}

TEST(ByteIoDeathTest, SpanWriterOverflowIsABug) {
  std::array<std::uint8_t, 3> buf{};
  SpanWriter w(buf);
  EXPECT_DEATH(w.u32(1), "SpanWriter overflow");
}

TEST(ByteIo, ReaderReturnsErrorsInsteadOfReadingPastTheEnd) {
  const std::vector<std::uint8_t> data = {0x00, 0x00, 0x01, 0x00, 0xFF, 0xFE, 0x61};
  ByteReader r(data);
  EXPECT_EQ(r.i32().value(), 256);
  EXPECT_EQ(r.i16().value(), -2);
  auto too_much = r.u32();
  ASSERT_FALSE(too_much.ok());
  EXPECT_EQ(too_much.error().code, Errc::corrupt);
  EXPECT_NE(too_much.error().detail.find("needs 4 bytes at position 6, 1 left"), std::string::npos)
      << too_much.error().detail;
  EXPECT_EQ(r.position(), 6u);  // unchanged by the failed read
  EXPECT_EQ(r.text(1).value(), "a");
  EXPECT_TRUE(r.at_end());
  EXPECT_FALSE(r.u8().ok());
  EXPECT_FALSE(r.skip(1).ok());
  EXPECT_TRUE(r.bytes(0).ok());
}

TEST(ByteIo, Hex) {
  std::array<std::uint8_t, 2> out{};
  EXPECT_TRUE(parse_hex("aB09", out).ok());
  EXPECT_EQ(out[0], 0xAB);
  EXPECT_EQ(out[1], 0x09);
  EXPECT_FALSE(parse_hex("aB0", out).ok());
  EXPECT_FALSE(parse_hex("aB0g", out).ok());
}

TEST(Offsets, DistinctTypesWithTheirOwnArithmetic) {
  PhysicalOffset p(100);
  EXPECT_EQ(p + 20, PhysicalOffset(120));
  EXPECT_EQ(PhysicalOffset(120) - p, 20);
  QueueOffset q(5);
  q += 1;
  EXPECT_EQ(q, QueueOffset(6));
  EXPECT_LT(QueueId(1), QueueId(2));
  EXPECT_EQ(fmt::format("{} {} {}", p, q, QueueId(3)), "100 6 3");
  static_assert(!std::is_convertible_v<PhysicalOffset, QueueOffset>);
  static_assert(!std::is_convertible_v<std::int64_t, PhysicalOffset>);
  static_assert(!std::is_convertible_v<PhysicalOffset, std::int64_t>);
}

TEST(HostPort, ParseAndPrint) {
  auto h = HostPort::parse("192.168.0.7:10911");
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(*h, HostPort::v4(192, 168, 0, 7, 10911));
  EXPECT_EQ(h->to_string(), "192.168.0.7:10911");
  auto v6 = HostPort::parse("[fe80::1:2]:80");
  ASSERT_TRUE(v6.ok()) << v6.error().to_string();
  EXPECT_TRUE(v6->ipv6);
  EXPECT_EQ(v6->to_string(), "[fe80:0:0:0:0:0:1:2]:80");
  EXPECT_EQ(HostPort::parse(v6->to_string()).value(), *v6);
  for (const char* bad : {"1.2.3:4", "1.2.3.4", "1.2.3.256:1", "1.2.3.4:70000", "[::1:80",
                          "[1:2:3:4:5:6:7:8:9]:1", "a.b.c.d:1", ":1"}) {
    EXPECT_FALSE(HostPort::parse(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace ferry
