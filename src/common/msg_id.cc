#include "common/msg_id.h"

#include <fmt/format.h>

#include <array>

#include "common/byte_writer.h"
#include "common/hex.h"

namespace ferry {

std::string encode_offset_msg_id(const HostPort& store_host, PhysicalOffset offset) {
  std::array<std::uint8_t, 28> buf{};
  SpanWriter w(MutableBytes(buf.data(), store_host.ip_size() + 12));
  w.bytes(Bytes(store_host.ip.data(), store_host.ip_size()));
  w.i32(store_host.port);
  w.i64(offset.value());
  return to_hex(Bytes(buf.data(), w.position()));
}

Result<OffsetMsgId> decode_offset_msg_id(std::string_view text) {
  if (text.size() != kOffsetMsgIdV4Chars && text.size() != kOffsetMsgIdV6Chars) {
    return Error(Errc::invalid_argument,
                 fmt::format("offset msgId must have 32 or 56 hex characters, got {}: '{}'",
                             text.size(), text.substr(0, 64)));
  }
  std::array<std::uint8_t, 28> buf{};
  std::size_t n = text.size() / 2;
  FERRY_TRY(parse_hex(text, MutableBytes(buf.data(), n)));
  OffsetMsgId id;
  std::size_t ip_bytes = n - 12;
  id.store_host.ipv6 = ip_bytes == 16;
  for (std::size_t i = 0; i < ip_bytes; ++i) id.store_host.ip[i] = buf[i];
  id.store_host.port = static_cast<std::int32_t>(load_be32(buf.data() + ip_bytes));
  id.offset = PhysicalOffset(static_cast<std::int64_t>(load_be64(buf.data() + ip_bytes + 4)));
  return id;
}

}  // namespace ferry
