// zlib compression of message bodies (RocketMQ clients compress bodies of 4 KiB and more with
// java.util.zip Deflater, level 5 by default, and set sysFlag kCompressed; see sys_flag.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/big_endian.h"
#include "runtime/result.h"

namespace ferry {

inline constexpr int kDefaultZlibLevel = 5;               // RocketMQ's compressLevel default
inline constexpr std::size_t kCompressBodyOverBytes = 4096;  // compressMsgBodyOverHowmuch

// A zlib stream (RFC 1950) of `data`. level 0..9 (asserted). Cannot fail short of a bug.
std::vector<std::uint8_t> zlib_compress(Bytes data, int level = kDefaultZlibLevel);

// Inflates exactly one zlib stream that spans all of `data`.
// Errors: corrupt (not a valid zlib stream, truncated, or bytes after the stream's end);
// invalid_argument when the output would exceed size_bytes_max (nothing is returned then).
Result<std::vector<std::uint8_t>> zlib_decompress(Bytes data, std::size_t size_bytes_max);

}  // namespace ferry
