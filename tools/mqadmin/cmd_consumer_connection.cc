// consumerConnection: the online members of a consumer group and what they subscribe, from
// GET_CONSUMER_CONNECTION_LIST (203), as RocketMQ's ConsumerConnectionSubCommand. It asks the
// masters of the group's retry topic's route (every clustering consumer has one), or -b one
// broker; members are merged across brokers by client id. Output, as RocketMQ's:
//   #000001  clientId  clientAddr  language  version   (a table here)
//   Below is subscription:
//   #000001  Topic: T  SubExpression: *
//   ConsumeType / MessageModel / ConsumeFromWhere
// Exit 1 with "the consumer group[G] not online" when no broker has a member online.
#include <fmt/format.h>

#include <cstdio>
#include <map>

#include "cli/table.h"
#include "common/names.h"
#include "cli/admin_calls.h"
#include "tools/mqadmin/command.h"

namespace ferry::mqadmin {

namespace {

namespace body = remoting::body;

int run(const ParsedFlags& f, AdminSession& s) {
  constexpr std::string_view kName = "consumerConnection";
  const std::string group = *f.get("consumerGroup");
  const std::optional<std::string> broker_addr = f.get("brokerAddr");
  Result<std::vector<BrokerTarget>> brokers = broker_addr ? resolve_brokers(s, std::nullopt, broker_addr, false)
                                                          : topic_masters(s, fmt::format("{}{}", kRetryTopicPrefix, group));
  if (!brokers.ok() && !broker_addr) brokers = resolve_brokers(s, std::nullopt, std::nullopt, true);
  if (!brokers.ok()) return fail(kName, brokers.error());
  std::optional<body::ConsumerConnection> merged;
  std::map<std::string, body::Connection> members;
  for (const BrokerTarget& b : *brokers) {
    Result<std::optional<body::ConsumerConnection>> c = consumer_connection(s, b, group);
    if (!c.ok()) return fail(kName, c.error());
    if (!c->has_value()) continue;
    for (const body::Connection& m : (*c)->connection_set) members.emplace(m.client_id, m);
    if (!merged) merged = std::move(**c);
  }
  if (!merged) return fail(kName, fmt::format("the consumer group[{}] not online", group));
  cli::Table t({"#No", "ClientId", "ClientAddr", "Language", "Version"});
  int i = 0;
  for (const auto& [id, m] : members) {
    t.add_row({fmt::format("#{:06}", ++i), m.client_id, m.client_addr, m.language, std::to_string(m.version)});
  }
  std::printf("%s\nBelow is subscription:\n", t.render().c_str());
  i = 0;
  for (const auto& [topic, sub] : merged->subscription_table) {
    std::printf("#%06d  Topic: %-48s SubExpression: %s\n", ++i, topic.c_str(), sub.sub_string.c_str());
  }
  std::printf("\nConsumeType: %s\nMessageModel: %s\nConsumeFromWhere: %s\n",
              std::string(body::name(merged->consume_type)).c_str(), std::string(body::name(merged->message_model)).c_str(),
              std::string(body::name(merged->consume_from_where)).c_str());
  return kExitOk;
}

}  // namespace

Command consumer_connection_command() {
  return Command{"consumerConnection",
                 "show a consumer group's online members and subscriptions (GET_CONSUMER_CONNECTION_LIST)",
                 {
                     {'g', "consumerGroup", "GROUP", "consumer group", true},
                     {'b', "brokerAddr", "IP:PORT", "ask this broker only"},
                 },
                 run};
}

}  // namespace ferry::mqadmin
