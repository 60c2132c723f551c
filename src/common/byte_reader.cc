#include "common/byte_reader.h"

#include <fmt/format.h>

namespace ferry {

Error ByteReader::truncated(std::size_t n, const char* what) const {
  return Error(Errc::corrupt, fmt::format("truncated: reading {} needs {} bytes at position {}, "
                                          "{} left",
                                          what, n, pos_, remaining()));
}

}  // namespace ferry
