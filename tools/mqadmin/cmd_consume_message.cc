// consumeMessage: reads a topic with plain pulls (no consumer group state is changed: nothing is
// committed) from the min offset of every readable queue, and prints what it read.
//
// Without -c it reads what the queues hold and stops. With -c N it stops after N messages, and
// when fewer are there it keeps polling (every 200 ms) until --timeout ms passed; receiving
// fewer than N is then a failure (exit 1, after printing what arrived).
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include "cli/table.h"
#include "tools/mqadmin/command.h"
#include "tools/mqadmin/message_print.h"

namespace ferry::mqadmin {

namespace {

constexpr std::int64_t kMessagesMax = 100000;  // without -c: stop after this many
constexpr auto kPollPause = std::chrono::milliseconds(200);

int run(const ParsedFlags& f, AdminSession& s) {
  constexpr std::string_view kName = "consumeMessage";
  Result<std::int64_t> count = f.int_in("count", 1, kMessagesMax, 0);
  Result<std::int64_t> timeout_ms = f.int_in("timeout", 0, 3'600'000, 5000);
  if (!count.ok()) return usage_error(kName, count.error().detail);
  if (!timeout_ms.ok()) return usage_error(kName, timeout_ms.error().detail);
  const std::string topic = *f.get("topic");
  const std::int64_t wanted = *count > 0 ? *count : kMessagesMax;
  Status routed = s.run(s.instance().update_topic_route(topic));
  if (!routed.ok()) return fail(kName, routed.error());
  const std::vector<MessageQueue> queues = s.instance().subscribe_queues(topic);
  if (queues.empty()) return fail(kName, fmt::format("topic '{}' has no readable queue", topic));

  std::vector<QueueOffset> next(queues.size(), QueueOffset(0));
  cli::Table t(message_headers());
  std::int64_t received = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(*timeout_ms);
  while (received < wanted) {
    bool progressed = false;
    for (std::size_t q = 0; q < queues.size() && received < wanted; ++q) {
      client::PullRequest req;
      req.group = f.get_or("group", "mqadmin-consumer");
      req.queue = queues[q];
      req.offset = next[q];
      req.max_nums = static_cast<std::int32_t>(std::min<std::int64_t>(32, wanted - received));
      req.sub_expression = f.get_or("subExpression", "*");
      Result<client::PullResult> r = s.run(s.puller().pull(req));
      if (!r.ok()) return fail(kName, r.error());
      progressed = progressed || r->next_begin_offset != next[q];
      next[q] = r->next_begin_offset;  // OFFSET_ILLEGAL from 0: the queue's min offset
      for (const MessageExt& m : r->messages) {
        if (received >= wanted) break;
        t.add_row(message_row(m, queues[q].broker_name));
        ++received;
      }
    }
    if (progressed) continue;
    if (*count == 0 || std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(kPollPause);
  }
  if (t.rows() > 0) std::printf("%s", t.render().c_str());
  std::printf("Received %lld message%s from topic %s (%zu queues).\n", static_cast<long long>(received),
              received == 1 ? "" : "s", topic.c_str(), queues.size());
  if (*count > 0 && received < *count) {
    return fail(kName, fmt::format("received {} of {} messages within {} ms", received, *count, *timeout_ms));
  }
  return kExitOk;
}

}  // namespace

Command consume_message_command() {
  return Command{"consumeMessage",
                 "read a topic from the first offset of every queue and print the messages (commits nothing)",
                 {
                     {'t', "topic", "TOPIC", "topic name", true},
                     {'g', "group", "GROUP", "consumer group named in the pulls (default mqadmin-consumer)"},
                     {'c', "count", "N", "stop after N messages; wait up to --timeout for them"},
                     {'s', "subExpression", "EXPR", "tag filter, e.g. 'TagA || TagB' (default *)"},
                     {0, "timeout", "MS", "with -c: how long to wait for N messages (default 5000)"},
                 },
                 run};
}

}  // namespace ferry::mqadmin
