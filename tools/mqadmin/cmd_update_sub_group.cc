// updateSubGroup: UPDATE_AND_CREATE_SUBSCRIPTIONGROUP (200) on one broker (-b) or every master of
// a cluster (-c). Unlike RocketMQ's command, which sends its defaults for every flag not given,
// this one starts from the group's current config on each broker
// (GET_ALL_SUBSCRIPTIONGROUP_CONFIG, 201; the defaults for a new group) and changes only the
// flags given. It then reads the config back and prints what each broker holds.
#include <fmt/format.h>

#include <cstdio>

#include "cli/table.h"
#include "common/names.h"
#include "remoting/body/body_json.h"
#include "remoting/body/subscription_group_config.h"
#include "remoting/body/versioned_table.h"
#include "remoting/request_code.h"
#include "cli/broker_calls.h"
#include "tools/mqadmin/command.h"

namespace ferry::mqadmin {

namespace {

namespace rc = remoting::request_code;
using remoting::body::SubscriptionGroupConfig;

// GET_ALL_SUBSCRIPTIONGROUP_CONFIG's reply body (RocketMQ's SubscriptionGroupWrapper).
constexpr remoting::body::VersionedTableKeys kWrapper{"SubscriptionGroupWrapper", "subscriptionGroupTable", "groupName"};

// The group's config as the broker at `addr` holds it, or nullopt when it has none.
Result<std::optional<SubscriptionGroupConfig>> fetch(AdminSession& s, const std::string& addr, const std::string& group) {
  Result<remoting::RemotingCommand> r = call_broker(s, addr, remoting::make_request(rc::GET_ALL_SUBSCRIPTIONGROUP_CONFIG, 0));
  if (!r.ok()) return std::move(r).error();
  remoting::body::NamedTable<SubscriptionGroupConfig> table;
  remoting::body::DataVersion version;
  const std::string text(r->body.begin(), r->body.end());
  Status d = remoting::body::decode_versioned_table(text, kWrapper, &SubscriptionGroupConfig::group_name, table, version);
  if (!d.ok()) return Error(Errc::corrupt, fmt::format("broker {}: subscription groups: {}", addr, d.error().detail));
  auto it = table.find(group);
  if (it == table.end()) return std::optional<SubscriptionGroupConfig>();
  return std::optional<SubscriptionGroupConfig>(it->second);
}

// Applies the flags that were given. Errors: usage (invalid_argument) naming the flag.
Status apply_flags(const ParsedFlags& f, SubscriptionGroupConfig& c) {
  struct BoolFlag {
    std::string_view name;
    bool SubscriptionGroupConfig::*field;
  };
  for (const BoolFlag& b : {BoolFlag{"consumeEnable", &SubscriptionGroupConfig::consume_enable},
                            BoolFlag{"consumeFromMinEnable", &SubscriptionGroupConfig::consume_from_min_enable},
                            BoolFlag{"consumeBroadcastEnable", &SubscriptionGroupConfig::consume_broadcast_enable},
                            BoolFlag{"notifyConsumerIdsChanged", &SubscriptionGroupConfig::notify_consumer_ids_changed_enable},
                            BoolFlag{"consumeMessageOrderly", &SubscriptionGroupConfig::consume_message_orderly}}) {
    Result<std::optional<bool>> v = f.bool_of(b.name);
    if (!v.ok()) return std::move(v).error();
    if (v->has_value()) c.*b.field = **v;
  }
  Result<std::int64_t> queues = f.int_in("retryQueueNums", 0, 1024, c.retry_queue_nums);
  Result<std::int64_t> times = f.int_in("retryMaxTimes", -1, 1'000'000, c.retry_max_times);
  Result<std::int64_t> id = f.int_in("brokerId", 0, 1'000'000, c.broker_id);
  Result<std::int64_t> slow = f.int_in("whichBrokerWhenConsumeSlowly", 0, 1'000'000, c.which_broker_when_consume_slowly);
  for (const auto* r : {&queues, &times, &id, &slow}) {
    if (!r->ok()) return r->error();
  }
  c.retry_queue_nums = static_cast<std::int32_t>(*queues);
  c.retry_max_times = static_cast<std::int32_t>(*times);
  c.broker_id = *id;
  c.which_broker_when_consume_slowly = *slow;
  return Status{};
}

std::string yes_no(bool b) { return b ? "true" : "false"; }

int run(const ParsedFlags& f, AdminSession& s) {
  constexpr std::string_view kName = "updateSubGroup";
  const std::string group = *f.get("groupName");
  if (Status v = validate_group(group); !v.ok()) return usage_error(kName, fmt::format("-g: {}", v.error().detail));
  {
    SubscriptionGroupConfig probe;  // flag values are checked before anything is sent
    if (Status a = apply_flags(f, probe); !a.ok()) return usage_error(kName, a.error().detail);
  }
  const std::optional<std::string> cluster = f.get("clusterName");
  const std::optional<std::string> broker_addr = f.get("brokerAddr");
  if (cluster.has_value() == broker_addr.has_value()) return usage_error(kName, "give exactly one of -c clusterName and -b brokerAddr");
  Result<std::vector<BrokerTarget>> brokers = resolve_brokers(s, cluster, broker_addr, true);
  if (!brokers.ok()) return fail(kName, brokers.error());

  cli::Table t({"#Broker", "Addr", "Group", "ConsumeEnable", "FromMin", "Broadcast", "RetryQueues", "RetryMaxTimes", "BrokerId",
           "SlowBrokerId", "NotifyIdsChanged", "Orderly"});
  for (const BrokerTarget& b : *brokers) {
    Result<std::optional<SubscriptionGroupConfig>> current = fetch(s, b.addr, group);
    if (!current.ok()) return fail(kName, current.error());
    SubscriptionGroupConfig c = current->value_or(SubscriptionGroupConfig{});
    c.group_name = group;
    if (Status a = apply_flags(f, c); !a.ok()) return usage_error(kName, a.error().detail);
    remoting::RemotingCommand req = remoting::make_request(rc::UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, 0);
    req.body = remoting::body::write_body([&c](remoting::json::Writer& w) { c.write(w); });
    Result<remoting::RemotingCommand> r = call_broker(s, b.addr, std::move(req));
    if (!r.ok()) return fail(kName, r.error());
    std::printf("%s subscription group %s on %s success.\n", current->has_value() ? "update" : "create", group.c_str(),
                describe(b).c_str());
    Result<std::optional<SubscriptionGroupConfig>> stored = fetch(s, b.addr, group);
    if (!stored.ok()) return fail(kName, stored.error());
    if (!stored->has_value()) return fail(kName, fmt::format("{} does not list group '{}' after the update", describe(b), group));
    const SubscriptionGroupConfig& g = **stored;
    t.add_row({b.broker_name, b.addr, g.group_name, yes_no(g.consume_enable), yes_no(g.consume_from_min_enable),
               yes_no(g.consume_broadcast_enable), std::to_string(g.retry_queue_nums), std::to_string(g.retry_max_times),
               std::to_string(g.broker_id), std::to_string(g.which_broker_when_consume_slowly),
               yes_no(g.notify_consumer_ids_changed_enable), yes_no(g.consume_message_orderly)});
  }
  std::printf("%s", t.render().c_str());
  return kExitOk;
}

}  // namespace

Command update_sub_group_command() {
  return Command{
      "updateSubGroup",
      "create or update a consumer group's settings on a broker or on every master of a cluster",
      {
          {'g', "groupName", "GROUP", "consumer group", true},
          {'b', "brokerAddr", "IP:PORT", "on this broker only"},
          {'c', "clusterName", "CLUSTER", "on every master of this cluster"},
          {'s', "consumeEnable", "BOOL", "the group may consume (pulls get NO_PERMISSION when false)"},
          {'m', "consumeFromMinEnable", "BOOL", "consumeFromMinEnable"},
          {'d', "consumeBroadcastEnable", "BOOL", "consumeBroadcastEnable"},
          {'q', "retryQueueNums", "N", "queues of %RETRY%group, 0..1024"},
          {'r', "retryMaxTimes", "N", "reconsumes before the DLQ (-1..)"},
          {'i', "brokerId", "ID", "brokerId to consume from"},
          {'w', "whichBrokerWhenConsumeSlowly", "ID", "brokerId to consume from when slow"},
          {'a', "notifyConsumerIdsChanged", "BOOL", "tell consumers when the group's members change"},
          {'o', "consumeMessageOrderly", "BOOL", "RocketMQ 5: the group consumes FIFO (POP in order through mqproxy)"},
      },
      run,
  };
}

}  // namespace ferry::mqadmin
