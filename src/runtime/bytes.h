// Views of bytes, defined once for every layer: the runtime's connections and files, common's
// codecs, the remoting frames and the store.
//
//   Bytes         a read-only view of bytes the viewer does not own
//   MutableBytes  a writable view of bytes the viewer does not own
//
// A view never outlives what it views; whoever hands one out says how long it stays valid.
// RocketMQ strings are UTF-8 bytes on the wire: as_bytes() / as_text() view one as the other
// without a copy.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace ferry {

using Bytes = std::span<const std::uint8_t>;
using MutableBytes = std::span<std::uint8_t>;

inline Bytes as_bytes(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}
inline std::string_view as_text(Bytes b) {
  return {reinterpret_cast<const char*>(b.data()), b.size()};
}

}  // namespace ferry
