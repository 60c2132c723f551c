#include "remoting/body/consumer_id_list.h"

#include "remoting/body/body_json.h"

namespace ferry::remoting::body {

Result<ConsumerIdList> ConsumerIdList::decode(Bytes body) {
  auto items = read_string_list_body(body, "ConsumerIdList", "consumerIdList");
  if (!items) return std::move(items).error();
  ConsumerIdList out;
  out.consumer_id_list = std::move(*items);
  return out;
}

std::vector<std::uint8_t> ConsumerIdList::encode() const { return write_string_list_body("consumerIdList", consumer_id_list); }

}  // namespace ferry::remoting::body
