// consumerProgress: a group's committed offset against the broker's max offset per queue, with
// the lag. Without -t: every user topic the NameServer knows (and the group's retry topic). The
// broker answers 0 for a group that never committed on a queue that still starts at offset 0.
#include <fmt/format.h>

#include <cstdio>

#include "common/names.h"
#include "tools/mqadmin/command.h"
#include "tools/cli/table.h"

namespace ferry::mqadmin {

namespace {

// Without -t: the topics a consumer group may read — not system topics, not the per-cluster and
// per-broker topics, not other groups' retry and dead-letter topics.
bool is_user_topic(const std::string& topic, const std::string& group, const remoting::body::ClusterInfo& info) {
  if (topic == fmt::format("{}{}", kRetryTopicPrefix, group)) return true;
  if (is_system_topic(topic) || is_retry_topic(topic) || is_dlq_topic(topic)) return false;
  if (info.broker_addr_table.count(topic) > 0) return false;
  for (const auto& [cluster, brokers] : info.cluster_addr_table) {
    if (topic == cluster || topic == fmt::format("{}_REPLY_TOPIC", cluster)) return false;
  }
  return true;
}

int run(const ParsedFlags& f, AdminSession& s) {
  constexpr std::string_view kName = "consumerProgress";
  const std::string group = *f.get("group");
  std::vector<std::string> topics;
  const bool all_topics = !f.has("topic");
  if (all_topics) {
    Result<std::vector<std::string>> list = s.run(s.admin().topic_list());
    if (!list.ok()) return fail(kName, list.error());
    Result<remoting::body::ClusterInfo> info = s.run(s.admin().cluster_info());
    if (!info.ok()) return fail(kName, info.error());
    for (std::string& t : *list) {
      if (is_user_topic(t, group, *info)) topics.push_back(std::move(t));
    }
  } else {
    topics.push_back(*f.get("topic"));
  }
  cli::Table t({"#Topic", "Broker", "Queue", "BrokerOffset", "ConsumerOffset", "Diff"});
  std::int64_t total_lag = 0;
  for (const std::string& topic : topics) {
    Result<std::vector<client::QueueProgress>> progress = s.run(s.admin().consumer_progress(group, topic));
    if (!progress.ok()) {
      if (all_topics) continue;  // a topic without a route or a broker: not the group's
      return fail(kName, progress.error());
    }
    for (const auto& q : *progress) {
      if (all_topics && q.consumer_offset.value() < 0) continue;  // no offset of the group here
      t.add_row({q.queue.topic, q.queue.broker_name, std::to_string(q.queue.queue_id.value()),
                 std::to_string(q.broker_offset.value()), std::to_string(q.consumer_offset.value()), std::to_string(q.lag())});
      total_lag += q.lag();
    }
  }
  if (t.rows() == 0) {
    return fail(kName, all_topics ? fmt::format("group '{}' has no committed offset", group)
                                  : fmt::format("group '{}' has no committed offset on topic '{}'", group, topics.front()));
  }
  std::printf("%s\nDiff Total: %lld\n", t.render().c_str(), static_cast<long long>(total_lag));
  return kExitOk;
}

}  // namespace

Command consumer_progress_command() {
  return Command{"consumerProgress",
                 "show a consumer group's committed offsets and lag per queue",
                 {
                     {'g', "group", "GROUP", "consumer group", true},
                     {'t', "topic", "TOPIC", "only this topic (default: every topic with an offset of the group)"},
                 },
                 run};
}

}  // namespace ferry::mqadmin
