#include "remoting/header/topic_admin_header.h"

#include <fmt/format.h>

#include "remoting/header/field_codec.h"

namespace ferry::remoting {

Result<CreateTopicRequestHeader> CreateTopicRequestHeader::from_fields(const ExtFields& f) {
  FieldReader r(f, "CreateTopicRequestHeader");
  CreateTopicRequestHeader h;
  h.topic = r.string("topic");
  h.default_topic = r.string("defaultTopic");
  h.read_queue_nums = r.int32("readQueueNums");
  h.write_queue_nums = r.int32("writeQueueNums");
  h.perm = r.int32("perm");
  h.topic_filter_type = r.string("topicFilterType");
  h.topic_sys_flag = r.optional_int32("topicSysFlag");
  h.order = r.boolean_or("order", false);
  FERRY_TRY(r.status());
  if (h.topic_filter_type != "SINGLE_TAG" && h.topic_filter_type != "MULTI_TAG") {
    return Error(Errc::invalid_argument,
                 fmt::format("CreateTopicRequestHeader: field topicFilterType = \"{}\" is not "
                             "SINGLE_TAG or MULTI_TAG", h.topic_filter_type));
  }
  return h;
}

ExtFields CreateTopicRequestHeader::to_fields() const {
  ExtFields f;
  put_string(f, "topic", topic);
  put_string(f, "defaultTopic", default_topic);
  put_int(f, "readQueueNums", read_queue_nums);
  put_int(f, "writeQueueNums", write_queue_nums);
  put_int(f, "perm", perm);
  put_string(f, "topicFilterType", topic_filter_type);
  put_optional_int(f, "topicSysFlag", topic_sys_flag);
  put_bool(f, "order", order);
  return f;
}

}  // namespace ferry::remoting
