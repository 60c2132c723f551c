// queryMsgTraceById: the trace records of one message (common/message_trace.h) — QUERY_MESSAGE by
// the msgId on the trace topic's brokers, each record's contexts decoded, those of that msgId
// printed as RocketMQ's command does: a Pub table for each send, then per consumer group its Sub
// rows (SubAfter: when, how long, success).
#include <cstdio>
#include <map>

#include "common/message_trace.h"
#include "common/names.h"
#include "tools/mqadmin/command.h"
#include "tools/mqadmin/message_print.h"

namespace ferry::mqadmin {

namespace {

constexpr std::string_view kName = "queryMsgTraceById";

void print_row(const char* type, const std::string& group, const std::string& host, std::int64_t at_ms, std::int32_t cost_ms,
               bool success) {
  std::printf("%-10s %-20s %-20s %-20s %-10s %-10s\n", type, group.c_str(), host.c_str(), format_time_ms(at_ms).c_str(),
              (std::to_string(cost_ms) + "ms").c_str(), success ? "success" : "failed");
}

int run(const ParsedFlags& f, AdminSession& s) {
  const std::string msg_id = *f.get("msgId");
  const std::string topic = f.get("traceTopic").value_or(std::string(kTraceTopic));
  Result<std::vector<MessageExt>> msgs = s.run(s.admin().query_message(topic, msg_id, 64, 0, INT64_MAX));
  if (!msgs.ok()) return fail(kName, msgs.error());
  struct Row {
    std::string group, host;
    std::int64_t at_ms = 0;
    std::int32_t cost_ms = 0;
    bool success = true;
  };
  std::vector<Row> pubs;
  std::map<std::string, std::vector<Row>> subs;  // by consumer group
  std::size_t damaged = 0;
  for (const MessageExt& m : *msgs) {
    Result<std::vector<TraceContext>> contexts =
        decode_trace_data(std::string_view(reinterpret_cast<const char*>(m.body.data()), m.body.size()));
    if (!contexts.ok()) {
      std::fprintf(stderr, "mqadmin %s: trace message %s: %s\n", kName.data(), std::string(m.msg_id()).c_str(),
                   contexts.error().detail.c_str());
      ++damaged;
      continue;
    }
    for (const TraceContext& c : *contexts) {
      if (c.bean.msg_id != msg_id) continue;
      Row row{c.group, m.born_host.to_string(), c.timestamp_ms, c.cost_ms, c.success};
      if (c.type == TraceType::pub) pubs.push_back(row);
      if (c.type == TraceType::sub_after) subs[c.group].push_back(row);
    }
  }
  for (const Row& r : pubs) {
    std::printf("%-10s %-20s %-20s %-20s %-10s %-10s\n", "#Type", "#ProducerGroup", "#ClientHost", "#SendTime", "#CostTimes",
                "#Status");
    print_row("Pub", r.group, r.host, r.at_ms, r.cost_ms, r.success);
    std::printf("\n");
  }
  for (const auto& [group, rows] : subs) {
    std::printf("%-10s %-20s %-20s %-20s %-10s %-10s\n", "#Type", "#ConsumerGroup", "#ClientHost", "#ConsumerTime", "#CostTimes",
                "#Status");
    for (const Row& r : rows) print_row("Sub", r.group, r.host, r.at_ms, r.cost_ms, r.success);
    std::printf("\n");
  }
  if (pubs.empty() && subs.empty()) std::printf("no trace of message %s in %s\n", msg_id.c_str(), topic.c_str());
  return damaged == 0 ? kExitOk : kExitFailed;
}

}  // namespace

Command query_msg_trace_by_id_command() {
  return Command{"queryMsgTraceById",
                 "query a message's trace (records clients with message trace on wrote to the trace topic)",
                 {
                     {'i', "msgId", "ID", "the message's id (its UNIQ_KEY msgId)", true},
                     {'t', "traceTopic", "TOPIC", "the trace topic (default RMQ_SYS_TRACE_TOPIC)"},
                 },
                 run};
}

}  // namespace ferry::mqadmin
