// RpcMetrics: what a server's request observer (rpc_peer.h) counts into a node's metrics
// registry (common/metrics.h), for every daemon alike (broker, NameServer, controller):
//   rocketmq_rpc_latency_milliseconds  histogram {protocol_type="remoting", request_code,
//       response_code, is_long_polling, result}: RocketMQ 5's (RemotingMetricsManager), from a
//       request's arrival to its reply queued; codes as RocketMQ names them (the constant's name in
//       lower case, the number for one it has no name for), result "success", "oneway",
//       "process_request_failed", "write_channel_failed" or "cancelled". Buckets RocketMQ's: 1, 3,
//       5, 7, 10, 100, 1000, 2000, 3000 ms.
//   ferry_requests_refused_total  counter {reason}: busy (the connection's requests in flight at
//       the cap), acl (the ACL guard), service_not_available (a full disk, a store that refuses
//       writes), no_permission, message_illegal, request_code_not_supported.
// One map lookup per request (by the label tuple's codes, not its strings). Loop thread only.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "common/metrics.h"
#include "remoting/rpc/rpc_peer.h"

namespace ferry::remoting {

class RpcMetrics {
 public:
  // Registers both families in `registry`, which must outlive this object.
  explicit RpcMetrics(metrics::Registry& registry);
  RpcMetrics(const RpcMetrics&) = delete;
  RpcMetrics& operator=(const RpcMetrics&) = delete;

  void on_request(const ServedRequest& r);
  // Makes this object `peer`'s request observer; it must outlive the peer's requests.
  void observe(RpcPeer& peer) {
    peer.set_request_observer([this](const ServedRequest& r) { on_request(r); });
  }

  static const std::vector<double>& latency_bounds();
  // RocketMQ's RemotingHelper.getRequestCodeDesc / getResponseCodeDesc.
  static std::string request_code_label(std::int32_t code);
  static std::string response_code_label(std::int32_t code);

 private:
  std::size_t series_max_;
  metrics::Family<metrics::Histogram>* latency_;
  metrics::Family<metrics::Counter>* refused_;
  std::map<std::tuple<std::int32_t, std::int32_t, bool, ServedRequest::Outcome>, metrics::Histogram*> cache_;
};

}  // namespace ferry::remoting
