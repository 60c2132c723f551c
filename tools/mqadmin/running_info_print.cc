#include "tools/mqadmin/running_info_print.h"

#include <fmt/format.h>

#include <set>
#include <utility>

#include "cli/table.h"

namespace ferry::mqadmin {

namespace {
std::string fixed2(double v) { return fmt::format("{:.2f}", v); }
}  // namespace

std::string format_running_info(const remoting::body::ConsumerRunningInfo& info) {
  std::string out = "#Consumer Properties#\n";
  for (const auto& [k, v] : info.properties) out += fmt::format("{:<40}: {}\n", k, v);

  out += "\n#Consumer Subscription#\n";
  int i = 0;
  for (const auto& s : info.subscription_set) {
    out += fmt::format("{:03d} Topic: {:<40} ClassFilter: {:<8} SubExpression: {}\n", ++i, s.topic,
                       s.class_filter_mode ? "true" : "false", s.sub_string);
  }

  out += "\n#Consumer Offset#\n";
  cli::Table offsets({"#Topic", "#Broker Name", "#QID", "#Consumer Offset"});
  for (const auto& [mq, pq] : info.mq_table) {
    offsets.add_row({mq.topic, mq.broker_name, std::to_string(mq.queue_id.value()), std::to_string(pq.commit_offset)});
  }
  out += offsets.render();

  out += "\n#Consumer MQ Detail#\n";
  cli::Table detail({"#Topic", "#Broker Name", "#QID", "#Cached", "#CachedMiB", "#CachedMin", "#CachedMax", "#Locked",
                     "#Dropped", "#LastPullMs", "#LastConsumeMs"});
  for (const auto& [mq, pq] : info.mq_table) {
    detail.add_row({mq.topic, mq.broker_name, std::to_string(mq.queue_id.value()), std::to_string(pq.cached_msg_count),
                    std::to_string(pq.cached_msg_size_in_mib), std::to_string(pq.cached_msg_min_offset),
                    std::to_string(pq.cached_msg_max_offset), pq.locked ? "true" : "false", pq.droped ? "true" : "false",
                    std::to_string(pq.last_pull_timestamp), std::to_string(pq.last_consume_timestamp)});
  }
  out += detail.render();

  out += "\n#Consumer RT&TPS#\n";
  cli::Table rates({"#Topic", "#Pull RT", "#Pull TPS", "#Consume RT", "#ConsumeOK TPS", "#ConsumeFailed TPS",
                    "#ConsumeFailedMsgs (last minute)"});
  for (const auto& [topic, st] : info.status_table) {
    rates.add_row({topic, fixed2(st.pull_rt), fixed2(st.pull_tps), fixed2(st.consume_rt), fixed2(st.consume_ok_tps),
                   fixed2(st.consume_failed_tps), std::to_string(st.consume_failed_msgs)});
  }
  out += rates.render();
  if (info.jstack) out += "\n#Consumer jstack#\n" + *info.jstack + "\n";
  return out;
}

bool same_subscriptions(const std::map<std::string, remoting::body::ConsumerRunningInfo>& by_client) {
  std::optional<std::set<std::pair<std::string, std::string>>> first;
  for (const auto& [client, info] : by_client) {
    std::set<std::pair<std::string, std::string>> subs;
    for (const auto& s : info.subscription_set) subs.emplace(s.topic, s.sub_string);
    if (!first) {
      first = std::move(subs);
    } else if (subs != *first) {
      return false;
    }
  }
  return true;
}

}  // namespace ferry::mqadmin
