// deleteTopic: DELETE_TOPIC_IN_BROKER on every master of the cluster, then
// DELETE_TOPIC_IN_NAMESRV on every NameServer of -n.
#include <cstdio>

#include "tools/mqadmin/command.h"

namespace ferry::mqadmin {

namespace {

int run(const ParsedFlags& f, AdminSession& s) {
  const std::string topic = *f.get("topic");
  const std::string cluster = *f.get("clusterName");
  Status st = s.run(s.admin().delete_topic_in_cluster(cluster, topic));
  if (!st.ok()) return fail("deleteTopic", st.error());
  std::printf("delete topic [%s] from cluster [%s] success.\n", topic.c_str(), cluster.c_str());
  std::printf("delete topic [%s] from NameServer success.\n", topic.c_str());
  return kExitOk;
}

}  // namespace

Command delete_topic_command() {
  return Command{
      "deleteTopic",
      "delete a topic from every master of a cluster and from the NameServers",
      {
          {'t', "topic", "TOPIC", "topic name", true},
          {'c', "clusterName", "CLUSTER", "cluster name", true},
      },
      run,
  };
}

}  // namespace ferry::mqadmin
