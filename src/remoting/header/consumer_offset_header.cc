#include "remoting/header/consumer_offset_header.h"

#include "remoting/header/field_codec.h"

namespace ferry::remoting {

Result<QueryConsumerOffsetRequestHeader> QueryConsumerOffsetRequestHeader::from_fields(const ExtFields& f) {
  FieldReader r(f, "QueryConsumerOffsetRequestHeader");
  QueryConsumerOffsetRequestHeader h;
  h.consumer_group = r.string("consumerGroup");
  h.topic = r.string("topic");
  h.queue_id = r.int32("queueId");
  FERRY_TRY(r.status());
  return h;
}

ExtFields QueryConsumerOffsetRequestHeader::to_fields() const {
  ExtFields f;
  put_string(f, "consumerGroup", consumer_group);
  put_string(f, "topic", topic);
  put_int(f, "queueId", queue_id);
  return f;
}

Result<QueryConsumerOffsetResponseHeader> QueryConsumerOffsetResponseHeader::from_fields(const ExtFields& f) {
  FieldReader r(f, "QueryConsumerOffsetResponseHeader");
  QueryConsumerOffsetResponseHeader h;
  h.offset = r.int64("offset");
  FERRY_TRY(r.status());
  return h;
}

ExtFields QueryConsumerOffsetResponseHeader::to_fields() const {
  ExtFields f;
  put_int(f, "offset", offset);
  return f;
}

Result<UpdateConsumerOffsetRequestHeader> UpdateConsumerOffsetRequestHeader::from_fields(const ExtFields& f) {
  FieldReader r(f, "UpdateConsumerOffsetRequestHeader");
  UpdateConsumerOffsetRequestHeader h;
  h.consumer_group = r.string("consumerGroup");
  h.topic = r.string("topic");
  h.queue_id = r.int32("queueId");
  h.commit_offset = r.int64("commitOffset");
  FERRY_TRY(r.status());
  return h;
}

ExtFields UpdateConsumerOffsetRequestHeader::to_fields() const {
  ExtFields f;
  put_string(f, "consumerGroup", consumer_group);
  put_string(f, "topic", topic);
  put_int(f, "queueId", queue_id);
  put_int(f, "commitOffset", commit_offset);
  return f;
}

}  // namespace ferry::remoting
