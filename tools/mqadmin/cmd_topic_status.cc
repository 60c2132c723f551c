// topicStatus: min and max offset of every queue of a topic, from GET_TOPIC_STATS_INFO (202) on
// the master of each broker of the topic's route (as RocketMQ's TopicStatusSubCommand, which
// calls examineTopicStats). The layout is Ferry's earlier one (RocketMQ adds a "#Last Updated"
// column; 202's lastUpdateTimestamp is there for it, but scripts read these four columns).
#include <cstdio>

#include "cli/table.h"
#include "cli/admin_calls.h"
#include "tools/mqadmin/command.h"

namespace ferry::mqadmin {

namespace {

int run(const ParsedFlags& f, AdminSession& s) {
  constexpr std::string_view kName = "topicStatus";
  const std::string topic = *f.get("topic");
  Result<std::vector<BrokerTarget>> brokers = topic_masters(s, topic);
  if (!brokers.ok()) return fail(kName, brokers.error());
  cli::Table t({"#Broker", "Queue", "MinOffset", "MaxOffset"});
  for (const BrokerTarget& b : *brokers) {
    Result<remoting::body::TopicStatsTable> stats = topic_stats(s, b, topic);
    if (!stats.ok()) return fail(kName, stats.error());
    for (const auto& [mq, o] : stats->offset_table) {  // sorted by topic, broker, queue
      t.add_row({mq.broker_name, std::to_string(mq.queue_id.value()), std::to_string(o.min_offset),
                 std::to_string(o.max_offset)});
    }
  }
  std::printf("%s", t.render().c_str());
  return kExitOk;
}

}  // namespace

Command topic_status_command() {
  return Command{"topicStatus", "show min and max offsets of every queue of a topic (GET_TOPIC_STATS_INFO)",
                 {{'t', "topic", "TOPIC", "topic name", true}}, run};
}

}  // namespace ferry::mqadmin
