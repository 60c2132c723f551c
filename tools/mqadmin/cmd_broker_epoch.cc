// getBrokerEpoch -b BROKER_NAME | -c CLUSTER [-i SECONDS]: GET_BROKER_EPOCH_CACHE (1007) of every
// broker of the group or cluster (found through the NameServers), RocketMQ 5's output:
//
//   #clusterName	DefaultCluster
//   #brokerName	broker-a
//   #brokerAddr	127.0.0.1:10911
//   #brokerId	0
//   #Epoch: EpochEntry{epoch=1, startOffset=0, endOffset=4096}
//   #Epoch: EpochEntry{epoch=2, startOffset=4096, endOffset=8192}      (the last ends at the log's end)
//
// With -i the listing repeats every SECONDS until interrupted. A broker that does not answer (or is
// not in controller mode) is reported on stderr and makes the exit code 1.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include "remoting/body/controller_bodies.h"
#include "remoting/request_code.h"
#include "cli/broker_calls.h"
#include "tools/mqadmin/command.h"

namespace ferry::mqadmin {
namespace {

constexpr std::string_view kName = "getBrokerEpoch";

int print_once(const ParsedFlags& f, AdminSession& s) {
  Result<std::vector<BrokerTarget>> all = resolve_brokers(s, f.get("clusterName"), std::nullopt, false);
  if (!all.ok()) return fail(kName, all.error());
  int failures = 0;
  std::size_t shown = 0;
  for (const BrokerTarget& b : *all) {
    if (f.has("brokerName") && b.broker_name != *f.get("brokerName")) continue;
    ++shown;
    auto reply = call_broker(s, b.addr, remoting::make_request(remoting::request_code::GET_BROKER_EPOCH_CACHE, 0));
    if (!reply.ok()) {
      ++failures;
      (void)fail(kName, fmt::format("{}: {}", describe(b), reply.error().to_string()));
      continue;
    }
    auto cache = remoting::body::EpochEntryCache::decode(reply->body);
    if (!cache.ok()) {
      ++failures;
      (void)fail(kName, fmt::format("{}: {}", describe(b), cache.error().to_string()));
      continue;
    }
    std::printf("\n#clusterName\t%s\n#brokerName\t%s\n#brokerAddr\t%s\n#brokerId\t%lld", cache->cluster_name.c_str(),
                cache->broker_name.c_str(), b.addr.c_str(), static_cast<long long>(cache->broker_id));
    for (std::size_t i = 0; i < cache->epoch_list.size(); ++i) {
      const auto& e = cache->epoch_list[i];
      const std::int64_t end = i + 1 == cache->epoch_list.size() ? cache->max_offset : e.end_offset;
      std::printf("\n#Epoch: EpochEntry{epoch=%d, startOffset=%lld, endOffset=%lld}", e.epoch,
                  static_cast<long long>(e.start_offset), static_cast<long long>(end));
    }
    std::printf("\n");
  }
  if (shown == 0) return fail(kName, fmt::format("no broker named {}", f.get("brokerName").value_or("?")));
  return failures == 0 ? kExitOk : kExitFailed;
}

int run(const ParsedFlags& f, AdminSession& s) {
  if (!f.has("clusterName") && !f.has("brokerName")) return usage_error(kName, "give -b brokerName or -c clusterName");
  if (!f.has("interval")) return print_once(f, s);
  const std::string text = *f.get("interval");
  int seconds = 0;
  try {
    seconds = std::stoi(text);
  } catch (...) {
    seconds = 0;
  }
  if (seconds <= 0) return usage_error(kName, fmt::format("-i {}: a number of seconds above 0", text));
  for (;;) {
    (void)print_once(f, s);
    std::fflush(stdout);
    std::this_thread::sleep_for(std::chrono::seconds(seconds));
  }
}

}  // namespace

Command get_broker_epoch_command() {
  return Command{"getBrokerEpoch",
                 "each broker's epochs (controller mode): which master epoch wrote which range of its CommitLog",
                 {{'b', "brokerName", "NAME", "every broker of this group"},
                  {'c', "clusterName", "CLUSTER", "every broker of this cluster"},
                  {'i', "interval", "SECONDS", "repeat every SECONDS until interrupted"}},
                 run};
}

}  // namespace ferry::mqadmin
