// What the broker-level subcommands (brokerStatus, updateSubGroup, resetOffsetByTime) share:
// which brokers a -b / -c pair names, and one checked request to a broker through the session's
// RpcClient (for the codes the AdminClient does not wrap).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "remoting/remoting_command.h"
#include "cli/admin_session.h"

namespace ferry::cli {

struct BrokerTarget {
  std::string cluster;      // "?" when -b names an address the NameServers do not list
  std::string broker_name;  // "?" likewise
  std::int64_t broker_id = 0;
  std::string addr;         // "ip:port"
};

// -b ADDR: that broker alone; -c CLUSTER: the brokers of that cluster; neither: every broker the
// NameServers know. `masters_only` keeps brokerId 0. Sorted by cluster, name, id. Errors:
// invalid_argument when both are given; not_found when the cluster is unknown or nothing
// matches; the NameServer's errors.
Result<std::vector<BrokerTarget>> resolve_brokers(AdminSession& s, const std::optional<std::string>& cluster,
                                                  const std::optional<std::string>& broker_addr, bool masters_only);

// Sends `request` to `addr` and returns the reply if its code is one of `accepted` (SUCCESS by
// default). Errors name the broker and the reply code (client/client_errors.h).
Result<remoting::RemotingCommand> call_broker(AdminSession& s, const std::string& addr,
                                              remoting::RemotingCommand request,
                                              std::vector<std::int32_t> accepted = {0});

// "broker-a (127.0.0.1:10911)"
std::string describe(const BrokerTarget& b);

}  // namespace ferry::cli
