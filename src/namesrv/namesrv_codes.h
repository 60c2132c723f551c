// Request codes the NameServer serves beyond those in remoting/request_code.h (RocketMQ's
// numbers). They belong in request_code.h; they live here until the codec takes them.
#pragma once

#include <cstdint>

namespace ferry::namesrv::namesrv_code {

inline constexpr std::int32_t DELETE_TOPIC_IN_NAMESRV = 216;  // topic, clusterName (optional)
inline constexpr std::int32_t GET_KVLIST_BY_NAMESPACE = 219;  // namespace → {"table":{...}}
inline constexpr std::int32_t GET_TOPICS_BY_CLUSTER = 224;    // cluster → {"topicList":[...]}

}  // namespace ferry::namesrv::namesrv_code
