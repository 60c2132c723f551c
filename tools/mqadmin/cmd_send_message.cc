// sendMessage: sends -c messages with a Producer (retries on another broker, like any client) and
// prints where each one was stored. "{i}" in the body becomes the message's index (0, 1, ...).
#include <fmt/format.h>

#include <cstdio>

#include "cli/table.h"
#include "client/producer.h"
#include "tools/mqadmin/command.h"

namespace ferry::mqadmin {

namespace {

std::string body_of(const std::string& templ, std::int64_t i) {
  std::string out = templ;
  for (std::size_t p = out.find("{i}"); p != std::string::npos; p = out.find("{i}", p)) {
    const std::string n = std::to_string(i);
    out.replace(p, 3, n);
    p += n.size();
  }
  return out;
}

Error with_index(std::int64_t i, Error e) {
  e.detail = fmt::format("message {}: {}", i, e.detail);
  return e;
}

int run(const ParsedFlags& f, AdminSession& s) {
  constexpr std::string_view kName = "sendMessage";
  Result<std::int64_t> count = f.int_in("count", 1, 100000, 1);
  if (!count.ok()) return usage_error(kName, count.error().detail);
  client::ProducerConfig cfg;
  cfg.group = f.get_or("producerGroup", "mqadmin-producer");
  client::Producer producer(s.instance(), cfg);
  if (Status st = producer.start(); !st.ok()) return usage_error(kName, st.error().to_string());
  cli::Table t({"#MsgId", "OffsetMsgId", "Broker", "Queue", "Offset", "Status"});
  int exit_code = kExitOk;
  for (std::int64_t i = 0; i < *count; ++i) {
    Message m;
    m.topic = *f.get("topic");
    const std::string body = body_of(*f.get("body"), i);
    m.body.assign(body.begin(), body.end());
    if (auto tags = f.get("tags")) m.set_tags(*tags);
    if (auto keys = f.get("keys")) m.set_keys(std::string_view(*keys));
    Result<client::SendResult> r = s.run(producer.send(std::move(m)));
    if (!r.ok()) {
      exit_code = fail(kName, with_index(i, r.error()));
      break;
    }
    t.add_row({r->msg_id, r->offset_msg_id, r->queue.broker_name, std::to_string(r->queue.queue_id.value()),
               std::to_string(r->queue_offset.value()), std::string(client::name(r->status))});
  }
  s.run(producer.shutdown());
  if (t.rows() > 0) std::printf("%s", t.render().c_str());
  return exit_code;
}

}  // namespace

Command send_message_command() {
  return Command{"sendMessage",
                 "send messages to a topic and print where each was stored",
                 {
                     {'t', "topic", "TOPIC", "topic name", true},
                     {'p', "body", "BODY", "message body; {i} is replaced by the message index", true},
                     {'g', "tags", "TAG", "message tag"},
                     {'k', "keys", "KEYS", "message keys, space-separated"},
                     {'c', "count", "N", "how many messages (default 1)"},
                     {'P', "producerGroup", "GROUP", "producer group (default mqadmin-producer)"},
                 },
                 run};
}

}  // namespace ferry::mqadmin
