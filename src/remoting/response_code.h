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
// An SQL92 subscription the broker keeps no compiled filter for (it did not compile), and one
// older than the pull's subVersion (Ferry keeps the filter with the subscription, so a pull gets
// SUBSCRIPTION_NOT_LATEST first and 28 is never sent).
inline constexpr std::int32_t FILTER_DATA_NOT_EXIST = 27;
inline constexpr std::int32_t FILTER_DATA_NOT_LATEST = 28;
// Broker-to-client requests: no consumer of the group is connected (INVOKE_BROKER_TO_RESET_OFFSET);
// a relayed client call timed out (GET_CONSUMER_RUNNING_INFO, CONSUME_MESSAGE_DIRECTLY).
inline constexpr std::int32_t CONSUMER_NOT_ONLINE = 206;
inline constexpr std::int32_t CONSUME_MSG_TIMEOUT = 207;
// POP (RocketMQ 5): an ack or invisible-time change for an offset the queue does not hold; too
// many POP requests parked already; a POP that found nothing (after its long poll, if any).
inline constexpr std::int32_t NO_MESSAGE = 208;
inline constexpr std::int32_t POLLING_FULL = 209;
inline constexpr std::int32_t POLLING_TIMEOUT = 210;

// The controller's (RocketMQ 5, RIP-44; controller/decisions.h says when each is given).
inline constexpr std::int32_t CONTROLLER_FENCED_MASTER_EPOCH = 2000;
inline constexpr std::int32_t CONTROLLER_FENCED_SYNC_STATE_SET_EPOCH = 2001;
inline constexpr std::int32_t CONTROLLER_INVALID_MASTER = 2002;
inline constexpr std::int32_t CONTROLLER_INVALID_REPLICAS = 2003;
inline constexpr std::int32_t CONTROLLER_MASTER_NOT_AVAILABLE = 2004;
inline constexpr std::int32_t CONTROLLER_INVALID_REQUEST = 2005;
inline constexpr std::int32_t CONTROLLER_BROKER_NOT_ALIVE = 2006;
inline constexpr std::int32_t CONTROLLER_NOT_LEADER = 2007;
inline constexpr std::int32_t CONTROLLER_BROKER_METADATA_NOT_EXIST = 2008;
inline constexpr std::int32_t CONTROLLER_INVALID_CLEAN_BROKER_METADATA = 2009;
inline constexpr std::int32_t CONTROLLER_BROKER_NEED_TO_BE_REGISTERED = 2010;
inline constexpr std::int32_t CONTROLLER_MASTER_STILL_EXIST = 2011;
inline constexpr std::int32_t CONTROLLER_ELECT_MASTER_FAILED = 2012;
inline constexpr std::int32_t CONTROLLER_ALTER_SYNC_STATE_SET_FAILED = 2013;
inline constexpr std::int32_t CONTROLLER_BROKER_ID_INVALID = 2014;
inline constexpr std::int32_t CONTROLLER_JRAFT_INTERNAL_ERROR = 2015;
inline constexpr std::int32_t CONTROLLER_BROKER_LIVE_INFO_NOT_EXISTS = 2016;

// "SUCCESS" for 0; an empty view for a code not listed above. For logs.
std::string_view name(std::int32_t code);

}  // namespace ferry::remoting::response_code
