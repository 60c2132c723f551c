// queryMsgByKey: QUERY_MESSAGE by key on every broker of the topic.
#include <cstdio>

#include "tools/mqadmin/command.h"
#include "tools/mqadmin/message_print.h"

namespace ferry::mqadmin {

namespace {

int run(const ParsedFlags& f, AdminSession& s) {
  constexpr std::string_view kName = "queryMsgByKey";
  Result<std::int64_t> max = f.int_in("maxNum", 1, 64 * 1024, 64);
  if (!max.ok()) return usage_error(kName, max.error().detail);
  Result<std::vector<MessageExt>> msgs =
      s.run(s.admin().query_message(*f.get("topic"), *f.get("key"), static_cast<std::int32_t>(*max), 0, INT64_MAX));
  if (!msgs.ok()) return fail(kName, msgs.error());
  cli::Table t({"#MsgId", "OffsetMsgId", "Queue", "Offset", "Tags", "StoreTime", "Body"});
  for (const MessageExt& m : *msgs) {
    t.add_row({std::string(m.msg_id()), m.offset_msg_id, std::to_string(m.queue_id.value()),
               std::to_string(m.queue_offset.value()), std::string(m.tags().value_or("")), format_time_ms(m.store_timestamp_ms),
               body_preview(m, 60)});
  }
  std::printf("%s", t.render().c_str());
  return kExitOk;
}

}  // namespace

Command query_msg_by_key_command() {
  return Command{"queryMsgByKey",
                 "find messages of a topic by a key (KEYS property)",
                 {
                     {'t', "topic", "TOPIC", "topic name", true},
                     {'k', "key", "KEY", "message key", true},
                     {'m', "maxNum", "N", "at most this many messages (default 64)"},
                 },
                 run};
}

}  // namespace ferry::mqadmin
