// printMsg: RocketMQ's PrintMessageSubCommand. For every readable queue of the topic: from the
// queue's min offset, or the offset at -b's time (SEARCH_OFFSET_BY_TIMESTAMP), to its max offset,
// or the offset at -e's time, pulls (group TOOLS_CONSUMER, nothing committed) and prints
//   minOffset=N, maxOffset=M, MessageQueue [topic=T, brokerName=B, queueId=Q]
//   MSGID: <msgId> <MessageExt.toString()> BODY: <body>        one line per message
//   <queue> print msg finished. status=NO_NEW_MSG, offset=N    when the queue ended early
//   --------------------------------------------------------
// -s filters by tag; -d false prints "NOT PRINT BODY"; -c names the body's charset, and only
// UTF-8 is supported (bodies are printed as their bytes). Unlike RocketMQ, a pull never asks for
// more than what is left below the end offset, so -e really is the end. A queue that fails is
// reported on stderr and skipped; the exit code is then 1.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "cli/time_arg.h"
#include "client/consumer_calls.h"
#include "tools/mqadmin/command.h"
#include "tools/mqadmin/message_print.h"

namespace ferry::mqadmin {

namespace {

constexpr std::string_view kName = "printMsg";
constexpr std::string_view kToolsConsumerGroup = "TOOLS_CONSUMER";  // RocketMQ's MixAll.TOOLS_CONSUMER_GROUP
constexpr std::int32_t kPullBatch = 32;

bool is_utf8_name(std::string name) {
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::toupper(c); });
  return name == "UTF-8" || name == "UTF8";
}

struct Range {
  QueueOffset from;
  QueueOffset to;
};

Result<Range> queue_range(AdminSession& s, const MessageQueue& q, std::optional<std::int64_t> begin_ms,
                          std::optional<std::int64_t> end_ms) {
  Result<QueueOffset> from =
      begin_ms ? s.run(client::search_offset(s.instance(), q, *begin_ms)) : s.run(client::min_offset(s.instance(), q));
  if (!from.ok()) return std::move(from).error();
  Result<QueueOffset> to =
      end_ms ? s.run(client::search_offset(s.instance(), q, *end_ms)) : s.run(client::max_offset(s.instance(), q));
  if (!to.ok()) return std::move(to).error();
  return Range{*from, *to};
}

// Prints the queue's messages in [range.from, range.to). Errors: those of the pulls.
Status print_queue(AdminSession& s, const MessageQueue& q, Range range, const std::string& sub_expression,
                   bool print_body) {
  QueueOffset offset = range.from;
  while (offset < range.to) {
    client::PullRequest req;
    req.group = std::string(kToolsConsumerGroup);
    req.queue = q;
    req.offset = offset;
    req.max_nums = static_cast<std::int32_t>(std::min<std::int64_t>(kPullBatch, range.to - offset));
    req.sub_expression = sub_expression;
    Result<client::PullResult> r = s.run(s.puller().pull(req));
    if (!r.ok()) return std::move(r).error();
    const QueueOffset next = r->next_begin_offset;
    switch (r->status) {
      case client::PullStatus::FOUND:
        for (const MessageExt& m : r->messages) {
          if (m.queue_offset >= range.to) break;
          const std::string body = print_body ? std::string(m.body.begin(), m.body.end()) : "NOT PRINT BODY";
          std::printf("MSGID: %s %s BODY: %s\n", std::string(m.msg_id()).c_str(),
                      java_message_text(m, q.broker_name).c_str(), body.c_str());
        }
        break;
      case client::PullStatus::NO_MATCHED_MSG:
        std::printf("%s no matched msg. status=%s, offset=%lld\n", q.to_string().c_str(),
                    std::string(client::name(r->status)).c_str(), static_cast<long long>(next.value()));
        break;
      case client::PullStatus::NO_NEW_MSG:
      case client::PullStatus::OFFSET_ILLEGAL:
        std::printf("%s print msg finished. status=%s, offset=%lld\n", q.to_string().c_str(),
                    std::string(client::name(r->status)).c_str(), static_cast<long long>(next.value()));
        return {};
    }
    if (next <= offset) {
      return Error(Errc::corrupt, fmt::format("{}: the broker answered next offset {} to a pull from {}", q.to_string(),
                                              next.value(), offset.value()));
    }
    offset = next;
  }
  return {};
}

int run(const ParsedFlags& f, AdminSession& s) {
  const std::string topic = *f.get("topic");
  if (!is_utf8_name(f.get_or("charsetName", "UTF-8"))) {
    return usage_error(kName, fmt::format("-c {}: only UTF-8 is supported", *f.get("charsetName")));
  }
  Result<std::optional<bool>> print_body = f.bool_of("printBody");
  if (!print_body.ok()) return usage_error(kName, print_body.error().detail);
  std::optional<std::int64_t> begin_ms;
  std::optional<std::int64_t> end_ms;
  for (const auto& [flag, out] : {std::pair{"beginTimestamp", &begin_ms}, std::pair{"endTimestamp", &end_ms}}) {
    if (std::optional<std::string> text = f.get(flag)) {
      Result<std::int64_t> ms = cli::parse_time_arg(*text, s.rt().wall_ms());
      if (!ms.ok()) return usage_error(kName, fmt::format("--{}: {}", flag, ms.error().detail));
      *out = *ms;
    }
  }
  const std::string sub_expression = f.get_or("subExpression", "*");
  Status routed = s.run(s.instance().update_topic_route(topic));
  if (!routed.ok()) return fail(kName, routed.error());
  const std::vector<MessageQueue> queues = s.instance().subscribe_queues(topic);
  if (queues.empty()) return fail(kName, fmt::format("topic '{}' has no readable queue", topic));
  bool all_ok = true;
  for (const MessageQueue& q : queues) {
    Result<Range> range = queue_range(s, q, begin_ms, end_ms);
    if (!range.ok()) {
      all_ok = false;
      (void)fail(kName, range.error());
      continue;
    }
    std::printf("minOffset=%lld, maxOffset=%lld, %s\n", static_cast<long long>(range->from.value()),
                static_cast<long long>(range->to.value()), q.to_string().c_str());
    if (Status st = print_queue(s, q, *range, sub_expression, print_body->value_or(true)); !st.ok()) {
      all_ok = false;
      (void)fail(kName, st.error());
    }
    std::printf("--------------------------------------------------------\n");
  }
  return all_ok ? kExitOk : kExitFailed;
}

}  // namespace

Command print_msg_command() {
  return Command{"printMsg",
                 "print every message of a topic, optionally between two store times (RocketMQ's format)",
                 {
                     {'t', "topic", "TOPIC", "topic name", true},
                     {'c', "charsetName", "CHARSET", "the bodies' charset; only UTF-8 (the default)"},
                     {'s', "subExpression", "EXPR", "tag filter, e.g. 'TagA || TagB' (default *)"},
                     {'b', "beginTimestamp", "TIME",
                      "from the first message stored at or after this time: ms since the epoch, "
                      "yyyy-MM-dd#HH:mm:ss:SSS or ISO 8601 (default: each queue's min offset)"},
                     {'e', "endTimestamp", "TIME", "up to the first message stored at or after this time (default: "
                                                   "each queue's max offset)"},
                     {'d', "printBody", "BOOL", "print the bodies (default true)"},
                 },
                 run};
}

}  // namespace ferry::mqadmin
