#include "cli/broker_calls.h"

#include <fmt/format.h>

#include <algorithm>
#include <tuple>

#include "client/client_errors.h"

namespace ferry::cli {

namespace {

Task<Result<remoting::RemotingCommand>> invoke(client::ClientInstance* ci, std::string addr,
                                               remoting::RemotingCommand request, std::vector<std::int32_t> accepted) {
  const std::int32_t request_code = request.code;
  const std::string where = fmt::format("broker {}", addr);
  Result<remoting::RemotingCommand> r = co_await ci->rpc().invoke(addr, std::move(request), ci->config().api_timeout);
  if (!r.ok()) co_return client::with_context(where, std::move(r).error());
  if (std::find(accepted.begin(), accepted.end(), r->code) == accepted.end()) {
    co_return client::reply_error(where, request_code, *r);
  }
  co_return r;
}

}  // namespace

Result<std::vector<BrokerTarget>> resolve_brokers(AdminSession& s, const std::optional<std::string>& cluster,
                                                  const std::optional<std::string>& broker_addr, bool masters_only) {
  if (cluster && broker_addr) return Error(Errc::invalid_argument, "give at most one of -c clusterName and -b brokerAddr");
  Result<remoting::body::ClusterInfo> info = s.run(s.admin().cluster_info());
  if (!info.ok()) {
    if (!broker_addr) return std::move(info).error();
    // -b works without the NameServers: the broker is only named by its address.
    return std::vector<BrokerTarget>{BrokerTarget{"?", "?", 0, *broker_addr}};
  }
  std::vector<BrokerTarget> out;
  for (const auto& [name, data] : info->broker_addr_table) {
    for (const auto& [id, addr] : data.broker_addrs) {
      if (masters_only && id != 0) continue;
      if (cluster && data.cluster != *cluster) continue;
      if (broker_addr && addr != *broker_addr) continue;
      out.push_back(BrokerTarget{data.cluster, name, id, addr});
    }
  }
  if (broker_addr && out.empty()) out.push_back(BrokerTarget{"?", "?", 0, *broker_addr});
  if (out.empty()) {
    if (cluster) return Error(Errc::not_found, fmt::format("no {}broker in cluster '{}'", masters_only ? "master " : "", *cluster));
    return Error(Errc::not_found, "the NameServers know no broker");
  }
  std::sort(out.begin(), out.end(), [](const BrokerTarget& a, const BrokerTarget& b) {
    return std::tie(a.cluster, a.broker_name, a.broker_id, a.addr) < std::tie(b.cluster, b.broker_name, b.broker_id, b.addr);
  });
  return out;
}

Result<remoting::RemotingCommand> call_broker(AdminSession& s, const std::string& addr, remoting::RemotingCommand request,
                                              std::vector<std::int32_t> accepted) {
  return s.run(invoke(&s.instance(), addr, std::move(request), std::move(accepted)));
}

std::string describe(const BrokerTarget& b) {
  if (b.broker_name == "?") return fmt::format("broker {}", b.addr);
  return fmt::format("broker {} ({})", b.broker_name, b.addr);
}

}  // namespace ferry::cli
