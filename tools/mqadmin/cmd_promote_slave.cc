// promoteSlave: FERRY_PROMOTE_SLAVE (10001, Ferry's own request) to a running SLAVE (-b): it
// stops replicating, keeps what it received, becomes its group's master (brokerId 0) in the role
// of -r (ASYNC_MASTER unless told) and registers so with the NameServers at once. RocketMQ 4.9 has
// no such command (its operators edit brokerId/brokerRole and restart). The broker keeps the role
// in {storePathRootDir}/config/ha_role.json, which wins over broker.conf at its next start.
#include <fmt/format.h>

#include <cstdio>

#include "tools/mqadmin/command.h"

namespace ferry::mqadmin {

namespace {

constexpr std::string_view kName = "promoteSlave";

int run(const ParsedFlags& f, AdminSession& s) {
  const std::string addr = *f.get("brokerAddr");
  const std::string role = f.get("brokerRole").value_or("ASYNC_MASTER");
  if (role != "ASYNC_MASTER" && role != "SYNC_MASTER") {
    return usage_error(kName, fmt::format("-r \"{}\": promote to SYNC_MASTER or ASYNC_MASTER", role));
  }
  Status st = s.run(s.admin().promote_slave(addr, role));
  if (!st.ok()) return fail(kName, st.error());
  std::printf("broker %s promoted to %s (brokerId 0); it registers as its group's master now.\n", addr.c_str(),
              role.c_str());
  std::printf("The role is kept in {storePathRootDir}/config/ha_role.json and wins over broker.conf at restart: set "
              "brokerId=0 and brokerRole=%s in its broker.conf, then delete that file.\n",
              role.c_str());
  return kExitOk;
}

}  // namespace

Command promote_slave_command() {
  return Command{"promoteSlave",
                 "make a running slave the master of its group (brokerId 0), e.g. after its master is lost",
                 {
                     {'b', "brokerAddr", "IP:PORT", "the slave to promote", true},
                     {'r', "brokerRole", "ROLE", "SYNC_MASTER or ASYNC_MASTER (default ASYNC_MASTER)"},
                 },
                 run};
}

}  // namespace ferry::mqadmin
