// consumerProgress: a group's committed offset against the broker's max offset per queue, with
// the lag, from GET_CONSUME_STATS (208), as RocketMQ's ConsumerProgressSubCommand
// (examineConsumeStats). With -t: the masters of the topic's route, asked for that topic.
// Without: every master the NameServers know, asked for every topic the group has offsets for.
// A queue the group never committed on shows consumer offset 0 (RocketMQ's broker does the
// same). Output: one row per queue, then "Consume TPS" and "Diff Total".
#include <fmt/format.h>

#include <cstdio>

#include "cli/table.h"
#include "cli/admin_calls.h"
#include "tools/mqadmin/command.h"

namespace ferry::mqadmin {

namespace {

int run(const ParsedFlags& f, AdminSession& s) {
  constexpr std::string_view kName = "consumerProgress";
  const std::string group = *f.get("group");
  const std::optional<std::string> topic = f.get("topic");
  Result<std::vector<BrokerTarget>> brokers =
      topic ? topic_masters(s, *topic) : resolve_brokers(s, std::nullopt, std::nullopt, true);
  if (!brokers.ok()) return fail(kName, brokers.error());
  cli::Table t({"#Topic", "Broker", "Queue", "BrokerOffset", "ConsumerOffset", "Diff", "LastTime"});
  std::int64_t total_lag = 0;
  double tps = 0;
  for (const BrokerTarget& b : *brokers) {
    Result<remoting::body::ConsumeStats> stats = consume_stats(s, b, group, topic);
    if (!stats.ok()) return fail(kName, stats.error());
    tps += stats->consume_tps;
    for (const auto& [mq, o] : stats->offset_table) {
      const std::int64_t diff = o.broker_offset - o.consumer_offset;
      t.add_row({mq.topic, mq.broker_name, std::to_string(mq.queue_id.value()), std::to_string(o.broker_offset),
                 std::to_string(o.consumer_offset), std::to_string(diff), time_text(o.last_timestamp)});
      total_lag += diff;
    }
  }
  if (t.rows() == 0) {
    return fail(kName, topic ? fmt::format("group '{}' has no committed offset on topic '{}'", group, *topic)
                             : fmt::format("group '{}' has no committed offset", group));
  }
  std::printf("%s\nConsume TPS: %.2f\nDiff Total: %lld\n", t.render().c_str(), tps, static_cast<long long>(total_lag));
  return kExitOk;
}

}  // namespace

Command consumer_progress_command() {
  return Command{"consumerProgress",
                 "show a consumer group's committed offsets and lag per queue (GET_CONSUME_STATS)",
                 {
                     {'g', "group", "GROUP", "consumer group", true},
                     {'t', "topic", "TOPIC", "only this topic (default: every topic with an offset of the group)"},
                 },
                 run};
}

}  // namespace ferry::mqadmin
