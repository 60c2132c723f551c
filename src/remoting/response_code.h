// Response codes (RemotingCommand::code of a reply), with RocketMQ's numbers.
// Note that reply codes overlap request codes numerically (10 is SEND_MESSAGE as a request and
// FLUSH_DISK_TIMEOUT as a reply); the response flag tells them apart.
#pragma once

#include <cstdint>
#include <string_view>

namespace ferry::remoting::response_code {

// System codes.
inline constexpr std::int32_t SUCCESS = 0;
inline constexpr std::int32_t SYSTEM_ERROR = 1;
inline constexpr std::int32_t SYSTEM_BUSY = 2;
inline constexpr std::int32_t REQUEST_CODE_NOT_SUPPORTED = 3;

inline constexpr std::int32_t FLUSH_DISK_TIMEOUT = 10;
inline constexpr std::int32_t SLAVE_NOT_AVAILABLE = 11;
inline constexpr std::int32_t FLUSH_SLAVE_TIMEOUT = 12;
inline constexpr std::int32_t MESSAGE_ILLEGAL = 13;
inline constexpr std::int32_t SERVICE_NOT_AVAILABLE = 14;
inline constexpr std::int32_t NO_PERMISSION = 16;
inline constexpr std::int32_t TOPIC_NOT_EXIST = 17;
inline constexpr std::int32_t TOPIC_EXIST_ALREADY = 18;
inline constexpr std::int32_t PULL_NOT_FOUND = 19;
inline constexpr std::int32_t PULL_RETRY_IMMEDIATELY = 20;
inline constexpr std::int32_t PULL_OFFSET_MOVED = 21;
inline constexpr std::int32_t QUERY_NOT_FOUND = 22;
inline constexpr std::int32_t SUBSCRIPTION_PARSE_FAILED = 23;
inline constexpr std::int32_t SUBSCRIPTION_NOT_EXIST = 24;
inline constexpr std::int32_t SUBSCRIPTION_NOT_LATEST = 25;
inline constexpr std::int32_t SUBSCRIPTION_GROUP_NOT_EXIST = 26;
// Broker-to-client requests: no consumer of the group is connected (INVOKE_BROKER_TO_RESET_OFFSET);
// a relayed client call timed out (GET_CONSUMER_RUNNING_INFO, CONSUME_MESSAGE_DIRECTLY).
inline constexpr std::int32_t CONSUMER_NOT_ONLINE = 206;
inline constexpr std::int32_t CONSUME_MSG_TIMEOUT = 207;

// "SUCCESS" for 0; an empty view for a code not listed above. For logs.
std::string_view name(std::int32_t code);

}  // namespace ferry::remoting::response_code
