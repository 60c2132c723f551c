// CRC-32 (the IEEE / zlib / gzip polynomial, reflected 0xEDB88320) and the body checksum
// RocketMQ stores in BODYCRC.
//
// crc32_update(crc, data) continues a CRC exactly like zlib's crc32(crc, data, len): start from
// 0, feed pieces in order, the result equals the CRC of the concatenation. On x86-64 CPUs with
// PCLMULQDQ the bulk of a buffer of 64 bytes or more is folded with carry-less multiplication
// (about 10x zlib's table code); the rest, and other CPUs, use zlib. Both paths give the same
// value for every input (tests/common/crc_test.cc compares them with zlib's).
#pragma once

#include <cstdint>

#include "common/big_endian.h"

namespace ferry {

std::uint32_t crc32_update(std::uint32_t crc, Bytes data);

// zlib's CRC-32 of the body with the top bit cleared (crc32 & 0x7FFFFFFF), so that it fits a
// non-negative Java int.
std::int32_t body_crc(Bytes body);

// Which implementation crc32_update uses on this machine: "pclmul" or "zlib" (for benchmarks).
const char* crc32_implementation();

namespace detail {
// zlib only (the reference the fast path is checked against).
std::uint32_t crc32_zlib(std::uint32_t crc, Bytes data);
}  // namespace detail

}  // namespace ferry
