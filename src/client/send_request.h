// The wire side of one send attempt (RocketMQ's sendKernelImpl / processSendResponse): the
// SEND_MESSAGE_V2 or SEND_BATCH_MESSAGE request for a prepared message and a queue, and the
// SendResult from the reply.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "client/producer_config.h"
#include "client/send_result.h"
#include "common/message.h"
#include "common/message_queue.h"
#include "remoting/remoting_command.h"

namespace ferry::client {

// A message ready for the wire: properties encoded, body compressed if it had to be.
struct PreparedMessage {
  std::string topic;
  std::int32_t flag = 0;
  // Compressed when sys_flag says so; a batch's encoding. Shared and never changed: every
  // attempt's request carries it as a view (RemotingCommand::body_views), never as a copy.
  std::shared_ptr<const std::vector<std::uint8_t>> body;
  std::int32_t sys_flag = 0;
  std::string properties;          // encoded
  std::optional<std::int32_t> reconsume_times;      // from RECONSUME_TIME on a %RETRY% topic
  std::optional<std::int32_t> max_reconsume_times;  // from MAX_RECONSUME_TIMES on a %RETRY% topic
  bool batch = false;
  bool reply = false;  // MSG_TYPE=reply: sent as SEND_REPLY_MESSAGE_V2 (325), request-reply's reply
  std::string msg_id;  // UNIQ_KEY (a batch: its messages' ids, comma-joined)
  // With enable_msg_trace only: what a Pub trace record names (trace_dispatcher.h).
  std::string trace_tags;
  std::string trace_keys;
  std::int32_t trace_msg_type = 0;
};

// Encodes properties and compresses a body of compress_body_over_bytes or more with zlib
// (sysFlag kCompressed | kCompressionZlib) unless `batch`. For a %RETRY% topic, RECONSUME_TIME
// and MAX_RECONSUME_TIMES move from the properties to the header. Errors (invalid_argument):
// properties that do not encode. The first form copies the body; the second takes it from `msg`
// (which keeps its other members).
Result<PreparedMessage> prepare_message(const Message& msg, const ProducerConfig& config, bool batch);
Result<PreparedMessage> prepare_message(Message&& msg, const ProducerConfig& config, bool batch);

remoting::RemotingCommand build_send_request(const PreparedMessage& m, const MessageQueue& mq,
                                             const ProducerConfig& config, WallMs born_timestamp_ms);

// SUCCESS / FLUSH_DISK_TIMEOUT / FLUSH_SLAVE_TIMEOUT / SLAVE_NOT_AVAILABLE → a SendResult;
// another code → reply_error (client_errors.h) naming the broker; a malformed reply header →
// corrupt naming the broker.
Result<SendResult> parse_send_reply(const remoting::RemotingCommand& reply, const PreparedMessage& m,
                                    const MessageQueue& mq, const std::string& broker_addr, std::int32_t request_code);

}  // namespace ferry::client
