#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <set>

#include "common/msg_id.h"
#include "common/unique_id.h"

namespace ferry {
namespace {

TEST(OffsetMsgId, EncodeAndDecode) {
  auto id = encode_offset_msg_id(HostPort::v4(192, 168, 0, 7, 10911), PhysicalOffset(1073741824));
  EXPECT_EQ(id, "C0A8000700002A9F0000000040000000");
  auto back = decode_offset_msg_id(id);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->store_host, HostPort::v4(192, 168, 0, 7, 10911));
  EXPECT_EQ(back->offset, PhysicalOffset(1073741824));
  EXPECT_TRUE(decode_offset_msg_id("c0a8000700002a9f0000000040000000").ok());  // either case
}

TEST(OffsetMsgId, Ipv6Is56Chars) {
  std::array<std::uint8_t, 16> ip{};
  ip[0] = 0xfe;
  ip[15] = 1;
  auto id = encode_offset_msg_id(HostPort::v6(ip, 10911), PhysicalOffset(5));
  EXPECT_EQ(id.size(), kOffsetMsgIdV6Chars);
  EXPECT_EQ(decode_offset_msg_id(id).value(), (OffsetMsgId{HostPort::v6(ip, 10911), PhysicalOffset(5)}));
}

TEST(OffsetMsgId, RejectsBadText) {
  EXPECT_FALSE(decode_offset_msg_id("").ok());
  EXPECT_FALSE(decode_offset_msg_id("C0A8000700002A9F000000004000000").ok());
  EXPECT_FALSE(decode_offset_msg_id("Z0A8000700002A9F0000000040000000").ok());
}

RC_GTEST_PROP(OffsetMsgId, RoundTrip, (std::array<std::uint8_t, 4> ip, std::int32_t port,
                                       std::int64_t offset)) {
  HostPort h = HostPort::v4(ip[0], ip[1], ip[2], ip[3], port);
  auto id = encode_offset_msg_id(h, PhysicalOffset(offset));
  RC_ASSERT(id.size() == kOffsetMsgIdV4Chars);
  auto back = decode_offset_msg_id(id);
  RC_ASSERT(back.ok());
  RC_ASSERT(back->store_host == h);
  RC_ASSERT(back->offset == PhysicalOffset(offset));
}

TEST(UniqId, LayoutAndCounter) {
  UniqIdGenerator gen({127, 0, 0, 1}, 0x12345, 0x0A0B0C0D);
  const WallMs now = 1795991228539;  // 2026-11-29T22:27:08.539Z
  std::string a = gen.next(now);
  std::string b = gen.next(now);
  ASSERT_EQ(a.size(), kUniqIdChars);
  // ip | pid low 16 bits | hash | ms since 2026-11-01T00:00Z (2500028539, wraps in 32 bits) | counter
  EXPECT_EQ(a, "7F00000123450A0B0C0D9503687B0000");
  EXPECT_EQ(b, "7F00000123450A0B0C0D9503687B0001");
  auto parts = parse_uniq_id(b);
  ASSERT_TRUE(parts.ok());
  EXPECT_EQ(parts->ip, (std::array<std::uint8_t, 4>{127, 0, 0, 1}));
  EXPECT_EQ(parts->pid, 0x2345);
  EXPECT_EQ(parts->process_hash, 0x0A0B0C0D);
  EXPECT_EQ(parts->ms_since_month_start, 2500028539u);
  EXPECT_EQ(parts->counter, 1);
  EXPECT_FALSE(parse_uniq_id("7F00").ok());
}

TEST(UniqId, CounterWrapsAndIdsDifferWithinAMillisecond) {
  UniqIdGenerator gen({10, 0, 0, 1}, 1, 2);
  std::set<std::string> seen;
  for (int i = 0; i < 65536; ++i) seen.insert(gen.next(1'700'000'000'000));
  EXPECT_EQ(seen.size(), 65536u);
  EXPECT_EQ(gen.next(1'700'000'000'000).substr(28), "0000");
}

TEST(UniqId, MonthBoundaries) {
  EXPECT_EQ(month_start_ms(1795991228539), 1793491200000);
  EXPECT_EQ(next_month_start_ms(1795991228539), 1796083200000);
  EXPECT_EQ(month_start_ms(1709251200000 - 1), 1706745600000);  // Feb 2024, leap year
  EXPECT_EQ(next_month_start_ms(1706745600000), 1709251200000);
  EXPECT_EQ(next_month_start_ms(1733011200000 + 5), 1735689600000);  // December -> January
  EXPECT_EQ(month_start_ms(-1), -2678400000);  // before the epoch: December 1969
  // Crossing into the next month restarts the time part.
  UniqIdGenerator gen({10, 0, 0, 1}, 1, 2);
  (void)gen.next(1796083200000 - 1);
  auto parts = parse_uniq_id(gen.next(1796083200000 + 7));
  ASSERT_TRUE(parts.ok());
  EXPECT_EQ(parts->ms_since_month_start, 7u);
  // So does a clock that jumps back a month.
  parts = parse_uniq_id(gen.next(1795991228539));
  EXPECT_EQ(parts->ms_since_month_start, 2500028539u);
}

}  // namespace
}  // namespace ferry
