// producerConnection: the online members of a producer group, from GET_PRODUCER_CONNECTION_LIST
// (204) on the masters of the topic's route (RocketMQ's ProducerConnectionSubCommand asks the
// same; producers heartbeat to the brokers of the topics they send to), merged by client id.
// Exit 1 with "the producer group[G] not exist" when no broker knows a member.
#include <fmt/format.h>

#include <cstdio>
#include <map>

#include "cli/table.h"
#include "cli/admin_calls.h"
#include "tools/mqadmin/command.h"

namespace ferry::mqadmin {

namespace {

int run(const ParsedFlags& f, AdminSession& s) {
  constexpr std::string_view kName = "producerConnection";
  const std::string group = *f.get("producerGroup");
  const std::string topic = *f.get("topic");
  Result<std::vector<BrokerTarget>> brokers = topic_masters(s, topic);
  if (!brokers.ok()) return fail(kName, brokers.error());
  std::map<std::string, remoting::body::Connection> members;
  for (const BrokerTarget& b : *brokers) {
    Result<std::optional<remoting::body::ProducerConnection>> p = producer_connection(s, b, group);
    if (!p.ok()) return fail(kName, p.error());
    if (!p->has_value()) continue;
    for (const auto& m : (*p)->connection_set) members.emplace(m.client_id, m);
  }
  if (members.empty()) return fail(kName, fmt::format("the producer group[{}] not exist", group));
  cli::Table t({"#No", "ClientId", "ClientAddr", "Language", "Version"});
  int i = 0;
  for (const auto& [id, m] : members) {
    t.add_row({fmt::format("#{:04}", ++i), m.client_id, m.client_addr, m.language, std::to_string(m.version)});
  }
  std::printf("%s", t.render().c_str());
  return kExitOk;
}

}  // namespace

Command producer_connection_command() {
  return Command{"producerConnection",
                 "show a producer group's online members (GET_PRODUCER_CONNECTION_LIST)",
                 {
                     {'g', "producerGroup", "GROUP", "producer group", true},
                     {'t', "topic", "TOPIC", "a topic the group sends to (its brokers are asked)", true},
                 },
                 run};
}

}  // namespace ferry::mqadmin
