// queryMsgById: VIEW_MESSAGE_BY_ID at the broker the offset msgId names (its store host).
#include <cstdio>

#include "tools/mqadmin/command.h"
#include "tools/mqadmin/message_print.h"

namespace ferry::mqadmin {

namespace {

int run(const ParsedFlags& f, AdminSession& s) {
  Result<MessageExt> m = s.run(s.admin().view_message(*f.get("msgId")));
  if (!m.ok()) return fail("queryMsgById", m.error());
  std::printf("%s", message_detail(*m).c_str());
  return kExitOk;
}

}  // namespace

Command query_msg_by_id_command() {
  return Command{"queryMsgById", "show a message by its offset msgId (the broker's id, as sendMessage prints it)",
                 {{'i', "msgId", "OFFSET_MSG_ID", "offset msgId (32 hex digits for IPv4)", true}}, run};
}

}  // namespace ferry::mqadmin
