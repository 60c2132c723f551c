// The sysFlag bits of a stored message (RocketMQ's MessageSysFlag).
//
//   bit 0      compressed body
//   bit 1      multi tags (unused by 4.x clients)
//   bits 2-3   transaction type: 0 none, 1 prepared (half), 2 commit, 3 rollback
//   bit 4      born host is IPv6 (20 bytes in the record instead of 8)
//   bit 5      store host is IPv6
//   bit 6      need unwrap (5.x)
//   bit 7      inner batch (5.x)
//   bits 8-10  compression type: 1 LZ4, 2 ZSTD, 3 ZLIB; 0 also means zlib (4.x clients)
#pragma once

#include <cstdint>

namespace ferry::sysflag {

inline constexpr std::int32_t kCompressed = 0x1;
inline constexpr std::int32_t kMultiTags = 0x1 << 1;

inline constexpr std::int32_t kTransactionNotType = 0;
inline constexpr std::int32_t kTransactionPreparedType = 0x1 << 2;
inline constexpr std::int32_t kTransactionCommitType = 0x2 << 2;
inline constexpr std::int32_t kTransactionRollbackType = 0x3 << 2;
inline constexpr std::int32_t kTransactionMask = 0x3 << 2;

inline constexpr std::int32_t kBornHostV6 = 0x1 << 4;
inline constexpr std::int32_t kStoreHostV6 = 0x1 << 5;
inline constexpr std::int32_t kNeedUnwrap = 0x1 << 6;
inline constexpr std::int32_t kInnerBatch = 0x1 << 7;

inline constexpr std::int32_t kCompressionLz4 = 0x1 << 8;
inline constexpr std::int32_t kCompressionZstd = 0x2 << 8;
inline constexpr std::int32_t kCompressionZlib = 0x3 << 8;
inline constexpr std::int32_t kCompressionTypeMask = 0x7 << 8;

static_assert((kTransactionMask & (kCompressed | kMultiTags | kBornHostV6 | kStoreHostV6)) == 0);
static_assert((kCompressionTypeMask & (kInnerBatch | kNeedUnwrap | kStoreHostV6)) == 0);

constexpr std::int32_t transaction_type(std::int32_t flag) { return flag & kTransactionMask; }
constexpr std::int32_t with_transaction_type(std::int32_t flag, std::int32_t type) {
  return (flag & ~kTransactionMask) | (type & kTransactionMask);
}

enum class Compression : std::uint8_t { zlib, lz4, zstd, unknown };

// The body's compression algorithm (meaningful only when kCompressed is set).
constexpr Compression compression(std::int32_t flag) {
  switch (flag & kCompressionTypeMask) {
    case 0:
    case kCompressionZlib: return Compression::zlib;
    case kCompressionLz4: return Compression::lz4;
    case kCompressionZstd: return Compression::zstd;
    default: return Compression::unknown;
  }
}

constexpr bool born_host_v6(std::int32_t flag) { return (flag & kBornHostV6) != 0; }
constexpr bool store_host_v6(std::int32_t flag) { return (flag & kStoreHostV6) != 0; }

}  // namespace ferry::sysflag
