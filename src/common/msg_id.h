// The offset msgId: where a message is stored, as 32 (IPv4) or 56 (IPv6) uppercase hex characters
// of `store host address (4 or 16) | store port (i32) | CommitLog offset (i64)`, all big-endian.
// RocketMQ's query-by-id (VIEW_MESSAGE_BY_ID) decodes it back to a broker address and offset.
#pragma once

#include <string>
#include <string_view>

#include "common/host_port.h"
#include "common/offsets.h"
#include "runtime/result.h"

namespace ferry {

inline constexpr std::size_t kOffsetMsgIdV4Chars = 32;
inline constexpr std::size_t kOffsetMsgIdV6Chars = 56;

struct OffsetMsgId {
  HostPort store_host;
  PhysicalOffset offset;
  auto operator<=>(const OffsetMsgId&) const = default;
};

std::string encode_offset_msg_id(const HostPort& store_host, PhysicalOffset offset);

// Errors (invalid_argument): a length other than 32 or 56, or a non-hex character.
Result<OffsetMsgId> decode_offset_msg_id(std::string_view text);

}  // namespace ferry
