// updateTopic: UPDATE_AND_CREATE_TOPIC on one broker (-b) or every master of a cluster (-c),
// then waits (up to 5 s) until the NameServer's route shows the topic, so the next command sees it.
#include <fmt/format.h>

#include <chrono>
#include <thread>

#include "tools/mqadmin/command.h"

namespace ferry::mqadmin {

namespace {

constexpr auto kRouteWait = std::chrono::seconds(5);

int run(const ParsedFlags& f, AdminSession& s) {
  constexpr std::string_view kName = "updateTopic";
  const std::string topic = *f.get("topic");
  const std::optional<std::string> cluster = f.get("clusterName");
  const std::optional<std::string> broker = f.get("brokerAddr");
  if (cluster.has_value() == broker.has_value()) return usage_error(kName, "give exactly one of -c clusterName and -b brokerAddr");
  Result<std::int64_t> read = f.int_in("readQueueNums", 1, 1024, 8);
  Result<std::int64_t> write = f.int_in("writeQueueNums", 1, 1024, 8);
  Result<std::int64_t> perm = f.int_in("perm", 0, 15, 6);
  for (const auto* r : {&read, &write, &perm}) {
    if (!r->ok()) return usage_error(kName, r->error().detail);
  }
  remoting::body::TopicConfig config;
  config.topic_name = topic;
  config.read_queue_nums = static_cast<std::int32_t>(*read);
  config.write_queue_nums = static_cast<std::int32_t>(*write);
  config.perm = static_cast<std::int32_t>(*perm);
  Status st = cluster ? s.run(s.admin().create_topic_in_cluster(*cluster, config)) : s.run(s.admin().create_topic(*broker, config));
  if (!st.ok()) return fail(kName, st.error());
  const std::string target = cluster ? fmt::format("cluster {}", *cluster) : fmt::format("broker {}", *broker);
  std::printf("create topic to %s success.\n", target.c_str());
  std::printf("TopicConfig [topicName=%s, readQueueNums=%d, writeQueueNums=%d, perm=%d]\n", topic.c_str(),
              config.read_queue_nums, config.write_queue_nums, config.perm);
  // The broker re-registers with the NameServers at once; wait until the route shows it.
  const auto end = std::chrono::steady_clock::now() + kRouteWait;
  while (true) {
    Result<remoting::body::TopicRouteData> route = s.run(s.admin().topic_route(topic));
    if (route.ok()) break;
    if (std::chrono::steady_clock::now() >= end) {
      std::fprintf(stderr, "mqadmin %s: warning: the NameServer does not show a route for '%s' yet: %s\n",
                   std::string(kName).c_str(), topic.c_str(), route.error().to_string().c_str());
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return kExitOk;
}

}  // namespace

Command update_topic_command() {
  return Command{
      "updateTopic",
      "create or update a topic on a broker or on every master of a cluster",
      {
          {'t', "topic", "TOPIC", "topic name", true},
          {'c', "clusterName", "CLUSTER", "create on every master of this cluster"},
          {'b', "brokerAddr", "IP:PORT", "create on this broker only"},
          {'r', "readQueueNums", "N", "read queues (default 8)"},
          {'w', "writeQueueNums", "N", "write queues (default 8)"},
          {'p', "perm", "PERM", "permission: 2 write, 4 read, 6 both (default 6)"},
      },
      run,
  };
}

}  // namespace ferry::mqadmin
