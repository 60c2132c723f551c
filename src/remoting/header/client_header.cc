#include "remoting/header/client_header.h"

#include "remoting/header/field_codec.h"

namespace ferry::remoting {

Result<UnregisterClientRequestHeader> UnregisterClientRequestHeader::from_fields(const ExtFields& f) {
  FieldReader r(f, "UnregisterClientRequestHeader");
  UnregisterClientRequestHeader h;
  h.client_id = r.string("clientID");
  h.producer_group = r.optional_string("producerGroup");
  h.consumer_group = r.optional_string("consumerGroup");
  FERRY_TRY(r.status());
  return h;
}

ExtFields UnregisterClientRequestHeader::to_fields() const {
  ExtFields f;
  put_string(f, "clientID", client_id);
  put_optional_string(f, "producerGroup", producer_group);
  put_optional_string(f, "consumerGroup", consumer_group);
  return f;
}

Result<ConsumerSendMsgBackRequestHeader> ConsumerSendMsgBackRequestHeader::from_fields(const ExtFields& f) {
  FieldReader r(f, "ConsumerSendMsgBackRequestHeader");
  ConsumerSendMsgBackRequestHeader h;
  h.offset = r.int64("offset");
  h.group = r.string("group");
  h.delay_level = r.int32("delayLevel");
  h.origin_msg_id = r.optional_string("originMsgId");
  h.origin_topic = r.optional_string("originTopic");
  h.unit_mode = r.boolean_or("unitMode", false);
  h.max_reconsume_times = r.optional_int32("maxReconsumeTimes");
  FERRY_TRY(r.status());
  return h;
}

ExtFields ConsumerSendMsgBackRequestHeader::to_fields() const {
  ExtFields f;
  put_int(f, "offset", offset);
  put_string(f, "group", group);
  put_int(f, "delayLevel", delay_level);
  put_optional_string(f, "originMsgId", origin_msg_id);
  put_optional_string(f, "originTopic", origin_topic);
  put_bool(f, "unitMode", unit_mode);
  put_optional_int(f, "maxReconsumeTimes", max_reconsume_times);
  return f;
}

Result<GetConsumerListByGroupRequestHeader> GetConsumerListByGroupRequestHeader::from_fields(const ExtFields& f) {
  FieldReader r(f, "GetConsumerListByGroupRequestHeader");
  GetConsumerListByGroupRequestHeader h;
  h.consumer_group = r.string("consumerGroup");
  FERRY_TRY(r.status());
  return h;
}

ExtFields GetConsumerListByGroupRequestHeader::to_fields() const {
  ExtFields f;
  put_string(f, "consumerGroup", consumer_group);
  return f;
}

Result<NotifyConsumerIdsChangedRequestHeader> NotifyConsumerIdsChangedRequestHeader::from_fields(const ExtFields& f) {
  FieldReader r(f, "NotifyConsumerIdsChangedRequestHeader");
  NotifyConsumerIdsChangedRequestHeader h;
  h.consumer_group = r.string("consumerGroup");
  FERRY_TRY(r.status());
  return h;
}

ExtFields NotifyConsumerIdsChangedRequestHeader::to_fields() const {
  ExtFields f;
  put_string(f, "consumerGroup", consumer_group);
  return f;
}

}  // namespace ferry::remoting
