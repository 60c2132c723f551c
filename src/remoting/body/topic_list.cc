#include "remoting/body/topic_list.h"

#include "remoting/body/body_json.h"

namespace ferry::remoting::body {

Result<TopicList> TopicList::decode(Bytes body) {
  auto doc = parse_body(body, "TopicList");
  if (!doc) return std::move(doc).error();
  json::JsonErrors errors;
  json::ObjectReader r(*doc, "TopicList", errors);
  TopicList t;
  t.topic_list = r.string_array("topicList");
  t.broker_addr = r.optional_string("brokerAddr");
  if (errors.failed()) return errors.take();
  return t;
}

std::vector<std::uint8_t> TopicList::encode() const {
  return write_body([this](json::Writer& w) {
    w.StartObject();
    write_string_array(w, "topicList", topic_list);
    if (broker_addr) write_string_field(w, "brokerAddr", *broker_addr);
    w.EndObject();
  });
}

}  // namespace ferry::remoting::body
