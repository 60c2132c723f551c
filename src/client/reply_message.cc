#include "client/reply_message.h"

#include <fmt/format.h>

#include "common/message_const.h"
#include "common/names.h"

namespace ferry::client {

Result<Message> create_reply_message(const MessageExt& request, std::vector<std::uint8_t> body) {
  const std::optional<std::string_view> cluster = request.properties.get(prop::kCluster);
  if (!cluster) {
    return Error(Errc::invalid_argument, "create reply message fail, requestMessage error, property[CLUSTER] is null.");
  }
  Message reply;
  reply.topic = reply_topic(*cluster);
  reply.body = std::move(body);
  reply.properties.set(std::string(prop::kMessageType), std::string(kReplyMessageFlag));
  for (std::string_view key : {prop::kCorrelationId, prop::kMessageReplyToClient, prop::kMessageTtl}) {
    if (auto v = request.properties.get(key)) reply.properties.set(std::string(key), std::string(*v));
  }
  return reply;
}

std::string make_correlation_id(Random& random) {
  const std::uint64_t hi = (random.next_u64() & ~0xF000ULL) | 0x4000ULL;                     // version 4
  const std::uint64_t lo = (random.next_u64() & ~0xC000000000000000ULL) | 0x8000000000000000ULL;  // variant 10
  return fmt::format("{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", hi >> 32, (hi >> 16) & 0xFFFF, hi & 0xFFFF, lo >> 48,
                     lo & 0xFFFFFFFFFFFFULL);
}

}  // namespace ferry::client
