// consumerStatus: each online client of a consumer group and its running state (RocketMQ's
// ConsumerStatusSubCommand): GET_CONSUMER_LIST_BY_GROUP (38) at a broker of the group's retry
// topic (every consumer of a clustering group subscribes it) for the client ids, then
// GET_CONSUMER_RUNNING_INFO (307) relayed by that broker to each client. RocketMQ writes each
// client's report to a file; this prints them (-i: only that client's).
#include <fmt/format.h>

#include <cstdio>
#include <map>

#include "cli/table.h"
#include "common/names.h"
#include "remoting/body/consumer_id_list.h"
#include "remoting/body/consumer_running_info.h"
#include "remoting/header/client_admin_header.h"
#include "remoting/header/client_header.h"
#include "remoting/request_code.h"
#include "remoting/response_code.h"
#include "cli/broker_calls.h"
#include "tools/mqadmin/command.h"
#include "tools/mqadmin/running_info_print.h"

namespace ferry::mqadmin {

namespace {

namespace rc = remoting::request_code;
namespace code = remoting::response_code;

int run(const ParsedFlags& f, AdminSession& s) {
  constexpr std::string_view kName = "consumerStatus";
  const std::string group = *f.get("group");
  const std::string topic = retry_topic(group);
  Status routed = s.run(s.instance().update_topic_route(topic));
  if (!routed.ok()) return fail(kName, fmt::format("group '{}' has no route (is it online?): {}", group, routed.error().to_string()));
  std::optional<std::string> addr;
  for (const MessageQueue& q : s.instance().subscribe_queues(topic)) {
    addr = s.instance().master_address(q.broker_name);
    if (addr) break;
  }
  if (!addr) return fail(kName, fmt::format("no master broker serves topic '{}'", topic));

  std::vector<std::string> clients;
  if (std::optional<std::string> one = f.get("clientId")) {
    clients.push_back(*one);
  } else {
    remoting::RemotingCommand req = remoting::make_request(rc::GET_CONSUMER_LIST_BY_GROUP, 0);
    req.ext_fields = remoting::GetConsumerListByGroupRequestHeader{group}.to_fields();
    Result<remoting::RemotingCommand> r = call_broker(s, *addr, std::move(req), {code::SUCCESS, code::SYSTEM_ERROR});
    if (!r.ok()) return fail(kName, r.error());
    if (r->code == code::SUCCESS) {
      Result<remoting::body::ConsumerIdList> list = remoting::body::ConsumerIdList::decode(r->body);
      if (!list.ok()) return fail(kName, fmt::format("broker {}: consumer id list: {}", *addr, list.error().detail));
      clients = list->consumer_id_list;
    }
    if (clients.empty()) return fail(kName, fmt::format("group '{}' has no consumer online", group));
  }

  std::map<std::string, remoting::body::ConsumerRunningInfo> infos;
  cli::Table index({"#Index", "#ClientId", "#Orderly", "#Queues"});
  int failures = 0;
  for (const std::string& id : clients) {
    remoting::RemotingCommand req = remoting::make_request(rc::GET_CONSUMER_RUNNING_INFO, 0);
    req.ext_fields = remoting::GetConsumerRunningInfoRequestHeader{group, id, false}.to_fields();
    Result<remoting::RemotingCommand> r = call_broker(s, *addr, std::move(req));
    if (!r.ok()) {
      std::fputs(fmt::format("mqadmin {}: client {}: {}\n", kName, id, r.error().to_string()).c_str(), stderr);
      ++failures;
      continue;
    }
    Result<remoting::body::ConsumerRunningInfo> info = remoting::body::ConsumerRunningInfo::decode(r->body);
    if (!info.ok()) {
      std::fputs(fmt::format("mqadmin {}: client {}: {}\n", kName, id, info.error().to_string()).c_str(), stderr);
      ++failures;
      continue;
    }
    index.add_row({std::to_string(index.rows() + 1), id, info->properties["PROP_CONSUMEORDERLY"],
                   std::to_string(info->mq_table.size())});
    infos.emplace(id, std::move(*info));
  }
  if (infos.empty()) return fail(kName, fmt::format("no client of group '{}' answered", group));
  std::printf("%s", index.render().c_str());
  for (const auto& [id, info] : infos) {
    std::printf("\n==== %s ====\n%s", id.c_str(), format_running_info(info).c_str());
  }
  if (infos.size() > 1) {
    std::printf("\n%s\n", same_subscriptions(infos) ? "Same subscription in the same group of consumer"
                                                    : "WARN: Different subscription in the same group of consumer!!!");
  }
  return failures == 0 ? kExitOk : kExitFailed;
}

}  // namespace

Command consumer_status_command() {
  return Command{"consumerStatus",
                 "show each online client of a consumer group: subscriptions, queues, offsets, rates",
                 {
                     {'g', "group", "GROUP", "consumer group", true},
                     {'i', "clientId", "CLIENT_ID", "only this client"},
                 },
                 run};
}

}  // namespace ferry::mqadmin
