// The record reader against damaged input (STYLE.md item 4): every truncation is torn, every
// flipped byte is reported as what it is (corrupt, CRC mismatch, torn, or still a valid record
// where the byte lies in a field no check covers), fixing the checksum makes a changed body
// valid again, and nothing crashes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/byte_writer.h"
#include "common/crc.h"
#include "common/properties.h"
#include "common/record_format.h"
#include "common/record_reader.h"
#include "common/record_writer.h"
#include "common/sys_flag.h"

namespace ferry {
namespace {

// One valid record with every variable part non-empty.
struct Sample {
  std::string topic = "TopicTest";
  std::string body = "hello, robustness";
  std::string props = "TAGS\x01TagA\x02KEYS\x01k1 k2";
  std::vector<std::uint8_t> bytes;

  Sample() {
    RecordFields f;
    f.body = as_bytes(body);
    f.body_crc = body_crc(f.body);
    f.queue_id = QueueId(3);
    f.flag = 7;
    f.queue_offset = QueueOffset(42);
    f.physical_offset = PhysicalOffset(1 << 20);
    f.born_timestamp_ms = 1'700'000'000'000;
    f.born_host = HostPort::v4(10, 0, 0, 1, 40000);
    f.store_timestamp_ms = 1'700'000'000'100;
    f.store_host = HostPort::v4(10, 0, 0, 2, 10911);
    f.reconsume_times = 1;
    f.prepared_transaction_offset = 0;
    f.topic = topic;
    f.properties = props;
    bytes.resize(record_size(f).value());
    encode_record(f, bytes);
  }

  // Byte ranges of the variable-position fields.
  std::size_t body_len_pos() const { return 48 + 8 + 8 + 8 + 4 + 8; }
  std::size_t body_pos() const { return body_len_pos() + 4; }
  std::size_t topic_len_pos() const { return body_pos() + body.size(); }
  std::size_t topic_pos() const { return topic_len_pos() + 1; }
  std::size_t props_len_pos() const { return topic_pos() + topic.size(); }
  std::size_t props_pos() const { return props_len_pos() + 2; }
};

TEST(RecordRobustness, SampleLayoutIsWhatTheTestAssumes) {
  Sample s;
  EXPECT_EQ(s.props_pos() + s.props.size(), s.bytes.size());
  RecordRead r = decode_record(s.bytes);
  ASSERT_EQ(r.kind, RecordKind::message) << r.detail;
  EXPECT_EQ(as_text(r.fields.body), s.body);
}

TEST(RecordRobustness, EveryTruncationIsTorn) {
  Sample s;
  for (std::size_t len = 0; len < s.bytes.size(); ++len) {
    RecordRead r = decode_record(Bytes(s.bytes.data(), len));
    ASSERT_EQ(r.kind, RecordKind::torn) << "len " << len << ": " << r.detail;
    EXPECT_EQ(r.size_bytes, len < record::kBlankBytes ? 0 : s.bytes.size()) << len;
    EXPECT_FALSE(r.detail.empty());
  }
}

// What a flip of byte `pos` must produce, from the layout alone.
RecordKind expected_after_flip(const Sample& s, const std::vector<std::uint8_t>& flipped,
                               std::size_t pos, std::uint8_t mask, bool check_crc) {
  if (pos < record::kMagicPos) {  // TOTALSIZE
    auto total = static_cast<std::int32_t>(load_be32(flipped.data()));
    bool plausible = total >= static_cast<std::int32_t>(record::kMinRecordBytes) &&
                     static_cast<std::size_t>(total) <= record::kDefaultRecordBytesMax;
    return plausible && static_cast<std::size_t>(total) > s.bytes.size() ? RecordKind::torn
                                                                         : RecordKind::corrupt;
  }
  if (pos < record::kBodyCrcPos) return RecordKind::corrupt;  // MAGICCODE
  if (pos < record::kQueueIdPos) return check_crc ? RecordKind::corrupt : RecordKind::message;
  // SYSFLAG's low byte holds the IPv6 host bits: the hosts change size and the lengths no longer
  // add up.
  if (pos == record::kSysFlagPos + 3 &&
      (mask & (sysflag::kBornHostV6 | sysflag::kStoreHostV6)) != 0) {
    return RecordKind::corrupt;
  }
  if (pos < s.body_len_pos()) return RecordKind::message;  // fixed fields, hosts, timestamps
  if (pos < s.body_pos()) return RecordKind::corrupt;      // BODYLEN
  if (pos < s.topic_len_pos()) return check_crc ? RecordKind::corrupt : RecordKind::message;
  if (pos == s.topic_len_pos()) return RecordKind::corrupt;  // TOPICLEN
  if (pos < s.props_len_pos()) return RecordKind::message;   // TOPIC bytes: not covered
  if (pos < s.props_pos()) return RecordKind::corrupt;       // PROPERTIESLEN
  return RecordKind::message;  // PROPERTIES bytes: not covered by the record checks
}

void flip_every_byte(std::uint8_t mask, bool check_crc) {
  Sample s;
  for (std::size_t pos = 0; pos < s.bytes.size(); ++pos) {
    std::vector<std::uint8_t> b = s.bytes;
    b[pos] ^= mask;
    RecordRead r = decode_record(b, {.check_crc = check_crc});
    RecordKind want = expected_after_flip(s, b, pos, mask, check_crc);
    ASSERT_EQ(r.kind, want) << "byte " << pos << " ^ " << int{mask} << ": got "
                            << record_kind_name(r.kind) << " (" << r.detail << ")";
    if (want == RecordKind::corrupt || want == RecordKind::torn) {
      EXPECT_FALSE(r.detail.empty()) << pos;
    }
    if (want == RecordKind::message) {
      // Still one whole record: re-encoding what was read gives the flipped bytes back.
      std::vector<std::uint8_t> again(r.size_bytes);
      encode_record(r.fields, again);
      EXPECT_EQ(again, b) << pos;
      // The filter path's shortcut finds the same properties.
      EXPECT_EQ(record_properties(b), std::optional<std::string_view>(r.fields.properties)) << pos;
    } else if (r.kind == RecordKind::corrupt && pos > record::kMagicPos + 3) {
      // Lengths that do not fit are found by the shortcut too (it reads nothing past the bytes).
      const auto props = record_properties(b);
      if (props) {
        EXPECT_LE(reinterpret_cast<const std::uint8_t*>(props->data()) + props->size(), b.data() + b.size()) << pos;
      }
    }
    if (check_crc && pos >= s.body_pos() && pos < s.topic_len_pos()) {
      EXPECT_NE(r.detail.find("CRC"), std::string::npos) << r.detail;
    }
    if (pos >= record::kMagicPos && pos < record::kBodyCrcPos) {
      EXPECT_NE(r.detail.find("magic"), std::string::npos) << r.detail;
    }
  }
}

TEST(RecordRobustness, FlipEveryByteAllBits) { flip_every_byte(0xFF, true); }
TEST(RecordRobustness, FlipEveryByteLowBit) { flip_every_byte(0x01, true); }
TEST(RecordRobustness, FlipEveryByteHighBit) { flip_every_byte(0x80, true); }
TEST(RecordRobustness, FlipEveryByteWithoutCrcCheck) { flip_every_byte(0xFF, false); }

TEST(RecordRobustness, FixingTheChecksumMakesAChangedBodyValid) {
  Sample s;
  for (std::size_t pos = s.body_pos(); pos < s.topic_len_pos(); ++pos) {
    std::vector<std::uint8_t> b = s.bytes;
    b[pos] ^= 0x5A;
    ASSERT_EQ(decode_record(b).kind, RecordKind::corrupt) << pos;
    Bytes body(b.data() + s.body_pos(), s.body.size());
    store_be32(b.data() + record::kBodyCrcPos, static_cast<std::uint32_t>(body_crc(body)));
    RecordRead r = decode_record(b);
    ASSERT_EQ(r.kind, RecordKind::message) << pos << ": " << r.detail;
    EXPECT_EQ(r.fields.body[pos - s.body_pos()], s.bytes[pos] ^ 0x5A);
  }
}

TEST(RecordRobustness, AWrongChecksumIsReportedWithBothValues) {
  Sample s;
  std::vector<std::uint8_t> b = s.bytes;
  store_be32(b.data() + record::kBodyCrcPos, 0x12345678);
  RecordRead r = decode_record(b);
  ASSERT_EQ(r.kind, RecordKind::corrupt);
  EXPECT_NE(r.detail.find("0x12345678"), std::string::npos) << r.detail;
  EXPECT_EQ(decode_record(b, {.check_crc = false}).kind, RecordKind::message);
}

TEST(RecordRobustness, LengthsThatDisagreeWithTotalSize) {
  Sample s;
  // Claim one more byte of total size and append a byte: the fields end one byte early.
  std::vector<std::uint8_t> b = s.bytes;
  b.push_back(0);
  store_be32(b.data(), static_cast<std::uint32_t>(b.size()));
  RecordRead r = decode_record(b);
  ASSERT_EQ(r.kind, RecordKind::corrupt);
  EXPECT_NE(r.detail.find("TOTALSIZE"), std::string::npos) << r.detail;
  // Negative body length.
  b = s.bytes;
  store_be32(b.data() + s.body_len_pos(), 0xFFFFFFF0u);
  r = decode_record(b);
  ASSERT_EQ(r.kind, RecordKind::corrupt);
  EXPECT_NE(r.detail.find("BODYLEN"), std::string::npos) << r.detail;
}

TEST(RecordRobustness, SizeLimitIsAnOption) {
  Sample s;
  RecordRead r = decode_record(s.bytes, {.size_bytes_max = s.bytes.size() - 1});
  EXPECT_EQ(r.kind, RecordKind::corrupt);
  EXPECT_EQ(decode_record(s.bytes, {.size_bytes_max = s.bytes.size()}).kind, RecordKind::message);
}

TEST(RecordRobustness, BlankMarker) {
  std::vector<std::uint8_t> file(64, 0xAB);
  encode_blank(64, file);
  RecordRead r = decode_record(file);
  EXPECT_EQ(r.kind, RecordKind::blank);
  EXPECT_EQ(r.size_bytes, 64u);
  // Only its 8 bytes are needed.
  EXPECT_EQ(decode_record(Bytes(file.data(), 8)).kind, RecordKind::blank);
  EXPECT_EQ(decode_record(Bytes(file.data(), 7)).kind, RecordKind::torn);
  // A blank that claims less than itself.
  store_be32(file.data(), 4);
  EXPECT_EQ(decode_record(file).kind, RecordKind::corrupt);
}

TEST(RecordRobustness, ZerosAreUnwritten) {
  std::vector<std::uint8_t> zeros(200, 0);
  EXPECT_EQ(decode_record(zeros).kind, RecordKind::unwritten);
  EXPECT_EQ(decode_record(Bytes(zeros.data(), 8)).kind, RecordKind::unwritten);
  // A size with zero magic is not "unwritten": it is corrupt.
  zeros[3] = 100;
  EXPECT_EQ(decode_record(zeros).kind, RecordKind::corrupt);
}

TEST(RecordRobustness, RecordsThenBlankInAFile) {
  Sample s;
  std::vector<std::uint8_t> file(3 * s.bytes.size() + 40, 0);
  std::size_t pos = 0;
  for (int i = 0; i < 3; ++i) {
    std::copy(s.bytes.begin(), s.bytes.end(), file.begin() + static_cast<long>(pos));
    pos += s.bytes.size();
  }
  encode_blank(file.size() - pos, MutableBytes(file).subspan(pos));
  std::vector<RecordKind> kinds;
  pos = 0;
  while (pos < file.size()) {
    RecordRead r = decode_record(Bytes(file).subspan(pos));
    kinds.push_back(r.kind);
    ASSERT_GT(r.size_bytes, 0u);
    pos += r.size_bytes;
  }
  EXPECT_EQ(pos, file.size());
  EXPECT_EQ(kinds, (std::vector<RecordKind>{RecordKind::message, RecordKind::message,
                                            RecordKind::message, RecordKind::blank}));
}

TEST(RecordRobustness, Ipv6HostsChangeTheLayout) {
  Sample s;
  RecordFields f = decode_record(s.bytes).fields;
  std::array<std::uint8_t, 16> ip{};
  ip[15] = 1;
  f.born_host = HostPort::v6(ip, 1234);
  EXPECT_FALSE(record_size(f).ok());  // sys_flag does not say so yet
  f.sys_flag = with_host_flags(f.sys_flag, f.born_host, f.store_host);
  EXPECT_EQ(f.sys_flag & sysflag::kBornHostV6, sysflag::kBornHostV6);
  auto size = record_size(f);
  ASSERT_TRUE(size.ok());
  EXPECT_EQ(*size, s.bytes.size() + 12);
  std::vector<std::uint8_t> b(*size);
  encode_record(f, b);
  RecordRead r = decode_record(b);
  ASSERT_EQ(r.kind, RecordKind::message) << r.detail;
  EXPECT_EQ(r.fields.born_host, f.born_host);
  EXPECT_EQ(r.fields.store_host, f.store_host);
}

TEST(RecordRobustness, WriterRejectsWhatCannotBeEncoded) {
  Sample s;
  RecordFields f = decode_record(s.bytes).fields;
  std::string long_topic(128, 'a');
  f.topic = long_topic;
  EXPECT_EQ(record_size(f).error().code, Errc::invalid_argument);
  f.topic = "";
  EXPECT_EQ(record_size(f).error().code, Errc::invalid_argument);
  f.topic = "T";
  std::string big_props(32768, 'x');
  f.properties = big_props;
  EXPECT_EQ(record_size(f).error().code, Errc::invalid_argument);
  f.properties = std::string_view(big_props).substr(0, 32767);
  EXPECT_TRUE(record_size(f).ok());
}

}  // namespace
}  // namespace ferry
