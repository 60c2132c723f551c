#include "remoting/body/consumer_id_list.h"

#include "remoting/body/body_json.h"

namespace ferry::remoting::body {

Result<ConsumerIdList> ConsumerIdList::decode(Bytes body) {
  auto doc = parse_body(body, "ConsumerIdList");
  if (!doc) return std::move(doc).error();
  json::JsonErrors errors;
  json::ObjectReader r(*doc, "ConsumerIdList", errors);
  ConsumerIdList c;
  c.consumer_id_list = r.string_array("consumerIdList");
  if (errors.failed()) return errors.take();
  return c;
}

std::vector<std::uint8_t> ConsumerIdList::encode() const {
  return write_body([this](json::Writer& w) {
    w.StartObject();
    write_string_array(w, "consumerIdList", consumer_id_list);
    w.EndObject();
  });
}

}  // namespace ferry::remoting::body
