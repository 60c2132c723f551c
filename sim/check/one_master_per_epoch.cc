#include "sim/check/one_master_per_epoch.h"

#include <fmt/format.h>

#include <map>
#include <set>

namespace ferry::sim::check {

namespace {

// Who acknowledged in one (group, epoch): the first broker seen, when, and how many messages each
// acknowledged (the highest count its records showed).
struct Acks {
  std::string first;
  MonoTime first_at{};
  std::map<std::string, std::int64_t> by_broker;
};

}  // namespace

Verdict check_one_master_per_epoch(const History& h) {
  Verdict v;
  v.name = "one-master-per-epoch";
  std::map<std::pair<std::string, std::int32_t>, std::string> named;  // (group, epoch) -> master a controller showed
  for (const ControllerViewRecord& r : h.controller_views) {
    if (!r.master.empty()) named.try_emplace({r.group, r.master_epoch}, r.master);
  }
  std::map<std::pair<std::string, std::int32_t>, Acks> acks;
  for (const BrokerEpochRecord& b : h.broker_epochs) {
    for (const auto& [epoch, count] : b.acked) {
      if (epoch == 0 || count <= 0) continue;
      Acks& a = acks[{b.group, epoch}];
      if (a.first.empty()) {
        a.first = b.broker;
        a.first_at = b.at;
      }
      auto [mine, fresh] = a.by_broker.try_emplace(b.broker, count);
      mine->second = std::max(mine->second, count);
      if (fresh && a.by_broker.size() == 2) {
        v.violation(fmt::format("two brokers of {} acknowledged writes in masterEpoch {}: {} (seen at {} ms) and {} ({} "
                                "messages by {} ms)",
                                b.group, epoch, a.first, ms_of(a.first_at), b.broker, count, ms_of(b.at)),
                    b.at);
      }
    }
  }
  std::int64_t total = 0, unseen = 0;
  for (const auto& [key, a] : acks) {
    for (const auto& [broker, count] : a.by_broker) total += count;
    auto n = named.find(key);
    if (n == named.end()) {
      ++unseen;
      continue;
    }
    if (a.by_broker.count(n->second) == a.by_broker.size()) continue;
    for (const auto& [broker, count] : a.by_broker) {
      if (broker == n->second) continue;
      v.violation(fmt::format("{} acknowledged {} messages in masterEpoch {} of {}, whose master the controllers named {}", broker,
                              count, key.second, key.first, n->second),
                  a.first_at);
    }
  }
  v.figures["epochs_with_acks"] = static_cast<std::int64_t>(acks.size());
  v.figures["acks"] = total;
  v.figures["unseen_epochs"] = unseen;
  v.passed = v.violations == 0;
  return v;
}

CheckerSpec one_master_per_epoch_checker() {
  return CheckerSpec{"one-master-per-epoch",
                     "controller mode: in each group and masterEpoch only one broker acknowledges writes, the master the "
                     "controllers named",
                     true,
                     {},
                     Record::broker_epochs | Record::controller_views,
                     [](const History& h, const OptionValues&) { return check_one_master_per_epoch(h); }};
}

}  // namespace ferry::sim::check
