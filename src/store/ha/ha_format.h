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
//
// Controller mode (RocketMQ 5's AutoSwitchHAClient / AutoSwitchHAConnection), when the broker
// keeps an epoch file. Every frame starts with the connection state (HAConnectionState's
// ordinal: 1 HANDSHAKE, 2 TRANSFER):
//
//   slave -> master   handshake  i32 1, i16 syncFromLastFile (0/1), i16 asyncLearner (0/1),
//                                 i64 the slave's replica id                             16 bytes
//   master -> slave   handshake  i32 1, i32 body size, i64 the master's max offset,
//                                 i32 its last epoch; body: per epoch i32 epoch, i64 start
//                                 offset, oldest first                              20 + 12 N bytes
//   slave -> master   ack        i32 2, i64 the slave's max (durable) offset            12 bytes
//   master -> slave   transfer   i32 2, i32 body size (0 = heartbeat), i64 offset of the first
//                                 byte, i32 the epoch that wrote it, i64 that epoch's start,
//                                 i64 the master's confirm offset; body: CommitLog bytes
//                                 of one file and one epoch                      36 + size bytes
//
// The slave's first ack, after it cut its log back to the last offset both logs' epochs agree on
// (EpochCache::consistent_point), is where the master starts sending.
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

// ---- controller mode ----

inline constexpr std::int32_t kStateHandshake = 1;
inline constexpr std::int32_t kStateTransfer = 2;
inline constexpr std::size_t kSlaveHandshakeBytes = 16;
inline constexpr std::size_t kMasterHandshakeBytes = 20;
inline constexpr std::size_t kEpochEntryBytes = 12;
inline constexpr std::size_t kAckBytes = 12;
inline constexpr std::size_t kTransferHeaderBytes = 36;
// The most epochs a master's handshake carries (RocketMQ's buffer holds 1000): the newest ones.
inline constexpr std::size_t kHandshakeEpochsMax = 1000;

struct SlaveHandshake {
  bool sync_from_last_file = false;
  bool async_learner = false;
  std::int64_t replica_id = 0;
};
inline std::array<std::uint8_t, kSlaveHandshakeBytes> encode_slave_handshake(const SlaveHandshake& h) {
  std::array<std::uint8_t, kSlaveHandshakeBytes> out{};
  store_be32(out.data(), static_cast<std::uint32_t>(kStateHandshake));
  store_be16(out.data() + 4, h.sync_from_last_file ? 1 : 0);
  store_be16(out.data() + 6, h.async_learner ? 1 : 0);
  store_be64(out.data() + 8, static_cast<std::uint64_t>(h.replica_id));
  return out;
}
// The state at the front of a frame (the reader checks it before decoding the rest).
inline std::int32_t decode_state(const std::uint8_t* p) { return static_cast<std::int32_t>(load_be32(p)); }
inline SlaveHandshake decode_slave_handshake(const std::uint8_t* p) {
  return SlaveHandshake{load_be16(p + 4) != 0, load_be16(p + 6) != 0, static_cast<std::int64_t>(load_be64(p + 8))};
}

struct MasterHandshake {
  std::int32_t body_bytes = 0;
  PhysicalOffset max_offset;
  std::int32_t last_epoch = -1;
};
inline std::array<std::uint8_t, kMasterHandshakeBytes> encode_master_handshake(const MasterHandshake& h) {
  std::array<std::uint8_t, kMasterHandshakeBytes> out{};
  store_be32(out.data(), static_cast<std::uint32_t>(kStateHandshake));
  store_be32(out.data() + 4, static_cast<std::uint32_t>(h.body_bytes));
  store_be64(out.data() + 8, static_cast<std::uint64_t>(h.max_offset.value()));
  store_be32(out.data() + 16, static_cast<std::uint32_t>(h.last_epoch));
  return out;
}
inline MasterHandshake decode_master_handshake(const std::uint8_t* p) {
  return MasterHandshake{static_cast<std::int32_t>(load_be32(p + 4)), PhysicalOffset(static_cast<std::int64_t>(load_be64(p + 8))),
                         static_cast<std::int32_t>(load_be32(p + 16))};
}

inline std::array<std::uint8_t, kAckBytes> encode_ack(PhysicalOffset offset) {
  std::array<std::uint8_t, kAckBytes> out{};
  store_be32(out.data(), static_cast<std::uint32_t>(kStateTransfer));
  store_be64(out.data() + 4, static_cast<std::uint64_t>(offset.value()));
  return out;
}
inline PhysicalOffset decode_ack(const std::uint8_t* p) { return PhysicalOffset(static_cast<std::int64_t>(load_be64(p + 4))); }

struct TransferHeader {
  std::int32_t size = 0;
  PhysicalOffset offset;
  std::int32_t epoch = 0;
  PhysicalOffset epoch_start;
  PhysicalOffset confirm_offset;
};
inline std::array<std::uint8_t, kTransferHeaderBytes> encode_transfer_header(const TransferHeader& h) {
  std::array<std::uint8_t, kTransferHeaderBytes> out{};
  store_be32(out.data(), static_cast<std::uint32_t>(kStateTransfer));
  store_be32(out.data() + 4, static_cast<std::uint32_t>(h.size));
  store_be64(out.data() + 8, static_cast<std::uint64_t>(h.offset.value()));
  store_be32(out.data() + 16, static_cast<std::uint32_t>(h.epoch));
  store_be64(out.data() + 20, static_cast<std::uint64_t>(h.epoch_start.value()));
  store_be64(out.data() + 28, static_cast<std::uint64_t>(h.confirm_offset.value()));
  return out;
}
inline TransferHeader decode_transfer_header(const std::uint8_t* p) {
  return TransferHeader{static_cast<std::int32_t>(load_be32(p + 4)), PhysicalOffset(static_cast<std::int64_t>(load_be64(p + 8))),
                        static_cast<std::int32_t>(load_be32(p + 16)),
                        PhysicalOffset(static_cast<std::int64_t>(load_be64(p + 20))),
                        PhysicalOffset(static_cast<std::int64_t>(load_be64(p + 28)))};
}

}  // namespace ferry::store::ha
