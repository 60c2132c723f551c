// Request-reply helpers (RocketMQ 4.6+; docs/request_reply.md). A requester sends with
// Producer::request; the consumer of the request builds its answer with create_reply_message and
// sends it with any producer (its MSG_TYPE=reply makes the send a SEND_REPLY_MESSAGE_V2, which the
// broker pushes to the requester).
//
//   listener: for (const MessageExt& req : msgs) {
//     Result<Message> reply = create_reply_message(req, as_bytes("pong"));
//     if (reply.ok()) co_await producer.send(*std::move(reply));
//   }
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/message.h"
#include "runtime/random.h"
#include "runtime/result.h"

namespace ferry::client {

// The reply to `request`: topic {CLUSTER}_REPLY_TOPIC, `body`, MSG_TYPE=reply, and the request's
// CORRELATION_ID, REPLY_TO_CLIENT and TTL (nothing else is copied, as RocketMQ's MessageUtil).
// Errors: invalid_argument when the request has no CLUSTER property (a message not stored by a
// broker), as RocketMQ's "create reply message fail, requestMessage error, property[CLUSTER] is
// null.".
Result<Message> create_reply_message(const MessageExt& request, std::vector<std::uint8_t> body);

// A random correlation id in RocketMQ's form (a UUID's 36 characters, version 4), from `random`.
std::string make_correlation_id(Random& random);

}  // namespace ferry::client
