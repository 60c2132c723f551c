// haStatus: GET_BROKER_HA_STATUS (907) of one broker (-b) or of every broker of a cluster (-c):
// RocketMQ 5's `mqadmin haStatus`, with the slaves' side and the lag in seconds added. One row
// per broker (each cell one word, for scripts): its role, CommitLog max offset, and
//   a master: "slaves:N,inSync:M" — slaves connected and how many of them are in sync;
//   a slave:  "linked:MASTER_HA_ADDR" or "unlinked:…", the bytes it lacks (its master's max offset minus its own; the master of its group
//             is asked too, found through the NameServers) and how long ago the oldest of them
//             was stored (the master's figure for this slave's link), and whether it is linked.
// Then, per master with slaves, RocketMQ's connection table (#SlaveAddr #SlaveAckOffset #Diff
// #Status #TransferFromWhere) with the lag in seconds, and the master's dropped-link counters.
// A broker that does not answer is reported on stderr and makes the exit code 1.
#include <fmt/format.h>

#include <cstdio>
#include <map>

#include "cli/table.h"
#include "cli/broker_calls.h"
#include "tools/mqadmin/command.h"

namespace ferry::mqadmin {

namespace {

constexpr std::string_view kName = "haStatus";
using remoting::body::HaConnectionRuntimeInfo;
using remoting::body::HaRuntimeInfo;

std::string seconds_text(std::int64_t ms) { return fmt::format("{:.1f}", static_cast<double>(ms) / 1000.0); }

// The master's entry for the slave whose end of the link is `local`, if it is connected.
const HaConnectionRuntimeInfo* link_of(const HaRuntimeInfo* master, const std::string& local) {
  if (master == nullptr || local.empty()) return nullptr;
  for (const HaConnectionRuntimeInfo& c : master->ha_connection_info) {
    if (c.addr == local) return &c;
  }
  return nullptr;
}

int run(const ParsedFlags& f, AdminSession& s) {
  if (!f.has("clusterName") && !f.has("brokerAddr")) return usage_error(kName, "give -b brokerAddr or -c clusterName");
  Result<std::vector<BrokerTarget>> brokers = resolve_brokers(s, f.get("clusterName"), f.get("brokerAddr"), false);
  if (!brokers.ok()) {
    if (brokers.error().code == Errc::invalid_argument) return usage_error(kName, brokers.error().detail);
    return fail(kName, brokers.error());
  }
  // The masters of the groups shown, for a slave's lag (-b on a slave asks its master too).
  std::map<std::string, std::string> master_of;  // broker name -> master address
  if (Result<std::vector<BrokerTarget>> masters = resolve_brokers(s, std::nullopt, std::nullopt, true); masters.ok()) {
    for (const BrokerTarget& m : *masters) master_of[m.broker_name] = m.addr;
  }
  int failures = 0;
  std::map<std::string, Result<HaRuntimeInfo>> status;  // by address
  auto status_of = [&](const std::string& addr) -> const Result<HaRuntimeInfo>& {
    auto it = status.find(addr);
    if (it == status.end()) it = status.emplace(addr, s.run(s.admin().ha_status(addr))).first;
    return it->second;
  };
  cli::Table t({"#Broker", "#Id", "#Addr", "#Role", "#CommitLogMaxOffset", "#LagBytes", "#LagSeconds", "#Replication"});
  std::string details;
  for (const BrokerTarget& b : *brokers) {
    const Result<HaRuntimeInfo>& r = status_of(b.addr);
    if (!r.ok()) {
      ++failures;
      (void)fail(kName, fmt::format("{}: {}", describe(b), r.error().to_string()));
      continue;
    }
    if (r->master) {
      t.add_row({b.broker_name, std::to_string(b.broker_id), b.addr, r->broker_role,
                 std::to_string(r->master_commit_log_max_offset.value()), "-", "-",
                 fmt::format("slaves:{},inSync:{}", r->ha_connection_info.size(), r->in_sync_slave_nums)});
      if (r->ha_connection_info.empty() && r->links_dropped == 0) continue;
      cli::Table c({"#SlaveAddr", "#SlaveAckOffset", "#Diff", "#DiffSeconds", "#Status", "#TransferFromWhere"});
      for (const HaConnectionRuntimeInfo& link : r->ha_connection_info) {
        c.add_row({link.addr, std::to_string(link.slave_ack_offset.value()), std::to_string(link.diff_bytes),
                   seconds_text(link.diff_ms), link.in_sync ? "OK" : "Fall Behind",
                   std::to_string(link.transfer_from_where.value())});
      }
      details += fmt::format("\n#MasterAddr {} ({}), #MasterCommitLogMaxOffset {}, #SlaveNum {}, #InSyncSlaveNum {}\n",
                             b.addr, b.broker_name, r->master_commit_log_max_offset.value(),
                             r->ha_connection_info.size(), r->in_sync_slave_nums);
      if (c.rows() > 0) details += c.render();
      details += fmt::format("links dropped: {} (log diverged: {}){}\n", r->links_dropped, r->diverged_links,
                             r->last_drop.empty() ? "" : "; last: " + r->last_drop);
      continue;
    }
    const remoting::body::HaClientRuntimeInfo& me = r->ha_client_runtime_info;
    std::string lag_bytes = "-";
    std::string lag_seconds = "-";
    auto m = master_of.find(b.broker_name);
    if (m != master_of.end() && m->second != b.addr) {
      const Result<HaRuntimeInfo>& mr = status_of(m->second);
      if (mr.ok() && mr->master) {
        lag_bytes = std::to_string(std::max<std::int64_t>(0, mr->master_commit_log_max_offset - me.max_offset));
        if (const HaConnectionRuntimeInfo* link = link_of(&*mr, me.connected ? me.local_addr : "")) {
          lag_seconds = seconds_text(link->diff_ms);
        }
      }
    }
    std::string state;
    if (me.connected) {
      state = fmt::format("linked:{}", me.master_addr);
    } else {
      state = me.master_addr.empty() ? "unlinked:no-master-known" : fmt::format("unlinked:{}", me.master_addr);
      if (!me.last_drop.empty()) {
        details += fmt::format("\n{} is not linked to its master; the last link ended: {}\n", describe(b), me.last_drop);
      }
    }
    t.add_row({b.broker_name, std::to_string(b.broker_id), b.addr, r->broker_role.empty() ? "SLAVE" : r->broker_role,
               std::to_string(me.max_offset.value()), lag_bytes, lag_seconds, state});
  }
  if (t.rows() > 0) {
    std::printf("%s", t.render().c_str());
    std::printf("\nLagBytes: the master's CommitLog max offset minus the slave's; LagSeconds: how long ago the oldest "
                "message the slave lacks was stored (\"-\": the master or the slave's link is not there).\n");
    if (!details.empty()) std::printf("%s", details.c_str());
  }
  return failures == 0 ? kExitOk : kExitFailed;
}

}  // namespace

Command ha_status_command() {
  return Command{"haStatus",
                 "show replication: each master's slaves and their acked offsets, each slave's lag in bytes and seconds",
                 {
                     {'b', "brokerAddr", "IP:PORT", "this broker (a slave's master is asked too)"},
                     {'c', "clusterName", "CLUSTER", "every master and slave of this cluster"},
                 },
                 run};
}

}  // namespace ferry::mqadmin
