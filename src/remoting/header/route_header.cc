#include "remoting/header/route_header.h"

#include "remoting/header/field_codec.h"

namespace ferry::remoting {

Result<GetRouteInfoRequestHeader> GetRouteInfoRequestHeader::from_fields(const ExtFields& f) {
  FieldReader r(f, "GetRouteInfoRequestHeader");
  GetRouteInfoRequestHeader h;
  h.topic = r.string("topic");
  FERRY_TRY(r.status());
  return h;
}

ExtFields GetRouteInfoRequestHeader::to_fields() const {
  ExtFields f;
  put_string(f, "topic", topic);
  return f;
}

}  // namespace ferry::remoting
