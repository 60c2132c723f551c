// clusterList: every cluster, its brokers and their addresses, from the NameServer.
#include <algorithm>
#include <cstdio>

#include "cli/table.h"
#include "tools/mqadmin/command.h"

namespace ferry::mqadmin {

namespace {

int run(const ParsedFlags&, AdminSession& s) {
  Result<remoting::body::ClusterInfo> info = s.run(s.admin().cluster_info());
  if (!info.ok()) return fail("clusterList", info.error());
  cli::Table t({"#Cluster", "Broker", "BrokerId", "Address"});
  for (const auto& [cluster, names] : info->cluster_addr_table) {
    std::vector<std::string> sorted = names;
    std::sort(sorted.begin(), sorted.end());
    for (const std::string& name : sorted) {
      auto b = info->broker_addr_table.find(name);
      if (b == info->broker_addr_table.end() || b->second.broker_addrs.empty()) {
        t.add_row({cluster, name, "-", "-"});
        continue;
      }
      for (const auto& [id, addr] : b->second.broker_addrs) t.add_row({cluster, name, std::to_string(id), addr});
    }
  }
  std::printf("%s", t.render().c_str());
  return kExitOk;
}

}  // namespace

Command cluster_list_command() { return Command{"clusterList", "list clusters, their brokers and addresses", {}, run}; }

}  // namespace ferry::mqadmin
