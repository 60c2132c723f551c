#include "remoting/rpc/rpc_metrics.h"

#include <algorithm>
#include <cctype>

#include "remoting/request_code.h"
#include "remoting/response_code.h"

namespace ferry::remoting {

namespace {

std::string code_label(std::string_view name, std::int32_t code) {
  if (name.empty()) return std::to_string(code);
  std::string out(name);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string_view refusal_reason(const ServedRequest& r) {
  if (r.refusal == ServedRequest::Refusal::busy) return "busy";
  if (r.refusal == ServedRequest::Refusal::guard) return "acl";
  switch (r.response_code) {
    case response_code::SERVICE_NOT_AVAILABLE: return "service_not_available";
    case response_code::NO_PERMISSION: return "no_permission";
    case response_code::MESSAGE_ILLEGAL: return "message_illegal";
    case response_code::REQUEST_CODE_NOT_SUPPORTED: return "request_code_not_supported";
    default: return {};
  }
}

}  // namespace

const std::vector<double>& RpcMetrics::latency_bounds() {
  static const std::vector<double> kBounds{1, 3, 5, 7, 10, 100, 1000, 2000, 3000};
  return kBounds;
}

std::string RpcMetrics::request_code_label(std::int32_t code) { return code_label(request_code::name(code), code); }
std::string RpcMetrics::response_code_label(std::int32_t code) { return code_label(response_code::name(code), code); }

RpcMetrics::RpcMetrics(metrics::Registry& registry)
    : series_max_(registry.series_max()),
      latency_(&registry.histogram("rocketmq_rpc_latency_milliseconds",
                                   "The distribution of rpc latency (from a request's arrival to its reply queued)",
                                   {"protocol_type", "request_code", "response_code", "is_long_polling", "result"},
                                   latency_bounds())),
      refused_(&registry.counter("ferry_requests_refused_total", "Requests refused before or by their processor, by reason",
                                 {"reason"})) {}

void RpcMetrics::on_request(const ServedRequest& r) {
  const auto key = std::make_tuple(r.code, r.response_code, r.suspended, r.outcome);
  auto it = cache_.find(key);
  metrics::Histogram* h = nullptr;
  if (it != cache_.end()) {
    h = it->second;
  } else {
    const std::string response = r.response_code == 0 && r.outcome == ServedRequest::Outcome::oneway
                                     ? std::string("oneway")
                                     : response_code_label(r.response_code);
    h = &latency_->with({"remoting", request_code_label(r.code), response, r.suspended ? "true" : "false",
                         outcome_name(r.outcome)});
    // The codes a peer may send are any int32: the cache stops at the family's cap.
    if (cache_.size() < series_max_) cache_.emplace(key, h);
  }
  h->observe(to_seconds(r.elapsed) * 1000.0);
  if (const std::string_view reason = refusal_reason(r); !reason.empty()) refused_->with({reason}).inc();
}

}  // namespace ferry::remoting
