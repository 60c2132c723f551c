// Consumer enums as they travel in heartbeats: by their Java names ("CLUSTERING").
#pragma once

#include <optional>
#include <string_view>

namespace ferry::remoting::body {

enum class ConsumeType { CONSUME_ACTIVELY, CONSUME_PASSIVELY };  // pull / push
enum class MessageModel { BROADCASTING, CLUSTERING };
enum class ConsumeFromWhere {
  CONSUME_FROM_LAST_OFFSET,
  CONSUME_FROM_LAST_OFFSET_AND_FROM_MIN_WHEN_BOOT_FIRST,  // deprecated in RocketMQ
  CONSUME_FROM_MIN_OFFSET,                                // deprecated in RocketMQ
  CONSUME_FROM_MAX_OFFSET,                                // deprecated in RocketMQ
  CONSUME_FROM_FIRST_OFFSET,
  CONSUME_FROM_TIMESTAMP,
};

std::string_view name(ConsumeType v);
std::string_view name(MessageModel v);
std::string_view name(ConsumeFromWhere v);
// The enumerator with exactly that name, or nullopt.
std::optional<ConsumeType> consume_type_from_name(std::string_view s);
std::optional<MessageModel> message_model_from_name(std::string_view s);
std::optional<ConsumeFromWhere> consume_from_where_from_name(std::string_view s);

}  // namespace ferry::remoting::body
