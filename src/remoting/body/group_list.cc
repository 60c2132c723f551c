#include "remoting/body/group_list.h"

#include "remoting/body/body_json.h"

namespace ferry::remoting::body {

Result<GroupList> GroupList::decode(Bytes body) {
  auto doc = parse_body(body, "GroupList");
  if (!doc) return std::move(doc).error();
  json::JsonErrors errors;
  json::ObjectReader r(*doc, "GroupList", errors);
  GroupList g;
  g.group_list = r.string_array("groupList");
  if (errors.failed()) return errors.take();
  return g;
}

std::vector<std::uint8_t> GroupList::encode() const {
  return write_body([this](json::Writer& w) {
    w.StartObject();
    write_string_array(w, "groupList", group_list);
    w.EndObject();
  });
}

}  // namespace ferry::remoting::body
