#include "remoting/body/topic_config.h"

#include "remoting/body/body_json.h"

namespace ferry::remoting::body {

TopicConfig TopicConfig::read(const rapidjson::Value& v, std::string path,
                              json::JsonErrors& errors) {
  json::ObjectReader r(v, std::move(path), errors);
  TopicConfig c;
  c.topic_name = r.string("topicName");
  c.read_queue_nums = r.int32("readQueueNums");
  c.write_queue_nums = r.int32("writeQueueNums");
  c.perm = r.int32("perm");
  c.topic_filter_type = r.optional_string("topicFilterType").value_or("SINGLE_TAG");
  c.topic_sys_flag = r.int32_or("topicSysFlag", 0);
  c.order = r.boolean_or("order", false);
  return c;
}

void TopicConfig::write(json::Writer& w) const {
  w.StartObject();
  write_string_field(w, "topicName", topic_name);
  w.Key("readQueueNums");
  w.Int(read_queue_nums);
  w.Key("writeQueueNums");
  w.Int(write_queue_nums);
  w.Key("perm");
  w.Int(perm);
  write_string_field(w, "topicFilterType", topic_filter_type);
  w.Key("topicSysFlag");
  w.Int(topic_sys_flag);
  w.Key("order");
  w.Bool(order);
  w.EndObject();
}

}  // namespace ferry::remoting::body
