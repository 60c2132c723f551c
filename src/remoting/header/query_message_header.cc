#include "remoting/header/query_message_header.h"

#include "remoting/header/field_codec.h"

namespace ferry::remoting {

Result<QueryMessageRequestHeader> QueryMessageRequestHeader::from_fields(const ExtFields& f) {
  FieldReader r(f, "QueryMessageRequestHeader");
  QueryMessageRequestHeader h;
  h.topic = r.string("topic");
  h.key = r.string("key");
  h.max_num = r.int32("maxNum");
  h.begin_timestamp = r.int64("beginTimestamp");
  h.end_timestamp = r.int64("endTimestamp");
  h.unique_key_query = r.boolean_or("_UNIQUE_KEY_QUERY", false);
  FERRY_TRY(r.status());
  return h;
}

ExtFields QueryMessageRequestHeader::to_fields() const {
  ExtFields f;
  put_string(f, "topic", topic);
  put_string(f, "key", key);
  put_int(f, "maxNum", max_num);
  put_int(f, "beginTimestamp", begin_timestamp);
  put_int(f, "endTimestamp", end_timestamp);
  if (unique_key_query) put_bool(f, "_UNIQUE_KEY_QUERY", true);  // as Java clients do
  return f;
}

Result<QueryMessageResponseHeader> QueryMessageResponseHeader::from_fields(const ExtFields& f) {
  FieldReader r(f, "QueryMessageResponseHeader");
  QueryMessageResponseHeader h;
  h.index_last_update_timestamp = r.int64("indexLastUpdateTimestamp");
  h.index_last_update_phyoffset = r.int64("indexLastUpdatePhyoffset");
  FERRY_TRY(r.status());
  return h;
}

ExtFields QueryMessageResponseHeader::to_fields() const {
  ExtFields f;
  put_int(f, "indexLastUpdateTimestamp", index_last_update_timestamp);
  put_int(f, "indexLastUpdatePhyoffset", index_last_update_phyoffset);
  return f;
}

Result<ViewMessageRequestHeader> ViewMessageRequestHeader::from_fields(const ExtFields& f) {
  FieldReader r(f, "ViewMessageRequestHeader");
  ViewMessageRequestHeader h;
  h.offset = r.int64("offset");
  FERRY_TRY(r.status());
  return h;
}

ExtFields ViewMessageRequestHeader::to_fields() const {
  ExtFields f;
  put_int(f, "offset", offset);
  return f;
}

}  // namespace ferry::remoting
