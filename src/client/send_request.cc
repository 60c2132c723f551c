#include "client/send_request.h"

#include <fmt/format.h>

#include "client/client_errors.h"
#include "client/trace_dispatcher.h"
#include "common/compression.h"
#include "common/message_const.h"
#include "common/names.h"
#include "common/properties.h"
#include "common/sys_flag.h"
#include "remoting/header/send_message_header.h"
#include "remoting/request_code.h"
#include "remoting/response_code.h"

namespace ferry::client {

namespace rc = remoting::request_code;
namespace code = remoting::response_code;

namespace {

// prepare_message with the body apart: `msg`'s own body is not read.
Result<PreparedMessage> prepare_with_body(const Message& msg, std::vector<std::uint8_t> body, const ProducerConfig& config,
                                          bool batch) {
  PreparedMessage p;
  p.topic = msg.topic;
  p.flag = msg.flag;
  p.batch = batch;
  // Only a retry's properties change (two move to the header); others encode as they are.
  std::optional<Properties> edited;
  if (is_retry_topic(msg.topic)) {
    edited = msg.properties;
    Properties& props = *edited;
    if (auto v = props.get(prop::kReconsumeTime)) {
      Result<std::int32_t> n = parse_int32_property(prop::kReconsumeTime, *v);
      if (!n.ok()) return std::move(n).error();
      p.reconsume_times = *n;
      props.erase(prop::kReconsumeTime);
    }
    if (auto v = props.get(prop::kMaxReconsumeTimes)) {
      Result<std::int32_t> n = parse_int32_property(prop::kMaxReconsumeTimes, *v);
      if (!n.ok()) return std::move(n).error();
      p.max_reconsume_times = *n;
      props.erase(prop::kMaxReconsumeTimes);
    }
  }
  Result<std::string> text = encode_properties(edited ? *edited : msg.properties);
  if (!text.ok()) return Error(Errc::invalid_argument, fmt::format("message to '{}': {}", msg.topic, text.error().detail));
  p.properties = std::move(*text);
  // A half message (TRAN_MSG=true, transaction_producer.h) is flagged prepared, as RocketMQ's
  // client flags it; the broker decides by the property.
  if (auto tran = msg.properties.get(prop::kTransactionPrepared); tran && (*tran == "true" || *tran == "TRUE" || *tran == "True")) {
    p.sys_flag |= sysflag::kTransactionPreparedType;
  }
  if (auto id = msg.uniq_key()) p.msg_id = std::string(*id);
  p.reply = !batch && msg.properties.get(prop::kMessageType) == std::optional<std::string_view>(kReplyMessageFlag);
  if (config.enable_msg_trace) {
    p.trace_tags = std::string(msg.properties.get(prop::kTags).value_or(""));
    p.trace_keys = std::string(msg.properties.get(prop::kKeys).value_or(""));
    p.trace_msg_type = trace_msg_type(msg);
  }
  if (!batch && body.size() >= config.compress_body_over_bytes) {
    body = zlib_compress(Bytes(body.data(), body.size()), config.compress_level);
    p.sys_flag |= sysflag::kCompressed | sysflag::kCompressionZlib;
  }
  p.body = std::make_shared<const std::vector<std::uint8_t>>(std::move(body));
  return p;
}

}  // namespace

Result<PreparedMessage> prepare_message(const Message& msg, const ProducerConfig& config, bool batch) {
  return prepare_with_body(msg, msg.body, config, batch);
}

Result<PreparedMessage> prepare_message(Message&& msg, const ProducerConfig& config, bool batch) {
  std::vector<std::uint8_t> body = std::move(msg.body);
  msg.body.clear();
  return prepare_with_body(msg, std::move(body), config, batch);
}

remoting::RemotingCommand build_send_request(const PreparedMessage& m, const MessageQueue& mq,
                                             const ProducerConfig& config, WallMs born_timestamp_ms) {
  remoting::SendMessageRequestHeader h;
  h.producer_group = config.group;
  h.topic = m.topic;
  h.default_topic = config.create_topic_key;
  h.default_topic_queue_nums = config.default_topic_queue_nums;
  h.queue_id = mq.queue_id;
  h.sys_flag = m.sys_flag;
  h.born_timestamp = born_timestamp_ms;
  h.flag = m.flag;
  h.properties = m.properties;
  h.reconsume_times = m.reconsume_times.value_or(0);
  h.unit_mode = false;
  h.batch = m.batch;
  h.max_reconsume_times = m.max_reconsume_times;
  const std::int32_t code = m.batch ? rc::SEND_BATCH_MESSAGE : m.reply ? rc::SEND_REPLY_MESSAGE_V2 : rc::SEND_MESSAGE_V2;
  remoting::RemotingCommand req = remoting::make_request(code, 0);
  // Straight into the binary header's entry form: no map of strings is built (the RPC layer
  // builds one only for a signing hook or a JSON header). Room for the strings, and for the
  // 14 entries' lengths, names and numbers.
  constexpr std::size_t kSendHeaderFixedBytes = 14 * (remoting::kBinaryExtEntryMinBytes + 1) + 64;
  req.raw_ext_fields.reserve(kSendHeaderFixedBytes + h.producer_group.size() + h.topic.size() + h.default_topic.size() +
                             (h.properties ? h.properties->size() : 0));
  h.to_binary_v2(req.raw_ext_fields);
  if (m.body && !m.body->empty()) req.body_views.emplace_back(m.body, Bytes(m.body->data(), m.body->size()));
  return req;
}

Result<SendResult> parse_send_reply(const remoting::RemotingCommand& reply, const PreparedMessage& m,
                                    const MessageQueue& mq, const std::string& broker_addr, std::int32_t request_code) {
  SendResult out;
  switch (reply.code) {
    case code::SUCCESS: out.status = SendStatus::SEND_OK; break;
    case code::FLUSH_DISK_TIMEOUT: out.status = SendStatus::FLUSH_DISK_TIMEOUT; break;
    case code::FLUSH_SLAVE_TIMEOUT: out.status = SendStatus::FLUSH_SLAVE_TIMEOUT; break;
    case code::SLAVE_NOT_AVAILABLE: out.status = SendStatus::SLAVE_NOT_AVAILABLE; break;
    default: return reply_error(broker_where(mq.broker_name, broker_addr), request_code, reply);
  }
  Result<remoting::SendMessageResponseHeader> h =
      reply.raw_ext_fields.empty()
          ? remoting::SendMessageResponseHeader::from_fields(reply.ext_fields)
          : remoting::SendMessageResponseHeader::from_binary(Bytes(reply.raw_ext_fields.data(), reply.raw_ext_fields.size()));
  if (!h.ok()) {
    return Error(Errc::corrupt, fmt::format("{} sent a malformed send reply: {}", broker_where(mq.broker_name, broker_addr),
                                            h.error().detail));
  }
  out.msg_id = m.msg_id;
  out.offset_msg_id = h->msg_id;
  out.queue = MessageQueue{m.topic, mq.broker_name, h->queue_id};
  out.queue_offset = h->queue_offset;
  out.transaction_id = h->transaction_id;
  out.region_id = h->msg_region;
  out.trace_on = !h->trace_on || *h->trace_on != "false";
  return out;
}

std::string_view name(SendStatus s) {
  switch (s) {
    case SendStatus::SEND_OK: return "SEND_OK";
    case SendStatus::FLUSH_DISK_TIMEOUT: return "FLUSH_DISK_TIMEOUT";
    case SendStatus::FLUSH_SLAVE_TIMEOUT: return "FLUSH_SLAVE_TIMEOUT";
    case SendStatus::SLAVE_NOT_AVAILABLE: return "SLAVE_NOT_AVAILABLE";
  }
  return "?";
}

}  // namespace ferry::client
