// brokerConsumeStats: every subscription group's progress on one broker, from
// GET_BROKER_CONSUME_STATS (317), as RocketMQ 4.9's BrokerConsumeStatsSubCommad prints it: per
// group, per queue (sorted by topic, broker name, queue id) the broker offset, the consumer
// offset, their difference and when the last consumed message was stored; then "Diff Total".
// As RocketMQ: a queue whose diff is below -l LEVEL, or whose last consumed message has no store
// time (nothing consumed there yet), gets no row (the total still counts it); -o true asks for
// order topics only. Difference: no -t (the request uses mqadmin's usual timeout).
#include <fmt/format.h>

#include <cstdio>

#include "cli/table.h"
#include "remoting/body/consume_stats_list.h"
#include "remoting/header/admin_stats_header.h"
#include "remoting/request_code.h"
#include "cli/admin_calls.h"
#include "tools/mqadmin/command.h"

namespace ferry::mqadmin {

namespace {

int run(const ParsedFlags& f, AdminSession& s) {
  constexpr std::string_view kName = "brokerConsumeStats";
  const std::string addr = *f.get("brokerAddr");
  Result<std::int64_t> level = f.int_in("level", INT64_MIN, INT64_MAX, 0);
  if (!level.ok()) return usage_error(kName, level.error().detail);
  Result<std::optional<bool>> order = f.bool_of("order");
  if (!order.ok()) return usage_error(kName, order.error().detail);

  remoting::GetConsumeStatsInBrokerHeader header;
  header.is_order = order->value_or(false);
  remoting::RemotingCommand request = remoting::make_request(remoting::request_code::GET_BROKER_CONSUME_STATS, 0);
  request.ext_fields = header.to_fields();
  Result<remoting::RemotingCommand> reply = call_broker(s, addr, std::move(request));
  if (!reply.ok()) return fail(kName, reply.error());
  Result<remoting::body::ConsumeStatsList> list = remoting::body::ConsumeStatsList::decode(reply->body);
  if (!list.ok()) return fail(kName, fmt::format("reply of {}: {}", addr, list.error().to_string()));

  cli::Table t({"#Topic", "#Group", "#Broker Name", "#QID", "#Broker Offset", "#Consumer Offset", "#Diff", "#LastTime"});
  for (const remoting::body::GroupConsumeStats& g : list->consume_stats_list) {
    for (const remoting::body::ConsumeStats& c : g.stats) {
      for (const auto& [mq, w] : c.offset_table) {
        const std::int64_t diff = w.broker_offset - w.consumer_offset;
        if (diff < *level || w.last_timestamp <= 0) continue;
        t.add_row({mq.topic, g.group, mq.broker_name, std::to_string(mq.queue_id.value()),
                   std::to_string(w.broker_offset), std::to_string(w.consumer_offset), std::to_string(diff),
                   time_text(w.last_timestamp)});
      }
    }
  }
  std::printf("%s\nDiff Total: %lld\n", t.render().c_str(), static_cast<long long>(list->total_diff));
  return kExitOk;
}

}  // namespace

Command broker_consume_stats_command() {
  return Command{"brokerConsumeStats",
                 "every consumer group's progress on one broker (GET_BROKER_CONSUME_STATS)",
                 {
                     {'b', "brokerAddr", "ADDR", "the broker, ip:port", true},
                     {'l', "level", "N", "print only queues whose diff is at least N (default 0)", false},
                     {'o', "order", "BOOL", "true: order topics only (default false)", false},
                 },
                 run};
}

}  // namespace ferry::mqadmin
