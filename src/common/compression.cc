#include "common/compression.h"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <limits>

#include "runtime/assert.h"

namespace ferry {

std::vector<std::uint8_t> zlib_compress(Bytes data, int level) {
  FERRY_ASSERT(level >= 0 && level <= 9, "zlib level {} outside 0..9", level);
  FERRY_ASSERT(data.size() <= std::numeric_limits<uLong>::max(), "{} bytes", data.size());
  uLongf bound = compressBound(static_cast<uLong>(data.size()));
  std::vector<std::uint8_t> out(bound);
  int rc = compress2(out.data(), &bound, data.data(), static_cast<uLong>(data.size()), level);
  FERRY_ASSERT(rc == Z_OK, "compress2 of {} bytes failed with {}", data.size(), rc);
  out.resize(bound);
  return out;
}

Result<std::vector<std::uint8_t>> zlib_decompress(Bytes data, std::size_t size_bytes_max) {
  z_stream zs{};
  int rc = inflateInit(&zs);
  FERRY_ASSERT(rc == Z_OK, "inflateInit failed with {}", rc);
  std::vector<std::uint8_t> out;
  std::array<std::uint8_t, 16 * 1024> chunk{};
  zs.next_in = const_cast<Bytef*>(data.data());
  std::size_t in_left = data.size();
  Result<std::vector<std::uint8_t>> result(Errc::corrupt, "unfinished");
  while (true) {
    // Feed at most uInt's worth of input at a time.
    if (zs.avail_in == 0 && in_left > 0) {
      auto n = static_cast<uInt>(std::min<std::size_t>(in_left, std::numeric_limits<uInt>::max()));
      zs.avail_in = n;
      in_left -= n;
    }
    zs.next_out = chunk.data();
    zs.avail_out = static_cast<uInt>(chunk.size());
    rc = inflate(&zs, Z_NO_FLUSH);
    std::size_t produced = chunk.size() - zs.avail_out;
    if (out.size() + produced > size_bytes_max) {
      result = Error(Errc::invalid_argument,
                     fmt::format("decompressed body exceeds {} bytes", size_bytes_max));
      break;
    }
    out.insert(out.end(), chunk.begin(), chunk.begin() + static_cast<std::ptrdiff_t>(produced));
    if (rc == Z_STREAM_END) {
      if (zs.avail_in != 0 || in_left != 0) {
        result = Error(Errc::corrupt,
                       fmt::format("{} bytes after the end of the zlib stream",
                                   zs.avail_in + in_left));
      } else {
        result = std::move(out);
      }
      break;
    }
    if (rc == Z_OK) continue;
    if (rc == Z_BUF_ERROR && zs.avail_in == 0 && in_left == 0) {
      result = Error(Errc::corrupt,
                     fmt::format("zlib stream truncated after {} input bytes", data.size()));
      break;
    }
    result = Error(Errc::corrupt, fmt::format("zlib error {} ({}) after {} input bytes", rc,
                                              zs.msg != nullptr ? zs.msg : "no message",
                                              zs.total_in));
    break;
  }
  inflateEnd(&zs);
  return result;
}

}  // namespace ferry
