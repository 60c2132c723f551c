#include "sim/scenario/checker_catalog.h"

#include "runtime/assert.h"

namespace ferry::sim::scenario {

namespace {

using std::chrono::seconds;
constexpr std::int64_t kHourMs = 3'600'000;
constexpr std::int64_t kCountMax = 1'000'000'000;

std::vector<CheckerInfo> make_catalog() {
  return {
      {"failover",
       "a group's master dies under load: how long until sends succeed on the other groups, until consumers read "
       "from the slave, and until the group takes writes after the operator's promotion",
       {
           {"group", std::string(), "the broker group whose master is killed (required)", 0, 0, true},
           {"sends_resume_within", Duration{}, "bound on the time until sends succeed again; 0s: measured only", 0,
            kHourMs},
           {"consume_from_slave_within", Duration{},
            "bound on the time until consumers read the group's messages from its slave; 0s: measured only", 0, kHourMs},
           {"writes_after_promotion_within", Duration{},
            "bound on the time from the promotion until the group takes writes; 0s: measured only", 0, kHourMs},
       }},
      {"route_staleness",
       "a broker goes silent (or a topic's queues change): when the NameServers drop it and when every client's "
       "route follows",
       {
           {"broker", std::string(), "the broker group that goes silent (required)", 0, 0, true},
           {"namesrv_drop_within", Duration(seconds(130)),
            "from its last registration until every NameServer dropped it (120 s expiry + one 10 s scan)", 0, kHourMs},
           {"client_route_within", Duration(seconds(30)),
            "from the NameServers' change until every client's route shows it (one poll)", 0, kHourMs},
       }},
      {"latency_backoff",
       "with sendLatencyFaultEnable, a slow broker is avoided for the windows RocketMQ's latency table gives",
       {
           {"broker", std::string(), "the slow broker group (required)", 0, 0, true},
           {"slack", Duration(seconds(1)), "tolerance on each avoidance window's edges", 0, kHourMs},
       }},
      {"offset_persistence",
       "after a consumer or broker crash, redeliveries stay within what was consumed in the last persist interval",
       {
           {"persist_interval", Duration(seconds(5)),
            "the consumers' persistConsumerOffsetInterval (the broker's flushConsumerOffsetInterval is the same 5 s)", 1,
            kHourMs},
           {"slack", Duration(seconds(1)), "tolerance on each window's edge (a pull or commit in flight)", 0, kHourMs},
       }},
      {"send_outcomes",
       "what the producers were told, counted: ok, not durable, failed, unknown, slow acknowledgements; with a group, "
       "how soon it takes writes again after its fault ends",
       {
           {"failed_max", std::int64_t{-1}, "sends that may end failed (after the client's retries); -1: counted only", -1,
            kCountMax},
           {"unknown_max", std::int64_t{-1}, "sends that may end unknown (a timeout or a broken connection); -1: counted only",
            -1, kCountMax},
           {"not_durable_min", std::int64_t{0}, "sends that must be answered stored-but-not-durable (FLUSH_DISK_TIMEOUT)", 0,
            kCountMax},
           {"slow", Duration(seconds(1)), "an acknowledged send slower than this (call to answer) is slow", 1, kHourMs},
           {"slow_ok_min", std::int64_t{0}, "acknowledged sends that must be slow", 0, kCountMax},
           {"group", std::string(), "a broker group whose fault window is measured (\"\": none)", 0, 0, true, true},
           {"writes_resume_within", Duration{},
            "bound on the time from the end of the group's fault to its first acknowledged send; 0s: measured only", 0,
            kHourMs},
       }},
  };
}

}  // namespace

const std::vector<CheckerInfo>& checker_catalog() {
  static const std::vector<CheckerInfo> catalog = make_catalog();
  return catalog;
}

const CheckerInfo* find_checker(std::string_view name) {
  for (const CheckerInfo& c : checker_catalog()) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

template <typename T>
const T& check_option(const NamedCheck& check, std::string_view name) {
  auto it = check.options.find(std::string(name));
  FERRY_ASSERT(it != check.options.end(), "check {} has no option {}", check.name, name);
  const T* v = std::get_if<T>(&it->second);
  FERRY_ASSERT(v != nullptr, "check {} option {} has another type (index {})", check.name, name, it->second.index());
  return *v;
}

template const bool& check_option<bool>(const NamedCheck&, std::string_view);
template const std::int64_t& check_option<std::int64_t>(const NamedCheck&, std::string_view);
template const Duration& check_option<Duration>(const NamedCheck&, std::string_view);
template const std::string& check_option<std::string>(const NamedCheck&, std::string_view);

}  // namespace ferry::sim::scenario
