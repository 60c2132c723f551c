// wipeWritePerm / addWritePerm: WIPE_WRITE_PERM_OF_BROKER (205) / ADD_WRITE_PERM_OF_BROKER (327)
// on every NameServer of -n, in order (NameServers share nothing), as RocketMQ's
// WipeWritePermSubCommand / AddWritePermSubCommand. Producers stop (start) sending to the broker
// once their routes refresh; the broker's next registration with a changed topic config undoes
// it. Prints, per NameServer, RocketMQ's line with the count of topics changed.
#include <fmt/format.h>

#include <cstdio>

#include "remoting/header/write_perm_header.h"
#include "remoting/request_code.h"
#include "cli/broker_calls.h"
#include "tools/mqadmin/command.h"

namespace ferry::mqadmin {

namespace {

namespace rc = remoting::request_code;

int run_with(std::string_view name, bool wipe, const ParsedFlags& f, AdminSession& s) {
  const std::string broker = *f.get("brokerName");
  if (broker.empty()) return usage_error(name, "-b: an empty broker name");
  int failed = 0;
  for (const std::string& ns : s.namesrv_addrs()) {
    remoting::RemotingCommand req =
        remoting::make_request(wipe ? rc::WIPE_WRITE_PERM_OF_BROKER : rc::ADD_WRITE_PERM_OF_BROKER, 0);
    req.ext_fields = remoting::WritePermOfBrokerRequestHeader{broker}.to_fields();
    Result<remoting::RemotingCommand> r = call_broker(s, ns, std::move(req));
    std::optional<std::int32_t> count;
    if (r.ok()) {
      if (wipe) {
        auto h = remoting::WipeWritePermOfBrokerResponseHeader::from_fields(r->ext_fields);
        if (h.ok()) count = h->wipe_topic_count;
      } else {
        auto h = remoting::AddWritePermOfBrokerResponseHeader::from_fields(r->ext_fields);
        if (h.ok()) count = h->add_topic_count;
      }
    }
    if (count) {
      std::printf("%s write perm of broker[%s] in name server[%s] OK, %d\n", wipe ? "wipe" : "add", broker.c_str(),
                  ns.c_str(), *count);
    } else {
      ++failed;
      const std::string why = r.ok() ? "the reply has no topic count" : r.error().to_string();
      std::printf("%s write perm of broker[%s] in name server[%s] Failed\n", wipe ? "wipe" : "add", broker.c_str(), ns.c_str());
      std::fputs(fmt::format("mqadmin {}: name server {}: {}\n", name, ns, why).c_str(), stderr);
    }
  }
  return failed == 0 ? kExitOk : kExitFailed;
}

int run_wipe(const ParsedFlags& f, AdminSession& s) { return run_with("wipeWritePerm", true, f, s); }
int run_add(const ParsedFlags& f, AdminSession& s) { return run_with("addWritePerm", false, f, s); }

}  // namespace

Command wipe_write_perm_command() {
  return Command{"wipeWritePerm", "take write permission from a broker on every NameServer (WIPE_WRITE_PERM_OF_BROKER)",
                 {{'b', "brokerName", "NAME", "broker name", true}}, run_wipe};
}

Command add_write_perm_command() {
  return Command{"addWritePerm", "give a broker write permission back on every NameServer (ADD_WRITE_PERM_OF_BROKER)",
                 {{'b', "brokerName", "NAME", "broker name", true}}, run_add};
}

}  // namespace ferry::mqadmin
