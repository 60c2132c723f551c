#include "remoting/header/send_message_header.h"

#include <fmt/format.h>

#include "remoting/header/field_codec.h"
#include "remoting/request_code.h"

namespace ferry::remoting {
namespace {

// The extFields names of each header field, per version.
struct SendNames {
  std::string_view header;
  std::string_view producer_group, topic, default_topic, default_topic_queue_nums, queue_id,
      sys_flag, born_timestamp, flag, properties, reconsume_times, unit_mode, max_reconsume_times,
      batch, broker_name;
};

constexpr SendNames kV1 = {"SendMessageRequestHeader", "producerGroup", "topic", "defaultTopic",
                           "defaultTopicQueueNums", "queueId", "sysFlag", "bornTimestamp", "flag",
                           "properties", "reconsumeTimes", "unitMode", "maxReconsumeTimes",
                           "batch", "bname"};
constexpr SendNames kV2 = {"SendMessageRequestHeaderV2", "a", "b", "c", "d", "e", "f", "g", "h",
                           "i", "j", "k", "l", "m", "n"};

Result<SendMessageRequestHeader> decode(const ExtFields& f, const SendNames& n) {
  FieldReader r(f, n.header);
  SendMessageRequestHeader h;
  h.producer_group = r.string(n.producer_group);
  h.topic = r.string(n.topic);
  h.default_topic = r.string(n.default_topic);
  h.default_topic_queue_nums = r.int32(n.default_topic_queue_nums);
  h.queue_id = r.int32(n.queue_id);
  h.sys_flag = r.int32(n.sys_flag);
  h.born_timestamp = r.int64(n.born_timestamp);
  h.flag = r.int32(n.flag);
  h.properties = r.optional_string(n.properties);
  h.reconsume_times = r.optional_int32(n.reconsume_times);
  h.unit_mode = r.boolean_or(n.unit_mode, false);
  h.max_reconsume_times = r.optional_int32(n.max_reconsume_times);
  h.batch = r.boolean_or(n.batch, false);
  h.broker_name = r.optional_string(n.broker_name);
  FERRY_TRY(r.status());
  return h;
}

ExtFields encode(const SendMessageRequestHeader& h, const SendNames& n) {
  ExtFields f;
  put_string(f, n.producer_group, h.producer_group);
  put_string(f, n.topic, h.topic);
  put_string(f, n.default_topic, h.default_topic);
  put_int(f, n.default_topic_queue_nums, h.default_topic_queue_nums);
  put_int(f, n.queue_id, h.queue_id);
  put_int(f, n.sys_flag, h.sys_flag);
  put_int(f, n.born_timestamp, h.born_timestamp);
  put_int(f, n.flag, h.flag);
  put_optional_string(f, n.properties, h.properties);
  put_optional_int(f, n.reconsume_times, h.reconsume_times);
  put_bool(f, n.unit_mode, h.unit_mode);
  put_optional_int(f, n.max_reconsume_times, h.max_reconsume_times);
  put_bool(f, n.batch, h.batch);
  put_optional_string(f, n.broker_name, h.broker_name);
  return f;
}

}  // namespace

Result<SendMessageRequestHeader> SendMessageRequestHeader::from_fields(const ExtFields& f) {
  return decode(f, kV1);
}

Result<SendMessageRequestHeader> SendMessageRequestHeader::from_fields_v2(const ExtFields& f) {
  return decode(f, kV2);
}

Result<SendMessageRequestHeader> SendMessageRequestHeader::from_request(std::int32_t code,
                                                                        const ExtFields& f) {
  switch (code) {
    case request_code::SEND_MESSAGE: return decode(f, kV1);
    case request_code::SEND_MESSAGE_V2:
    case request_code::SEND_BATCH_MESSAGE: return decode(f, kV2);
    default:
      return Error(Errc::invalid_argument,
                   fmt::format("request code {} does not carry a send header", code));
  }
}

ExtFields SendMessageRequestHeader::to_fields() const { return encode(*this, kV1); }
ExtFields SendMessageRequestHeader::to_fields_v2() const { return encode(*this, kV2); }

Result<SendMessageResponseHeader> SendMessageResponseHeader::from_fields(const ExtFields& f) {
  FieldReader r(f, "SendMessageResponseHeader");
  SendMessageResponseHeader h;
  h.msg_id = r.string("msgId");
  h.queue_id = r.int32("queueId");
  h.queue_offset = r.int64("queueOffset");
  h.transaction_id = r.optional_string("transactionId");
  h.msg_region = r.optional_string("MSG_REGION");
  h.trace_on = r.optional_string("TRACE_ON");
  FERRY_TRY(r.status());
  return h;
}

ExtFields SendMessageResponseHeader::to_fields() const {
  ExtFields f;
  put_string(f, "msgId", msg_id);
  put_int(f, "queueId", queue_id);
  put_int(f, "queueOffset", queue_offset);
  put_optional_string(f, "transactionId", transaction_id);
  put_optional_string(f, "MSG_REGION", msg_region);
  put_optional_string(f, "TRACE_ON", trace_on);
  return f;
}

}  // namespace ferry::remoting
