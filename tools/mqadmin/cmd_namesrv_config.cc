// updateNamesrvConfig / getNamesrvConfig: UPDATE_NAMESRV_CONFIG (318) / GET_NAMESRV_CONFIG (319)
// on every NameServer of -n, in order, as RocketMQ's UpdateNamesrvConfigCommand and
// GetNamesrvConfigCommand. Ferry's NameServer changes only orderMessageEnable at run time and
// refuses other keys naming them; it saves a change into the file it started from (-c).
#include <fmt/format.h>

#include <cstdio>

#include "remoting/body/properties_text.h"
#include "remoting/request_code.h"
#include "cli/broker_calls.h"
#include "tools/mqadmin/command.h"

namespace ferry::mqadmin {

namespace {

namespace rc = remoting::request_code;

int run_update(const ParsedFlags& f, AdminSession& s) {
  constexpr std::string_view kName = "updateNamesrvConfig";
  const std::string key = *f.get("key");
  const std::string value = *f.get("value");
  if (key.empty() || key.find_first_of("=\n") != std::string::npos) return usage_error(kName, "-k: not a property key");
  if (value.find('\n') != std::string::npos) return usage_error(kName, "-v: a value is one line");
  for (const std::string& ns : s.namesrv_addrs()) {
    remoting::RemotingCommand req = remoting::make_request(rc::UPDATE_NAMESRV_CONFIG, 0);
    const std::string body = remoting::body::properties_text({{key, value}});
    req.body.assign(body.begin(), body.end());
    Result<remoting::RemotingCommand> r = call_broker(s, ns, std::move(req));
    if (!r.ok()) return fail(kName, r.error());
    std::printf("update name server config success!%s\n", ns.c_str());
  }
  return kExitOk;
}

int run_get(const ParsedFlags&, AdminSession& s) {
  constexpr std::string_view kName = "getNamesrvConfig";
  for (const std::string& ns : s.namesrv_addrs()) {
    Result<remoting::RemotingCommand> r = call_broker(s, ns, remoting::make_request(rc::GET_NAMESRV_CONFIG, 0));
    if (!r.ok()) return fail(kName, r.error());
    auto settings = remoting::body::parse_properties_text(std::string(r->body.begin(), r->body.end()));
    if (!settings.ok()) return fail(kName, fmt::format("name server {}: {}", ns, settings.error().detail));
    std::printf("============%s============\n", ns.c_str());
    for (const auto& [k, v] : *settings) std::printf("%-50s=  %s\n", k.c_str(), v.c_str());
  }
  return kExitOk;
}

}  // namespace

Command update_namesrv_config_command() {
  return Command{"updateNamesrvConfig",
                 "change a NameServer setting at run time on every NameServer of -n (UPDATE_NAMESRV_CONFIG)",
                 {
                     {'k', "key", "KEY", "setting name (orderMessageEnable)", true},
                     {'v', "value", "VALUE", "new value", true},
                 },
                 run_update};
}

Command get_namesrv_config_command() {
  return Command{"getNamesrvConfig", "show every NameServer's settings (GET_NAMESRV_CONFIG)", {}, run_get};
}

}  // namespace ferry::mqadmin
