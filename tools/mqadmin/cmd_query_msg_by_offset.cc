// queryMsgByOffset: one PULL_MESSAGE of one message at a queue offset.
#include <fmt/format.h>

#include <cstdio>

#include "tools/mqadmin/command.h"
#include "tools/mqadmin/message_print.h"

namespace ferry::mqadmin {

namespace {

int run(const ParsedFlags& f, AdminSession& s) {
  constexpr std::string_view kName = "queryMsgByOffset";
  Result<std::int64_t> queue_id = f.int_in("queueId", 0, 1 << 20, 0);
  Result<std::int64_t> offset = f.int_in("offset", 0, INT64_MAX, 0);
  if (!queue_id.ok()) return usage_error(kName, queue_id.error().detail);
  if (!offset.ok()) return usage_error(kName, offset.error().detail);
  const std::string topic = *f.get("topic");
  Status routed = s.run(s.instance().update_topic_route(topic));
  if (!routed.ok()) return fail(kName, routed.error());
  client::PullRequest req;
  req.group = "mqadmin-query";
  req.queue = MessageQueue{topic, *f.get("brokerName"), QueueId(static_cast<std::int32_t>(*queue_id))};
  req.offset = QueueOffset(*offset);
  req.max_nums = 1;
  Result<client::PullResult> r = s.run(s.puller().pull(req));
  if (!r.ok()) return fail(kName, r.error());
  if (r->status != client::PullStatus::FOUND || r->messages.empty()) {
    return fail(kName, fmt::format("no message at offset {} of {} (pull status {}; the queue holds offsets {}..{})", *offset,
                                   req.queue.to_string(), client::name(r->status), r->min_offset.value(),
                                   r->max_offset.value() - 1));
  }
  std::printf("%s", message_detail(r->messages.front()).c_str());
  return kExitOk;
}

}  // namespace

Command query_msg_by_offset_command() {
  return Command{"queryMsgByOffset",
                 "show the message at an offset of one queue",
                 {
                     {'t', "topic", "TOPIC", "topic name", true},
                     {'b', "brokerName", "BROKER", "broker name (e.g. broker-a)", true},
                     {'i', "queueId", "N", "queue id", true},
                     {'o', "offset", "N", "queue offset", true},
                 },
                 run};
}

}  // namespace ferry::mqadmin
