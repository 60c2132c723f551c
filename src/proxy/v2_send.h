// What a gRPC SendMessage becomes on the way to a broker (RocketMQ 5's proxy in cluster mode,
// SendMessageActivity; the facts are in docs/proxy.md "SendMessage"): the v2 messages of one
// request are checked in RocketMQ's order and turned into Ferry messages with the remoting
// properties RocketMQ's proxy writes, or the request is refused with the v2 status it would get.
//
//   SendLimits limits;                                   // proxy.conf's, RocketMQ's defaults
//   V2Result<PreparedSend> p = prepare_send(request, limits, now_ms, "10.0.0.7:51234");
//   if (const Refusal* r = refusal(p)) return status_of(*r);
//   ... send std::get<PreparedSend>(p).messages to one queue of p.topic ...
//
// Checks, in order: at least one message; the first one's topic (a legal, non-system name); per
// message: the same topic as the first, a body (not empty, at most max_body_bytes), its user
// properties (at most 128, no name RocketMQ reserves, no ISO control character), its tag (no
// '|', not blank, no control character), its keys, their total size (16 KiB), a message id, a
// transaction's recovery duration (at most an hour), a delivery time (at most max_delay_ms
// ahead), a message group (not blank, under 64 bytes, no control character). The properties
// written: the user properties, TAGS (always, "" without a tag), KEYS (space-joined), UNIQ_KEY (the
// message id), TRAN_MSG and CHECK_IMMUNITY_TIME_IN_SECONDS (transactions), TIMER_DELIVER_MS (a
// delivery time), RECONSUME_TIME (the delivery attempt, 0 without one), PGROUP (the topic: the
// proxy's producer group is the topic), __SHARDINGKEY (the message group), TRACE_CONTEXT,
// __BORNHOST (the client's, else its address) and BORN_TIMESTAMP.
//
// A GZIP body is inflated here (RocketMQ's proxy passes it on flagged as compressed, which its
// brokers read as zlib: a difference, docs/proxy.md). Deterministic and pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "apache/rocketmq/v2/service.pb.h"
#include "common/message.h"
#include "runtime/time.h"

namespace ferry::proxy {

namespace v2 = apache::rocketmq::v2;

// A request answered with a v2 status instead of a result.
struct Refusal {
  v2::Code code = v2::INTERNAL_SERVER_ERROR;
  std::string message;
};
template <typename T>
using V2Result = std::variant<T, Refusal>;
template <typename T>
const Refusal* refusal(const V2Result<T>& r) {
  return std::get_if<Refusal>(&r);
}

// proxy.conf's limits (RocketMQ 5's ProxyConfig names and defaults).
struct SendLimits {
  std::int64_t max_body_bytes = 4 * 1024 * 1024;   // maxMessageSize; <= 0: none
  bool refuse_empty_body = true;                     // enableMessageBodyEmptyCheck
  std::int32_t user_properties_max = 128;            // userPropertyMaxNum
  std::int64_t user_properties_bytes_max = 16 * 1024;  // maxUserPropertySize
  std::int64_t message_group_bytes_max = 64;         // maxMessageGroupSize (a group must be shorter)
  std::int64_t max_delay_ms = 24 * 3600 * 1000;      // maxDelayTimeMills; <= 0: none
  std::int64_t transaction_recovery_seconds_max = 3600;  // maxTransactionRecoverySecond
};

// The kind of message a topic takes (RocketMQ 5's TopicMessageType, the topic attribute
// message.type).
enum class TopicMessageType : std::uint8_t { unspecified, normal, fifo, delay, transaction, mixed };
std::string_view topic_message_type_name(TopicMessageType t);

struct PreparedSend {
  std::string topic;
  std::vector<Message> messages;
  // Of the first message, as RocketMQ's proxy judges it: TRAN_MSG, else a delivery time, else a
  // message group, else normal.
  TopicMessageType type = TopicMessageType::normal;
  // A single message with a message group: the queue is chosen by it (select_fifo_queue).
  std::optional<std::string> message_group;
};

V2Result<PreparedSend> prepare_send(const v2::SendMessageRequest& request, const SendLimits& limits, WallMs now_ms,
                                    std::string_view peer_address);

// The topic message type check (enableTopicMessageTypeCheck): nullopt when a message of `actual`
// may go to a topic of `expected`; else MESSAGE_PROPERTY_CONFLICT_WITH_TYPE.
std::optional<Refusal> check_topic_message_type(TopicMessageType expected, TopicMessageType actual);

// The index of the write queue (of `queue_count`, sorted by broker name and queue id) a FIFO
// message of `group` goes to: Guava's consistentHash of the group's Java hashCode, as RocketMQ's
// proxy chooses it.
std::size_t select_fifo_queue(std::string_view group, std::size_t queue_count);
// Guava's Hashing.consistentHash(long, int): a bucket in [0, buckets) that moves for few inputs
// when buckets grows.
std::int32_t guava_consistent_hash(std::int64_t input, std::int32_t buckets);

// The property names RocketMQ reserves for itself (MessageConst.STRING_HASH_SET): a user property
// may not use them.
bool is_reserved_property(std::string_view name);

}  // namespace ferry::proxy
