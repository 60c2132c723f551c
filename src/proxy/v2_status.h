// The v2 status a proxy answer carries (RocketMQ 5's proxy, ResponseBuilder): every unary RPC
// answers gRPC OK with its outcome in the response's Status; docs/rocketmq5-proxy-facts.md §0.
#pragma once

#include <cstdint>
#include <string>

#include "apache/rocketmq/v2/definition.pb.h"
#include "runtime/result.h"

namespace ferry::proxy {

namespace v2 = apache::rocketmq::v2;

// {OK, "OK"}.
v2::Status ok_status();
v2::Status status(v2::Code code, std::string message);

// A remoting reply code as RocketMQ's proxy maps it: SUCCESS → OK, SYSTEM_BUSY (2) →
// TOO_MANY_REQUESTS, REQUEST_CODE_NOT_SUPPORTED (3) → NOT_IMPLEMENTED, TOPIC_NOT_EXIST (17) →
// TOPIC_NOT_FOUND, SUBSCRIPTION_GROUP_NOT_EXIST (26) → CONSUMER_GROUP_NOT_FOUND; any other →
// INTERNAL_SERVER_ERROR (NO_PERMISSION and MESSAGE_ILLEGAL included, as in RocketMQ 5.3).
v2::Code code_of_reply(std::int32_t reply_code);

// A Ferry client error as the status of the answer: a broker's reply code (client_errors.h) as
// code_of_reply maps it, a timeout as PROXY_TIMEOUT, anything else INTERNAL_SERVER_ERROR; the
// message is the error's text.
v2::Status status_of(const Error& e);

}  // namespace ferry::proxy
