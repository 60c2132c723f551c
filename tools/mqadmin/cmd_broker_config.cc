// updateBrokerConfig / getBrokerConfig: UPDATE_BROKER_CONFIG (25) / GET_BROKER_CONFIG (26) on one
// broker (-b) or every broker of a cluster (-c), as RocketMQ's UpdateBrokerConfigSubCommand and
// GetBrokerConfigCommand. Ferry's broker changes only the keys it can change while running and
// refuses others naming the key (broker/runtime_config.h); what it changes it also saves to the
// broker.conf it started from.
#include <fmt/format.h>

#include <cstdio>
#include <map>

#include "remoting/body/properties_text.h"
#include "remoting/request_code.h"
#include "cli/broker_calls.h"
#include "tools/mqadmin/command.h"

namespace ferry::mqadmin {

namespace {

namespace rc = remoting::request_code;

Result<std::vector<BrokerTarget>> targets(std::string_view name, const ParsedFlags& f, AdminSession& s, bool masters_only,
                                          int& usage) {
  const std::optional<std::string> cluster = f.get("clusterName");
  const std::optional<std::string> broker_addr = f.get("brokerAddr");
  if (cluster.has_value() == broker_addr.has_value()) {
    usage = usage_error(name, "give exactly one of -c clusterName and -b brokerAddr");
    return Error(Errc::invalid_argument, "usage");
  }
  return resolve_brokers(s, cluster, broker_addr, masters_only);
}

int run_update(const ParsedFlags& f, AdminSession& s) {
  constexpr std::string_view kName = "updateBrokerConfig";
  const std::string key = *f.get("key");
  const std::string value = *f.get("value");
  if (key.empty() || key.find_first_of("=\n") != std::string::npos) return usage_error(kName, "-k: not a property key");
  if (value.find('\n') != std::string::npos) return usage_error(kName, "-v: a value is one line");
  int usage = 0;
  Result<std::vector<BrokerTarget>> brokers = targets(kName, f, s, false, usage);
  if (usage != 0) return usage;
  if (!brokers.ok()) return fail(kName, brokers.error());
  for (const BrokerTarget& b : *brokers) {
    remoting::RemotingCommand req = remoting::make_request(rc::UPDATE_BROKER_CONFIG, 0);
    const std::string body = remoting::body::properties_text({{key, value}});
    req.body.assign(body.begin(), body.end());
    Result<remoting::RemotingCommand> r = call_broker(s, b.addr, std::move(req));
    if (!r.ok()) return fail(kName, r.error());
    std::printf("update broker config success, %s\n", b.addr.c_str());
  }
  return kExitOk;
}

int run_get(const ParsedFlags& f, AdminSession& s) {
  constexpr std::string_view kName = "getBrokerConfig";
  int usage = 0;
  Result<std::vector<BrokerTarget>> brokers = targets(kName, f, s, false, usage);
  if (usage != 0) return usage;
  if (!brokers.ok()) return fail(kName, brokers.error());
  for (const BrokerTarget& b : *brokers) {
    Result<remoting::RemotingCommand> r = call_broker(s, b.addr, remoting::make_request(rc::GET_BROKER_CONFIG, 0));
    if (!r.ok()) return fail(kName, r.error());
    auto settings = remoting::body::parse_properties_text(std::string(r->body.begin(), r->body.end()));
    if (!settings.ok()) return fail(kName, fmt::format("{}: {}", describe(b), settings.error().detail));
    std::printf("============%s============\n", b.addr.c_str());
    for (const auto& [k, v] : *settings) std::printf("%-50s=  %s\n", k.c_str(), v.c_str());
  }
  return kExitOk;
}

}  // namespace

Command update_broker_config_command() {
  return Command{"updateBrokerConfig",
                 "change a broker setting at run time and in its broker.conf (UPDATE_BROKER_CONFIG)",
                 {
                     {'k', "key", "KEY", "setting name, e.g. brokerPermission", true},
                     {'v', "value", "VALUE", "new value", true},
                     {'b', "brokerAddr", "IP:PORT", "on this broker only"},
                     {'c', "clusterName", "CLUSTER", "on every broker of this cluster"},
                 },
                 run_update};
}

Command get_broker_config_command() {
  return Command{"getBrokerConfig",
                 "show a broker's settings (GET_BROKER_CONFIG)",
                 {
                     {'b', "brokerAddr", "IP:PORT", "this broker only"},
                     {'c', "clusterName", "CLUSTER", "every broker of this cluster"},
                 },
                 run_get};
}

}  // namespace ferry::mqadmin
