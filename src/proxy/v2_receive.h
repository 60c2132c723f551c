// What a gRPC client receives for a popped message (RocketMQ 5's proxy, GrpcConverter.buildMessage;
// the facts are in docs/rocketmq5-proxy-facts.md §3): a Ferry message from a POP reply, with its
// POP_CK, as a v2 message.
//
//   v2::Message m = to_v2_message(popped, "OrderEvents", now_ms);
//
// The v2 message carries: the topic asked for (a retried message's too); every property RocketMQ
// does not reserve as a user property (so __SHARDINGKEY and TRACE_CONTEXT show there too, as in
// RocketMQ); the body; the tag (TAGS), the keys (KEYS split on spaces), the message id (UNIQ_KEY,
// else the offset msgId), the body's MD5 (upper-case hex), IDENTITY encoding, the message type
// (TRAN_MSG, else a delay or timer property, else a message group, else NORMAL), born and store
// times and hosts, the delivery time (TIMER_DELAY_SEC from now, else TIMER_DELIVER_MS), the
// message group, the receipt handle (proxy_receipt_handle), queue id and offset, the delivery
// attempt (reconsumeTimes + 1), the trace context, and the dead-letter origin when a DLQ message
// has both DLQ_ORIGIN_TOPIC and DLQ_ORIGIN_MESSAGE_ID. Not its invisible duration (RocketMQ
// leaves it out). Deterministic and pure.
#pragma once

#include <string>
#include <string_view>

#include "apache/rocketmq/v2/definition.pb.h"
#include "common/message.h"
#include "runtime/time.h"

namespace ferry::proxy {

namespace v2 = apache::rocketmq::v2;

v2::Message to_v2_message(const MessageExt& m, std::string_view topic, WallMs now_ms);

// The handle a gRPC client gets: the broker's eight fields (POP_CK) and the message's CommitLog
// offset, as RocketMQ's proxy builds it; the broker's parser reads the first eight.
std::string proxy_receipt_handle(std::string_view pop_ck, PhysicalOffset commit_log_offset);

}  // namespace ferry::proxy
