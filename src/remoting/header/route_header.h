// GET_ROUTEINFO_BY_TOPIC (105) request header. The reply body is TopicRouteData
// (body/topic_route_data.h); an unknown topic is answered with TOPIC_NOT_EXIST (17).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "remoting/ext_fields.h"
#include "runtime/result.h"

namespace ferry::remoting {

struct GetRouteInfoRequestHeader {
  std::string topic;

  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<GetRouteInfoRequestHeader> from_fields(const ExtFields& f);
  ExtFields to_fields() const;

  bool operator==(const GetRouteInfoRequestHeader&) const = default;
};

}  // namespace ferry::remoting
