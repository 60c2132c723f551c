#include "remoting/header/pull_message_header.h"

#include "remoting/header/field_codec.h"

namespace ferry::remoting {

Result<PullMessageRequestHeader> PullMessageRequestHeader::from_fields(const ExtFields& f) {
  FieldReader r(f, "PullMessageRequestHeader");
  PullMessageRequestHeader h;
  h.consumer_group = r.string("consumerGroup");
  h.topic = r.string("topic");
  h.queue_id = r.int32("queueId");
  h.queue_offset = r.int64("queueOffset");
  h.max_msg_nums = r.int32("maxMsgNums");
  h.sys_flag = r.int32("sysFlag");
  h.commit_offset = r.int64("commitOffset");
  h.suspend_timeout_millis = r.int64("suspendTimeoutMillis");
  h.subscription = r.optional_string("subscription");
  h.sub_version = r.int64("subVersion");
  h.expression_type = r.optional_string("expressionType");
  FERRY_TRY(r.status());
  return h;
}

ExtFields PullMessageRequestHeader::to_fields() const {
  ExtFields f;
  put_string(f, "consumerGroup", consumer_group);
  put_string(f, "topic", topic);
  put_int(f, "queueId", queue_id);
  put_int(f, "queueOffset", queue_offset);
  put_int(f, "maxMsgNums", max_msg_nums);
  put_int(f, "sysFlag", sys_flag);
  put_int(f, "commitOffset", commit_offset);
  put_int(f, "suspendTimeoutMillis", suspend_timeout_millis);
  put_optional_string(f, "subscription", subscription);
  put_int(f, "subVersion", sub_version);
  put_optional_string(f, "expressionType", expression_type);
  return f;
}

Result<PullMessageResponseHeader> PullMessageResponseHeader::from_fields(const ExtFields& f) {
  FieldReader r(f, "PullMessageResponseHeader");
  PullMessageResponseHeader h;
  h.suggest_which_broker_id = r.int64("suggestWhichBrokerId");
  h.next_begin_offset = r.int64("nextBeginOffset");
  h.min_offset = r.int64("minOffset");
  h.max_offset = r.int64("maxOffset");
  FERRY_TRY(r.status());
  return h;
}

ExtFields PullMessageResponseHeader::to_fields() const {
  ExtFields f;
  put_int(f, "suggestWhichBrokerId", suggest_which_broker_id);
  put_int(f, "nextBeginOffset", next_begin_offset);
  put_int(f, "minOffset", min_offset);
  put_int(f, "maxOffset", max_offset);
  return f;
}

}  // namespace ferry::remoting
