// MD5 (RFC 1321). Used only where RocketMQ uses it for compatibility (the consistent-hash
// rebalance ring), never for security.
#pragma once

#include <array>
#include <cstdint>

#include "common/big_endian.h"

namespace ferry {

std::array<std::uint8_t, 16> md5(Bytes data);

}  // namespace ferry
