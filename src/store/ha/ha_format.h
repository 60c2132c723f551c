// The HA wire format (RocketMQ 4.9's HAConnection / HAClient), a raw byte stream on the master's
// HA port (listen port + 1), not the remoting protocol:
//
//   slave -> master   report   i64 BE   the slave's max CommitLog offset (every 5 s, and after
//                                        each batch it applied)
//   master -> slave   batch    i64 BE   physical offset of the first byte
//                              i32 BE   size of the data (0 = heartbeat)
//                              size bytes of CommitLog, byte for byte, from one file
//
// A slave that reports 0 (an empty log) is fed from the start of the master's last CommitLog
// file. A batch whose offset is not the slave's log end (on a non-empty log) ends the link.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "common/big_endian.h"
#include "common/offsets.h"

namespace ferry::store::ha {

inline constexpr std::size_t kReportBytes = 8;
inline constexpr std::size_t kBatchHeaderBytes = 12;
// What a slave accepts in one batch: far above any master's transfer batch, so that a bad
// length is refused before it allocates.
inline constexpr std::int32_t kBatchBytesMax = 16 << 20;

inline std::array<std::uint8_t, kReportBytes> encode_report(PhysicalOffset offset) {
  std::array<std::uint8_t, kReportBytes> out{};
  store_be64(out.data(), static_cast<std::uint64_t>(offset.value()));
  return out;
}
inline PhysicalOffset decode_report(const std::uint8_t* p) {
  return PhysicalOffset(static_cast<std::int64_t>(load_be64(p)));
}

struct BatchHeader {
  PhysicalOffset offset;
  std::int32_t size = 0;
};
inline std::array<std::uint8_t, kBatchHeaderBytes> encode_batch_header(const BatchHeader& h) {
  std::array<std::uint8_t, kBatchHeaderBytes> out{};
  store_be64(out.data(), static_cast<std::uint64_t>(h.offset.value()));
  store_be32(out.data() + 8, static_cast<std::uint32_t>(h.size));
  return out;
}
inline BatchHeader decode_batch_header(const std::uint8_t* p) {
  return BatchHeader{PhysicalOffset(static_cast<std::int64_t>(load_be64(p))),
                     static_cast<std::int32_t>(load_be32(p + 8))};
}

}  // namespace ferry::store::ha
