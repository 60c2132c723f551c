// topicRoute: the topic's route from the NameServer — its queues per broker and the brokers'
// addresses.
#include <cstdio>

#include "cli/table.h"
#include "tools/mqadmin/command.h"

namespace ferry::mqadmin {

namespace {

int run(const ParsedFlags& f, AdminSession& s) {
  const std::string topic = *f.get("topic");
  Result<remoting::body::TopicRouteData> route = s.run(s.admin().topic_route(topic));
  if (!route.ok()) return fail("topicRoute", route.error());
  cli::Table queues({"#Broker", "ReadQueues", "WriteQueues", "Perm", "SysFlag"});
  for (const auto& q : route->queue_datas) {
    queues.add_row({q.broker_name, std::to_string(q.read_queue_nums), std::to_string(q.write_queue_nums),
                    std::to_string(q.perm), std::to_string(q.topic_sys_flag)});
  }
  cli::Table brokers({"#Cluster", "Broker", "BrokerId", "Address"});
  for (const auto& b : route->broker_datas) {
    for (const auto& [id, addr] : b.broker_addrs) brokers.add_row({b.cluster, b.broker_name, std::to_string(id), addr});
  }
  std::printf("%s\n%s", queues.render().c_str(), brokers.render().c_str());
  if (route->order_topic_conf) std::printf("\norderTopicConf: %s\n", route->order_topic_conf->c_str());
  return kExitOk;
}

}  // namespace

Command topic_route_command() {
  return Command{"topicRoute", "show a topic's route: queues per broker, broker addresses",
                 {{'t', "topic", "TOPIC", "topic name", true}}, run};
}

}  // namespace ferry::mqadmin
