#include "common/record_reader.h"

#include <fmt/format.h>

#include "common/big_endian.h"
#include "common/byte_reader.h"
#include "common/crc.h"
#include "common/sys_flag.h"
#include "runtime/assert.h"

namespace ferry {
namespace {

RecordRead problem(RecordKind kind, std::size_t size, std::string detail) {
  RecordRead r;
  r.kind = kind;
  r.size_bytes = size;
  r.detail = std::move(detail);
  return r;
}

// Reads the fields after TOTALSIZE and MAGICCODE from a span that holds exactly one record.
// Errors carry the corrupt detail.
Result<RecordFields> read_fields(Bytes record) {
  ByteReader in(record.subspan(record::kBodyCrcPos));
  RecordFields f;
  auto field = [&](auto result, const char* name, auto& out) -> Status {
    if (!result) {
      return Error(Errc::corrupt, fmt::format("{} runs past the record's {} bytes ({})", name,
                                              record.size(), result.error().detail));
    }
    out = *result;
    return {};
  };
  std::int32_t queue_id = 0;
  std::int64_t queue_offset = 0;
  std::int64_t physical_offset = 0;
  FERRY_TRY(field(in.i32(), "BODYCRC", f.body_crc));
  FERRY_TRY(field(in.i32(), "QUEUEID", queue_id));
  FERRY_TRY(field(in.i32(), "FLAG", f.flag));
  FERRY_TRY(field(in.i64(), "QUEUEOFFSET", queue_offset));
  FERRY_TRY(field(in.i64(), "PHYSICALOFFSET", physical_offset));
  FERRY_TRY(field(in.i32(), "SYSFLAG", f.sys_flag));
  FERRY_TRY(field(in.i64(), "BORNTIMESTAMP", f.born_timestamp_ms));
  f.queue_id = QueueId(queue_id);
  f.queue_offset = QueueOffset(queue_offset);
  f.physical_offset = PhysicalOffset(physical_offset);

  auto host = [&](bool v6, const char* name, HostPort& out) -> Status {
    out.ipv6 = v6;
    Bytes ip;
    FERRY_TRY(field(in.bytes(out.ip_size()), name, ip));
    for (std::size_t i = 0; i < ip.size(); ++i) out.ip[i] = ip[i];
    return field(in.i32(), name, out.port);
  };
  FERRY_TRY(host(sysflag::born_host_v6(f.sys_flag), "BORNHOST", f.born_host));
  FERRY_TRY(field(in.i64(), "STORETIMESTAMP", f.store_timestamp_ms));
  FERRY_TRY(host(sysflag::store_host_v6(f.sys_flag), "STOREHOST", f.store_host));
  FERRY_TRY(field(in.i32(), "RECONSUMETIMES", f.reconsume_times));
  FERRY_TRY(field(in.i64(), "PREPAREDTRANSACTIONOFFSET", f.prepared_transaction_offset));

  std::int32_t body_len = 0;
  FERRY_TRY(field(in.i32(), "BODYLEN", body_len));
  if (body_len < 0) {
    return Error(Errc::corrupt, fmt::format("BODYLEN is negative ({}) at byte {}", body_len,
                                            record::kBodyCrcPos + in.position() - 4));
  }
  FERRY_TRY(field(in.bytes(static_cast<std::size_t>(body_len)), "BODY", f.body));
  std::int8_t topic_len = 0;
  FERRY_TRY(field(in.i8(), "TOPICLEN", topic_len));
  if (topic_len <= 0) {
    return Error(Errc::corrupt, fmt::format("TOPICLEN is {}; a topic has 1..{} bytes", topic_len,
                                            record::kTopicBytesMax));
  }
  FERRY_TRY(field(in.text(static_cast<std::size_t>(topic_len)), "TOPIC", f.topic));
  std::int16_t props_len = 0;
  FERRY_TRY(field(in.i16(), "PROPERTIESLEN", props_len));
  if (props_len < 0) {
    return Error(Errc::corrupt, fmt::format("PROPERTIESLEN is negative ({})", props_len));
  }
  FERRY_TRY(field(in.text(static_cast<std::size_t>(props_len)), "PROPERTIES", f.properties));
  if (!in.at_end()) {
    return Error(Errc::corrupt,
                 fmt::format("fields end at byte {} but TOTALSIZE says {}",
                             record::kBodyCrcPos + in.position(), record.size()));
  }
  return f;
}

}  // namespace

std::string_view record_kind_name(RecordKind k) {
  switch (k) {
    case RecordKind::message: return "message";
    case RecordKind::blank: return "blank";
    case RecordKind::unwritten: return "unwritten";
    case RecordKind::torn: return "torn";
    case RecordKind::corrupt: return "corrupt";
  }
  return "unknown";
}

RecordRead decode_record(Bytes data, const RecordDecodeOptions& options) {
  if (data.size() < record::kBlankBytes) {
    return problem(RecordKind::torn, 0,
                   fmt::format("{} bytes, fewer than the {} of a record's size and magic",
                               data.size(), record::kBlankBytes));
  }
  const std::uint32_t total = load_be32(data.data() + record::kTotalSizePos);
  const std::uint32_t magic = load_be32(data.data() + record::kMagicPos);
  const auto total_signed = static_cast<std::int32_t>(total);

  if (total == 0 && magic == 0) {
    return problem(RecordKind::unwritten, 0, {});
  }
  if (magic == record::kBlankMagic) {
    if (total_signed < static_cast<std::int32_t>(record::kBlankBytes)) {
      return problem(RecordKind::corrupt, 0,
                     fmt::format("blank marker claims {} bytes, fewer than its own {}",
                                 total_signed, record::kBlankBytes));
    }
    return problem(RecordKind::blank, total, {});
  }
  if (magic != record::kMessageMagic) {
    return problem(RecordKind::corrupt, 0,
                   fmt::format("bad magic {:#010x} (TOTALSIZE field {})", magic, total_signed));
  }
  if (total_signed < static_cast<std::int32_t>(record::kMinRecordBytes) ||
      total > options.size_bytes_max) {
    return problem(RecordKind::corrupt, 0,
                   fmt::format("TOTALSIZE {} outside [{}, {}]", total_signed,
                               record::kMinRecordBytes, options.size_bytes_max));
  }
  if (total > data.size()) {
    return problem(RecordKind::torn, total,
                   fmt::format("record claims {} bytes, {} available", total, data.size()));
  }
  auto fields = read_fields(data.first(total));
  if (!fields) return problem(RecordKind::corrupt, 0, std::move(fields).error().detail);
  if (options.check_crc) {
    std::int32_t crc = body_crc(fields->body);
    if (crc != fields->body_crc) {
      return problem(RecordKind::corrupt, 0,
                     fmt::format("body CRC mismatch: stored {:#010x}, computed {:#010x} over {} "
                                 "body bytes",
                                 fields->body_crc, crc, fields->body.size()));
    }
  }
  RecordRead r;
  r.kind = RecordKind::message;
  r.size_bytes = total;
  r.fields = *fields;
  FERRY_ASSERT_LE(r.size_bytes, data.size());
  return r;
}

std::optional<std::string_view> record_properties(Bytes record) {
  using namespace record;
  const std::size_t size = record.size();
  const std::uint8_t* p = record.data();
  if (size < kBornHostPos) return std::nullopt;
  const auto sys_flag = static_cast<std::int32_t>(load_be32(p + kSysFlagPos));
  std::size_t at = kBornHostPos + (sysflag::born_host_v6(sys_flag) ? kHostV6Bytes : kHostV4Bytes) +
                   kStoreTimestampBytes + (sysflag::store_host_v6(sys_flag) ? kHostV6Bytes : kHostV4Bytes) +
                   kReconsumeTimesBytes + kPreparedTransactionOffsetBytes;
  if (at + kBodyLengthBytes > size) return std::nullopt;
  const auto body_len = static_cast<std::int32_t>(load_be32(p + at));
  if (body_len < 0) return std::nullopt;
  at += kBodyLengthBytes;
  if (static_cast<std::size_t>(body_len) > size - at) return std::nullopt;
  at += static_cast<std::size_t>(body_len);
  if (at + kTopicLengthBytes > size) return std::nullopt;
  const auto topic_len = static_cast<std::int8_t>(p[at]);
  if (topic_len <= 0) return std::nullopt;
  at += kTopicLengthBytes + static_cast<std::size_t>(topic_len);
  if (at + kPropertiesLengthBytes > size) return std::nullopt;
  const auto props_len = static_cast<std::int16_t>(load_be16(p + at));
  if (props_len < 0) return std::nullopt;
  at += kPropertiesLengthBytes;
  if (static_cast<std::size_t>(props_len) > size - at) return std::nullopt;
  return std::string_view(reinterpret_cast<const char*>(p + at), static_cast<std::size_t>(props_len));
}

}  // namespace ferry
