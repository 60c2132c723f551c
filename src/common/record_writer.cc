#include "common/record_writer.h"

#include <fmt/format.h>

#include <limits>

#include "common/byte_writer.h"
#include "common/record_format.h"
#include "common/sys_flag.h"
#include "runtime/assert.h"

namespace ferry {
namespace {

constexpr std::size_t kInt32Max = static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max());

void put_host(SpanWriter& w, const HostPort& h) {
  w.bytes(Bytes(h.ip.data(), h.ip_size()));
  w.i32(h.port);
}

}  // namespace

Result<std::size_t> record_size(const RecordFields& f) {
  if (f.topic.empty()) return Error(Errc::invalid_argument, "record topic is empty");
  if (f.topic.size() > record::kTopicBytesMax) {
    return Error(Errc::invalid_argument, fmt::format("record topic has {} bytes, at most {}",
                                                     f.topic.size(), record::kTopicBytesMax));
  }
  if (f.properties.size() > record::kPropertiesBytesMax) {
    return Error(Errc::invalid_argument,
                 fmt::format("record properties have {} bytes, at most {} (topic {})",
                             f.properties.size(), record::kPropertiesBytesMax, f.topic));
  }
  if (sysflag::born_host_v6(f.sys_flag) != f.born_host.ipv6 ||
      sysflag::store_host_v6(f.sys_flag) != f.store_host.ipv6) {
    return Error(Errc::invalid_argument,
                 fmt::format("record sys_flag {:#x} disagrees with born host {} / store host {}",
                             f.sys_flag, f.born_host.to_string(), f.store_host.to_string()));
  }
  if (f.body.size() > kInt32Max) {
    return Error(Errc::invalid_argument, fmt::format("record body has {} bytes", f.body.size()));
  }
  std::size_t n = record::record_size(f.born_host.ipv6, f.store_host.ipv6, f.body.size(),
                                      f.topic.size(), f.properties.size());
  if (n > kInt32Max) {
    return Error(Errc::invalid_argument, fmt::format("record would have {} bytes", n));
  }
  return n;
}

std::size_t encode_record(const RecordFields& f, MutableBytes out) {
  auto size = record_size(f);
  FERRY_ASSERT(size.ok(), "encode_record of invalid fields: {}", size.error().to_string());
  FERRY_ASSERT(out.size() >= *size, "encode_record needs {} bytes, buffer has {}", *size,
               out.size());
  SpanWriter w(out.first(*size));
  w.i32(static_cast<std::int32_t>(*size));
  w.u32(record::kMessageMagic);
  w.i32(f.body_crc);
  w.i32(f.queue_id.value());
  w.i32(f.flag);
  w.i64(f.queue_offset.value());
  w.i64(f.physical_offset.value());
  w.i32(f.sys_flag);
  w.i64(f.born_timestamp_ms);
  FERRY_ASSERT_EQ(w.position(), record::kBornHostPos);
  put_host(w, f.born_host);
  w.i64(f.store_timestamp_ms);
  put_host(w, f.store_host);
  w.i32(f.reconsume_times);
  w.i64(f.prepared_transaction_offset);
  w.i32(static_cast<std::int32_t>(f.body.size()));
  w.bytes(f.body);
  w.i8(static_cast<std::int8_t>(f.topic.size()));
  w.text(f.topic);
  w.i16(static_cast<std::int16_t>(f.properties.size()));
  w.text(f.properties);
  FERRY_ASSERT_EQ(w.position(), *size);
  return *size;
}

std::int32_t with_host_flags(std::int32_t sys_flag, const HostPort& born, const HostPort& store) {
  sys_flag &= ~(sysflag::kBornHostV6 | sysflag::kStoreHostV6);
  if (born.ipv6) sys_flag |= sysflag::kBornHostV6;
  if (store.ipv6) sys_flag |= sysflag::kStoreHostV6;
  return sys_flag;
}

void encode_blank(std::size_t file_remaining_bytes, MutableBytes out) {
  FERRY_ASSERT(file_remaining_bytes >= record::kBlankBytes, "blank of {} bytes is below {}",
               file_remaining_bytes, record::kBlankBytes);
  FERRY_ASSERT(file_remaining_bytes <= kInt32Max, "blank of {} bytes", file_remaining_bytes);
  FERRY_ASSERT(out.size() >= record::kBlankBytes, "blank needs 8 bytes, buffer has {}",
               out.size());
  SpanWriter w(out.first(record::kBlankBytes));
  w.i32(static_cast<std::int32_t>(file_remaining_bytes));
  w.u32(record::kBlankMagic);
}

}  // namespace ferry
