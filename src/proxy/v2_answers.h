// The answers the proxy writes for a send and for a receive (RocketMQ 5's proxy, SendMessageActivity
// and ReceiveMessageResponseStreamWriter; facts in docs/rocketmq5-proxy-facts.md §2, §3).
//
// SendMessage: one request is one remoting send (a single message or a batch), so one result
// entry: SEND_OK → {OK, message id (a batch's ids comma-joined), transaction id, queue offset};
// FLUSH_DISK_TIMEOUT → MASTER_PERSISTENCE_TIMEOUT, FLUSH_SLAVE_TIMEOUT → SLAVE_PERSISTENCE_TIMEOUT,
// SLAVE_NOT_AVAILABLE → HA_NOT_AVAILABLE ("send message failed, sendStatus=..." without id or
// offset); the answer's status is the entry's code with its name. A failed send: the status only
// (v2_status.h), no entry.
//
// ReceiveMessage's stream, in order: the status, one response per message, then the time as a
// delivery_timestamp; FOUND → {OK, "OK"}; nothing found → {MESSAGE_NOT_FOUND, "no new message"}
// (every message filtered out: "no match message"); POLLING_FULL → {TOO_MANY_REQUESTS,
// "polling full"}; a failure → its status. Deterministic and pure.
#pragma once

#include <vector>

#include "apache/rocketmq/v2/service.pb.h"
#include "client/send_result.h"
#include "runtime/result.h"
#include "runtime/time.h"

namespace ferry::proxy {

namespace v2 = apache::rocketmq::v2;

v2::SendMessageResponse send_response(const Result<client::SendResult>& sent);

// What a receive found, for its answer.
enum class Received : std::uint8_t { found, not_found, all_filtered, polling_full };

// The stream for `messages` (converted already: v2_receive.h) found as `what`, ending at `now_ms`.
std::vector<v2::ReceiveMessageResponse> receive_responses(Received what, std::vector<v2::Message> messages, WallMs now_ms);
// The stream of a receive that failed (or was refused) with `status`.
std::vector<v2::ReceiveMessageResponse> receive_responses(v2::Status status, WallMs now_ms);

}  // namespace ferry::proxy
