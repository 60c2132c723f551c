// The NameServer's codes beyond the core table now live in remoting/request_code.h; these
// aliases keep the NameServer's call sites short.
#pragma once

#include "remoting/request_code.h"

namespace ferry::namesrv::namesrv_code {

inline constexpr std::int32_t DELETE_TOPIC_IN_NAMESRV = remoting::request_code::DELETE_TOPIC_IN_NAMESRV;
inline constexpr std::int32_t GET_KVLIST_BY_NAMESPACE = remoting::request_code::GET_KVLIST_BY_NAMESPACE;
inline constexpr std::int32_t GET_TOPICS_BY_CLUSTER = remoting::request_code::GET_TOPICS_BY_CLUSTER;

}  // namespace ferry::namesrv::namesrv_code
