// statsAll: per topic and consumer group, the traffic of the last day and the backlog, as RocketMQ
// 4.9's StatsAllSubCommand prints it:
//   #Topic  #Consumer Group  #Accumulation  #InTPS  #OutTPS  #InMsg24Hour  #OutMsg24Hour
// For every topic the NameServers list (but %RETRY% and %DLQ% ones; -t: that topic only), over
// the masters of its route: InTPS / InMsg24Hour from VIEW_BROKER_STATS_DATA (315)
// TOPIC_PUT_NUMS, and for each group consuming it (QUERY_TOPIC_CONSUME_BY_WHO, 300) OutTPS /
// OutMsg24Hour from GROUP_GET_NUMS "topic@group" and the accumulation from GET_CONSUME_STATS (208,
// the total diff, at least 0). TPS is the minute window's; a 24-hour figure is the day window's
// sum, else the hour's, else the minute's (RocketMQ's compute24HourSum). A topic nobody consumes
// gets one row with NO_CONSUMER. -a keeps only rows with traffic in the last day.
// As in RocketMQ, a broker that has no figures for a key adds nothing, and a topic whose route or
// group list cannot be read is left out. Difference: the group list is the union of every
// master's answer (RocketMQ asks one broker of the route).
#include <cstdio>
#include <set>
#include <string>

#include "common/names.h"
#include "remoting/header/admin_stats_header.h"
#include "cli/admin_calls.h"
#include "tools/mqadmin/command.h"

namespace ferry::mqadmin {

namespace {

namespace body = remoting::body;

constexpr std::size_t kNameWidth = 64;

// RocketMQ's UtilAll.frontStringAtLeast: at most the first `size` characters.
std::string front(const std::string& s) { return s.substr(0, kNameWidth); }

std::int64_t sum_24_hours(const body::BrokerStatsData& d) {
  if (d.stats_day.sum != 0) return d.stats_day.sum;
  if (d.stats_hour.sum != 0) return d.stats_hour.sum;
  return d.stats_minute.sum;
}

struct Traffic {
  double tps = 0;
  std::int64_t day = 0;
};

// The minute TPS and 24-hour count of `name` / `key` summed over `masters`.
Traffic traffic(AdminSession& s, const std::vector<BrokerTarget>& masters, std::string_view name,
                const std::string& key) {
  Traffic t;
  for (const BrokerTarget& b : masters) {
    Result<std::optional<body::BrokerStatsData>> d = broker_stats_data(s, b, std::string(name), key);
    if (!d.ok() || !d->has_value()) continue;  // RocketMQ ignores a broker's failure here
    t.tps += (*d)->stats_minute.tps;
    t.day += sum_24_hours(**d);
  }
  return t;
}

// The group's total diff on `topic` over `masters`, at least 0; 0 when a broker does not answer.
std::int64_t accumulation(AdminSession& s, const std::vector<BrokerTarget>& masters, const std::string& group,
                          const std::string& topic) {
  std::int64_t diff = 0;
  for (const BrokerTarget& b : masters) {
    Result<body::ConsumeStats> c = consume_stats(s, b, group, topic);
    if (!c.ok()) return 0;
    diff += c->total_diff();
  }
  return diff < 0 ? 0 : diff;
}

void print_topic(AdminSession& s, const std::string& topic, bool active_only) {
  Result<std::vector<BrokerTarget>> masters = topic_masters(s, topic);
  if (!masters.ok()) return;
  std::set<std::string> groups;
  for (const BrokerTarget& b : *masters) {
    Result<body::GroupList> g = topic_consumed_by(s, b, topic);
    if (!g.ok()) return;
    groups.insert(g->group_list.begin(), g->group_list.end());
  }
  const Traffic in = traffic(s, *masters, remoting::stats_name::kTopicPutNums, topic);
  if (groups.empty()) {
    if (active_only && in.day <= 0) return;
    std::printf("%-64s  %-64s %12d %11.2f %11s %14lld %14s\n", front(topic).c_str(), "", 0, in.tps, "",
                static_cast<long long>(in.day), "NO_CONSUMER");
    return;
  }
  for (const std::string& group : groups) {
    const Traffic out = traffic(s, *masters, remoting::stats_name::kGroupGetNums, topic + "@" + group);
    const std::int64_t backlog = accumulation(s, *masters, group, topic);
    if (active_only && in.day <= 0 && out.day <= 0) continue;
    std::printf("%-64s  %-64s %12lld %11.2f %11.2f %14lld %14lld\n", front(topic).c_str(), front(group).c_str(),
                static_cast<long long>(backlog), in.tps, out.tps, static_cast<long long>(in.day),
                static_cast<long long>(out.day));
  }
}

int run(const ParsedFlags& f, AdminSession& s) {
  constexpr std::string_view kName = "statsAll";
  Result<std::vector<std::string>> topics = s.run(s.admin().topic_list());
  if (!topics.ok()) return fail(kName, topics.error());
  const bool active_only = f.has("activeTopic");
  const std::optional<std::string> only = f.get("topic");
  std::printf("%-64s  %-64s %12s %11s %11s %14s %14s\n", "#Topic", "#Consumer Group", "#Accumulation", "#InTPS",
              "#OutTPS", "#InMsg24Hour", "#OutMsg24Hour");
  for (const std::string& topic : *topics) {
    if (topic.starts_with(kRetryTopicPrefix) || topic.starts_with(kDlqTopicPrefix)) continue;
    if (only && !only->empty() && topic != *only) continue;
    print_topic(s, topic, active_only);
  }
  return kExitOk;
}

}  // namespace

Command stats_all_command() {
  return Command{"statsAll",
                 "per topic and consumer group: backlog, TPS and messages of the last 24 hours (315, 300, 208)",
                 {
                     {'a', "activeTopic", "", "only rows with traffic in the last 24 hours"},
                     {'t', "topic", "TOPIC", "only this topic"},
                 },
                 run};
}

}  // namespace ferry::mqadmin
