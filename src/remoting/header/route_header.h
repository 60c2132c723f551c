// Topic requests to the NameServer: GET_ROUTEINFO_BY_TOPIC (105), DELETE_TOPIC_IN_NAMESRV (216)
// and GET_TOPICS_BY_CLUSTER (224). The route reply body is TopicRouteData
// (body/topic_route_data.h); an unknown topic is answered with TOPIC_NOT_EXIST (17).
//
// Each struct names its extFields once, in fields(), which from_fields() and to_fields() both
// walk (remoting/header/field_codec.h says what required / optional / only_if_true mean).
#pragma once

#include <optional>
#include <string>

#include "remoting/ext_fields.h"
#include "remoting/header/field_codec.h"
#include "runtime/result.h"

namespace ferry::remoting {

struct GetRouteInfoRequestHeader {
  std::string topic;

  static constexpr auto fields() {
    using H = GetRouteInfoRequestHeader;
    return header_table("GetRouteInfoRequestHeader", required("topic", &H::topic));
  }
  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<GetRouteInfoRequestHeader> from_fields(const ExtFields& f) {
    return fields().decode(f);
  }
  ExtFields to_fields() const { return fields().encode(*this); }

  bool operator==(const GetRouteInfoRequestHeader&) const = default;
};

struct DeleteTopicFromNamesrvRequestHeader {
  std::string topic;
  std::optional<std::string> cluster_name;  // absent or empty: every cluster

  static constexpr auto fields() {
    using H = DeleteTopicFromNamesrvRequestHeader;
    return header_table("DeleteTopicFromNamesrvRequestHeader",
                        required("topic", &H::topic),
                        optional("clusterName", &H::cluster_name));
  }
  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<DeleteTopicFromNamesrvRequestHeader> from_fields(const ExtFields& f) {
    return fields().decode(f);
  }
  ExtFields to_fields() const { return fields().encode(*this); }

  bool operator==(const DeleteTopicFromNamesrvRequestHeader&) const = default;
};

struct GetTopicsByClusterRequestHeader {
  std::string cluster;

  static constexpr auto fields() {
    using H = GetTopicsByClusterRequestHeader;
    return header_table("GetTopicsByClusterRequestHeader", required("cluster", &H::cluster));
  }
  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<GetTopicsByClusterRequestHeader> from_fields(const ExtFields& f) {
    return fields().decode(f);
  }
  ExtFields to_fields() const { return fields().encode(*this); }

  bool operator==(const GetTopicsByClusterRequestHeader&) const = default;
};

}  // namespace ferry::remoting
