// deleteSubGroup: DELETE_SUBSCRIPTIONGROUP (207) on one broker (-b) or every master of a cluster
// (-c), as RocketMQ's DeleteSubscriptionGroupCommand; -r true also removes the group's committed
// offsets (removeOffset, RocketMQ 4.9.4+). With -c, as RocketMQ, it then deletes the group's
// %RETRY% and %DLQ% topics from every master of the cluster and from the NameServers (deleteTopic's
// path; a topic that does not exist is no error). RocketMQ prints a failure there and exits 0;
// Ferry exits 1 (the group itself is deleted by then).
#include <fmt/format.h>

#include <cstdio>

#include "common/names.h"
#include "remoting/header/topic_admin_header.h"
#include "remoting/request_code.h"
#include "cli/broker_calls.h"
#include "tools/mqadmin/command.h"

namespace ferry::mqadmin {

namespace {

int run(const ParsedFlags& f, AdminSession& s) {
  constexpr std::string_view kName = "deleteSubGroup";
  remoting::DeleteSubscriptionGroupRequestHeader h;
  h.group_name = *f.get("groupName");
  if (Status v = validate_group(h.group_name); !v.ok()) return usage_error(kName, fmt::format("-g: {}", v.error().detail));
  Result<std::optional<bool>> remove = f.bool_of("removeOffset");
  if (!remove.ok()) return usage_error(kName, remove.error().detail);
  h.remove_offset = remove->value_or(false);
  const std::optional<std::string> cluster = f.get("clusterName");
  const std::optional<std::string> broker_addr = f.get("brokerAddr");
  if (cluster.has_value() == broker_addr.has_value()) return usage_error(kName, "give exactly one of -c clusterName and -b brokerAddr");
  Result<std::vector<BrokerTarget>> brokers = resolve_brokers(s, cluster, broker_addr, true);
  if (!brokers.ok()) return fail(kName, brokers.error());
  for (const BrokerTarget& b : *brokers) {
    remoting::RemotingCommand req = remoting::make_request(remoting::request_code::DELETE_SUBSCRIPTIONGROUP, 0);
    req.ext_fields = h.to_fields();
    Result<remoting::RemotingCommand> r = call_broker(s, b.addr, std::move(req));
    if (!r.ok()) return fail(kName, r.error());
    std::printf("delete subscription group [%s] from broker [%s] in cluster [%s] success.\n", h.group_name.c_str(),
                b.addr.c_str(), b.cluster.c_str());
  }
  if (!cluster) return kExitOk;
  for (const std::string& topic : {retry_topic(h.group_name), dlq_topic(h.group_name)}) {
    Status st = s.run(s.admin().delete_topic_in_cluster(*cluster, topic));
    if (!st.ok()) return fail(kName, fmt::format("the group is deleted, but not its topic {}: {}", topic, st.error().to_string()));
    std::printf("delete topic [%s] from cluster [%s] success.\n", topic.c_str(), cluster->c_str());
    std::printf("delete topic [%s] from NameServer success.\n", topic.c_str());
  }
  return kExitOk;
}

}  // namespace

Command delete_sub_group_command() {
  return Command{"deleteSubGroup",
                 "delete a consumer group's settings from a broker or every master of a cluster",
                 {
                     {'g', "groupName", "GROUP", "consumer group", true},
                     {'b', "brokerAddr", "IP:PORT", "on this broker only"},
                     {'c', "clusterName", "CLUSTER", "on every master of this cluster"},
                     {'r', "removeOffset", "BOOL", "also remove the group's committed offsets (default false)"},
                 },
                 run};
}

}  // namespace ferry::mqadmin
