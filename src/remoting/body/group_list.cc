#include "remoting/body/group_list.h"

#include "remoting/body/body_json.h"

namespace ferry::remoting::body {

Result<GroupList> GroupList::decode(Bytes body) {
  auto items = read_string_list_body(body, "GroupList", "groupList");
  if (!items) return std::move(items).error();
  GroupList out;
  out.group_list = std::move(*items);
  return out;
}

std::vector<std::uint8_t> GroupList::encode() const { return write_string_list_body("groupList", group_list); }

}  // namespace ferry::remoting::body
