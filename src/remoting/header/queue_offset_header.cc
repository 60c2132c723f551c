#include "remoting/header/queue_offset_header.h"

#include "remoting/header/field_codec.h"

namespace ferry::remoting {

Result<GetMaxOffsetRequestHeader> GetMaxOffsetRequestHeader::from_fields(const ExtFields& f) {
  FieldReader r(f, "GetMaxOffsetRequestHeader");
  GetMaxOffsetRequestHeader h;
  h.topic = r.string("topic");
  h.queue_id = r.int32("queueId");
  FERRY_TRY(r.status());
  return h;
}

ExtFields GetMaxOffsetRequestHeader::to_fields() const {
  ExtFields f;
  put_string(f, "topic", topic);
  put_int(f, "queueId", queue_id);
  return f;
}

Result<GetMaxOffsetResponseHeader> GetMaxOffsetResponseHeader::from_fields(const ExtFields& f) {
  FieldReader r(f, "GetMaxOffsetResponseHeader");
  GetMaxOffsetResponseHeader h;
  h.offset = r.int64("offset");
  FERRY_TRY(r.status());
  return h;
}

ExtFields GetMaxOffsetResponseHeader::to_fields() const {
  ExtFields f;
  put_int(f, "offset", offset);
  return f;
}

Result<GetMinOffsetRequestHeader> GetMinOffsetRequestHeader::from_fields(const ExtFields& f) {
  FieldReader r(f, "GetMinOffsetRequestHeader");
  GetMinOffsetRequestHeader h;
  h.topic = r.string("topic");
  h.queue_id = r.int32("queueId");
  FERRY_TRY(r.status());
  return h;
}

ExtFields GetMinOffsetRequestHeader::to_fields() const {
  ExtFields f;
  put_string(f, "topic", topic);
  put_int(f, "queueId", queue_id);
  return f;
}

Result<GetMinOffsetResponseHeader> GetMinOffsetResponseHeader::from_fields(const ExtFields& f) {
  FieldReader r(f, "GetMinOffsetResponseHeader");
  GetMinOffsetResponseHeader h;
  h.offset = r.int64("offset");
  FERRY_TRY(r.status());
  return h;
}

ExtFields GetMinOffsetResponseHeader::to_fields() const {
  ExtFields f;
  put_int(f, "offset", offset);
  return f;
}

Result<SearchOffsetRequestHeader> SearchOffsetRequestHeader::from_fields(const ExtFields& f) {
  FieldReader r(f, "SearchOffsetRequestHeader");
  SearchOffsetRequestHeader h;
  h.topic = r.string("topic");
  h.queue_id = r.int32("queueId");
  h.timestamp = r.int64("timestamp");
  FERRY_TRY(r.status());
  return h;
}

ExtFields SearchOffsetRequestHeader::to_fields() const {
  ExtFields f;
  put_string(f, "topic", topic);
  put_int(f, "queueId", queue_id);
  put_int(f, "timestamp", timestamp);
  return f;
}

Result<SearchOffsetResponseHeader> SearchOffsetResponseHeader::from_fields(const ExtFields& f) {
  FieldReader r(f, "SearchOffsetResponseHeader");
  SearchOffsetResponseHeader h;
  h.offset = r.int64("offset");
  FERRY_TRY(r.status());
  return h;
}

ExtFields SearchOffsetResponseHeader::to_fields() const {
  ExtFields f;
  put_int(f, "offset", offset);
  return f;
}

Result<GetEarliestMsgStoretimeRequestHeader> GetEarliestMsgStoretimeRequestHeader::from_fields(const ExtFields& f) {
  FieldReader r(f, "GetEarliestMsgStoretimeRequestHeader");
  GetEarliestMsgStoretimeRequestHeader h;
  h.topic = r.string("topic");
  h.queue_id = r.int32("queueId");
  FERRY_TRY(r.status());
  return h;
}

ExtFields GetEarliestMsgStoretimeRequestHeader::to_fields() const {
  ExtFields f;
  put_string(f, "topic", topic);
  put_int(f, "queueId", queue_id);
  return f;
}

Result<GetEarliestMsgStoretimeResponseHeader> GetEarliestMsgStoretimeResponseHeader::from_fields(const ExtFields& f) {
  FieldReader r(f, "GetEarliestMsgStoretimeResponseHeader");
  GetEarliestMsgStoretimeResponseHeader h;
  h.timestamp = r.int64("timestamp");
  FERRY_TRY(r.status());
  return h;
}

ExtFields GetEarliestMsgStoretimeResponseHeader::to_fields() const {
  ExtFields f;
  put_int(f, "timestamp", timestamp);
  return f;
}

}  // namespace ferry::remoting
