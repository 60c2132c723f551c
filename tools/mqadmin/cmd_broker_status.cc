// brokerStatus: GET_BROKER_RUNTIME_INFO (28) of one broker (-b), the brokers of a cluster (-c) or
// every broker the NameServers know, as one table row per broker; -v adds every key the broker
// reported (RocketMQ's brokerStatus output). A broker that does not answer is reported on stderr
// and makes the exit code 1; the others are still shown.
#include <fmt/format.h>

#include <cstdio>

#include "cli/table.h"
#include "remoting/body/kv_table.h"
#include "remoting/request_code.h"
#include "cli/broker_calls.h"
#include "tools/mqadmin/command.h"

namespace ferry::mqadmin {

namespace {

namespace rc = remoting::request_code;

std::string value_or_dash(const remoting::body::KvTable& kv, const std::string& key) {
  std::optional<std::string> v = kv.get(key);
  return v && !v->empty() ? *v : "-";
}

// The first of "T10 T60 T600".
std::string first_word(const std::string& text) { return text.substr(0, text.find(' ')); }

// "0.4213" → "42.1%"
std::string percent_text(const std::string& ratio) {
  try {
    const double r = std::stod(ratio);
    if (r < 0) return "-";
    return fmt::format("{:.1f}%", r * 100.0);
  } catch (const std::exception&) {
    return "-";
  }
}

// bootTimestamp (ms) and "now" → "2d03:04:05" / "03:04:05". Uses the broker's own "runtime" text
// when the numbers are missing.
std::string uptime_text(const remoting::body::KvTable& kv) {
  std::optional<std::string> text = kv.get("runtime");  // "[ 0 days, 1 hours, 2 minutes, 3 seconds ]"
  if (!text) return "-";
  long long d = 0, h = 0, m = 0, s = 0;
  if (std::sscanf(text->c_str(), "[ %lld days, %lld hours, %lld minutes, %lld seconds ]", &d, &h, &m, &s) != 4) return *text;
  if (d > 0) return fmt::format("{}d{:02}:{:02}:{:02}", d, h, m, s);
  return fmt::format("{:02}:{:02}:{:02}", h, m, s);
}

// The replication summary of GET_BROKER_RUNTIME_INFO's HA keys (runtime_info_processor.h), one
// word: "slaves:1,inSync:1,diff:0" on a master (diff: bytes the most advanced slave lacks),
// "linked:ip:port" / "unlinked:ip:port" on a slave, "-" when the broker reports none.
std::string ha_text(const remoting::body::KvTable& kv) {
  if (std::optional<std::string> slaves = kv.get("slaveNum")) {
    std::string text = fmt::format("slaves:{},inSync:{}", *slaves, value_or_dash(kv, "inSyncSlaveNums"));
    if (std::optional<std::string> diff = kv.get("diff")) text += fmt::format(",diff:{}", *diff);
    return text;
  }
  if (std::optional<std::string> linked = kv.get("haConnected")) {
    return fmt::format("{}:{}", *linked == "true" ? "linked" : "unlinked", value_or_dash(kv, "masterAddr"));
  }
  return "-";
}

int run(const ParsedFlags& f, AdminSession& s) {
  constexpr std::string_view kName = "brokerStatus";
  Result<std::vector<BrokerTarget>> brokers = resolve_brokers(s, f.get("clusterName"), f.get("brokerAddr"), false);
  if (!brokers.ok()) {
    if (brokers.error().code == Errc::invalid_argument) return usage_error(kName, brokers.error().detail);
    return fail(kName, brokers.error());
  }
  cli::Table t({"#Broker", "Id", "Addr", "PutTPS", "GetTPS", "MsgPut", "MsgGet", "DiskUsed", "CommitLogMin", "CommitLogMax",
           "Flush", "Role", "HA", "Uptime"});
  std::string verbose;
  std::string refusals;
  int failures = 0;
  for (const BrokerTarget& b : *brokers) {
    Result<remoting::RemotingCommand> r = call_broker(s, b.addr, remoting::make_request(rc::GET_BROKER_RUNTIME_INFO, 0));
    Result<remoting::body::KvTable> kv = r.ok() ? remoting::body::KvTable::decode(r->body) : Result<remoting::body::KvTable>(r.error());
    if (!kv.ok()) {
      ++failures;
      (void)fail(kName, fmt::format("{}: {}", describe(b), kv.error().to_string()));
      continue;
    }
    t.add_row({b.broker_name, std::to_string(b.broker_id), b.addr, first_word(value_or_dash(*kv, "putTps")),
               first_word(value_or_dash(*kv, "getTransferedTps")), value_or_dash(*kv, "msgPutTotal"),
               value_or_dash(*kv, "msgGetTotal"), percent_text(value_or_dash(*kv, "commitLogDiskRatio")),
               value_or_dash(*kv, "commitLogMinOffset"), value_or_dash(*kv, "commitLogMaxOffset"),
               value_or_dash(*kv, "flushDiskType"), value_or_dash(*kv, "brokerRole"), ha_text(*kv), uptime_text(*kv)});
    if (value_or_dash(*kv, "storeWritable") == "false") {
      refusals += fmt::format("{} REFUSES WRITES: {}\n", describe(b), value_or_dash(*kv, "storeWriteRefusal"));
    }
    if (f.has("verbose")) {
      verbose += fmt::format("\n{} (cluster {}, id {}):\n", describe(b), b.cluster, b.broker_id);
      for (const auto& [key, value] : kv->table) verbose += fmt::format("  {:<28}: {}\n", key, value);
    }
  }
  if (t.rows() > 0) {
    std::printf("%s", t.render().c_str());
    std::printf("\nPutTPS / GetTPS: messages per second over the last 10 s; MsgPut / MsgGet: since the broker started; "
                "HA: a master's connected slaves (diff: bytes the most advanced one lacks), a slave's link "
                "(mqadmin haStatus has the details).\n");
    if (!refusals.empty()) std::printf("\n%s", refusals.c_str());
    if (!verbose.empty()) std::printf("%s", verbose.c_str());
  }
  return failures == 0 ? kExitOk : kExitFailed;
}

}  // namespace

Command broker_status_command() {
  return Command{"brokerStatus",
                 "show brokers' runtime status: put/get TPS, message totals, disk use, CommitLog offsets, flush mode, role, "
                 "replication, uptime",
                 {
                     {'b', "brokerAddr", "IP:PORT", "only this broker"},
                     {'c', "clusterName", "CLUSTER", "only the brokers of this cluster (default: every broker)"},
                     {'v', "verbose", "", "also print every key each broker reported (putTps is 10 s / 60 s / 600 s)"},
                 },
                 run};
}

}  // namespace ferry::mqadmin
