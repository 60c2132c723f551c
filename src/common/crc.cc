#include "common/crc.h"

#include <zlib.h>

namespace ferry {

std::int32_t body_crc(Bytes body) {
  uLong crc = crc32_z(0L, Z_NULL, 0);
  crc = crc32_z(crc, body.data(), body.size());
  return static_cast<std::int32_t>(crc & 0x7FFFFFFFu);
}

}  // namespace ferry
