// cleanExpiredCQ: CLEAN_EXPIRED_CONSUMEQUEUE (306) on one broker (-b), every broker of a cluster
// (-c), or every broker the NameServers know (neither), slaves included, as RocketMQ's
// CleanExpiredCQSubCommand. Each broker destroys its ConsumeQueues whose messages its CommitLog no
// longer holds (src/broker/store_admin_processor.h). Prints a line per broker and then "success"
// when every broker answered SUCCESS; otherwise "false" and exit 1 (RocketMQ prints the last
// broker's result only, without a newline).
#include <fmt/format.h>

#include <cstdio>

#include "remoting/request_code.h"
#include "cli/broker_calls.h"
#include "tools/mqadmin/command.h"

namespace ferry::mqadmin {

namespace {

int run(const ParsedFlags& f, AdminSession& s) {
  constexpr std::string_view kName = "cleanExpiredCQ";
  const std::optional<std::string> cluster = f.get("cluster");
  const std::optional<std::string> broker_addr = f.get("brokerAddr");
  if (cluster && broker_addr) return usage_error(kName, "give at most one of -c cluster and -b brokerAddr");
  Result<std::vector<BrokerTarget>> brokers = resolve_brokers(s, cluster, broker_addr, /*masters_only=*/false);
  if (!brokers.ok()) return fail(kName, brokers.error());
  bool all_ok = true;
  for (const BrokerTarget& b : *brokers) {
    Result<remoting::RemotingCommand> r =
        call_broker(s, b.addr, remoting::make_request(remoting::request_code::CLEAN_EXPIRED_CONSUMEQUEUE, 0));
    if (!r.ok()) {
      all_ok = false;
      (void)fail(kName, r.error());
      continue;
    }
    std::printf("clean expired ConsumeQueue on %s: success\n", describe(b).c_str());
  }
  std::printf("%s\n", all_ok ? "success" : "false");
  return all_ok ? kExitOk : kExitFailed;
}

}  // namespace

Command clean_expired_cq_command() {
  return Command{"cleanExpiredCQ",
                 "destroy the ConsumeQueues whose messages the CommitLog no longer holds, on one broker, a "
                 "cluster, or every broker",
                 {
                     {'b', "brokerAddr", "IP:PORT", "on this broker only"},
                     {'c', "cluster", "CLUSTER", "on every broker of this cluster (default: every broker)"},
                 },
                 run};
}

}  // namespace ferry::mqadmin
