// The body checksum RocketMQ stores in BODYCRC: zlib's CRC-32 of the body with the top bit
// cleared (crc32 & 0x7FFFFFFF), so that it fits a non-negative Java int.
#pragma once

#include <cstdint>

#include "common/big_endian.h"

namespace ferry {

std::int32_t body_crc(Bytes body);

}  // namespace ferry
