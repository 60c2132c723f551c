// What an operator does to a running cluster, as fault actions: promote_slave (the operator's
// promotion of a slave, mqadmin promoteSlave) and update_topic (a topic's queue count changed,
// mqadmin updateTopic).
#include <fmt/format.h>

#include "broker/ha_role.h"
#include "sim/node.h"
#include "sim/scenario/fault_registry.h"
#include "sim/scenario/scenario_names.h"

namespace ferry::sim::scenario {

namespace {

bool is_slave(const Scenario& s, const std::string& node) {
  for (const cluster::BrokerGroupSpec& g : s.cluster.brokers) {
    for (std::size_t k = 1; k <= g.slaves; ++k) {
      if (node == fmt::format("{}-s{}", g.name, k)) return true;
    }
  }
  return false;
}

bool is_master(const Scenario& s, const std::string& node) {
  for (const cluster::BrokerGroupSpec& g : s.cluster.brokers) {
    if (node == g.name) return true;
  }
  return false;
}

std::vector<std::string_view> master_role_choices() {
  std::vector<std::string_view> out;
  for (const auto& [name, role] : master_role_names()) out.push_back(name);
  return out;
}

Task<void> promote_task(broker::Broker* b, broker::BrokerRole role, Runtime* rt) {
  Status s = co_await b->promote(role);
  if (!s.ok()) {
    rt->log().error("scenario: promote_slave to {} failed: {}", broker::role_name(role), s.error().to_string());
  } else {
    rt->log().info("scenario: promoted to {}", broker::role_name(role));
  }
}

Status promote(FaultContext& ctx, NodeId n, const FaultEntry& f) {
  cluster::Cluster& c = ctx.cluster();
  std::optional<std::size_t> index;
  for (std::size_t i = 0; i < c.broker_count(); ++i) {
    if (c.broker_node(i) == n) index = i;
  }
  const std::string& name = c.name_of(n);
  if (!index) return Error(Errc::invalid_argument, fmt::format("promote_slave: {} is not a broker", name));
  broker::Broker* b = c.broker(*index);
  if (b == nullptr || b->state() != broker::Broker::State::running) {
    return Error(Errc::invalid_argument, fmt::format("promote_slave: broker {} is not running", name));
  }
  if (b->config().broker_role != broker::BrokerRole::slave) {
    return Error(Errc::invalid_argument,
                 fmt::format("promote_slave: broker {} is not a slave (already promoted?)", name));
  }
  broker::BrokerRole role = c.spec().brokers.at(c.broker_group(*index)).role;
  for (const auto& [text, r] : master_role_names()) {
    if (text == f.param<std::string>("role")) role = r;
  }
  // The operator's procedure (docs/operations.md): the old master is gone for good; the liveness
  // phase's heal must not start it again as a second master of the group.
  c.retire(c.broker_node(c.broker_group(*index)));
  SimNode& node = c.world().node(n);
  node.spawn(promote_task(b, role, &node), "scenario-promote");
  return {};
}

}  // namespace

FaultActionSpec promote_slave_fault() {
  FaultActionSpec a;
  a.name = "promote_slave";
  a.story =
      "the operator promotes the target slave to master (`role`); the group's old master is retired: the liveness "
      "phase does not start it again";
  a.keys = {{.name = "role",
             .default_value = std::string(),
             .story = "the role the slave takes (unset: its group's configured master role)",
             .choices = master_role_choices()}};
  a.event = EventKind::promote;
  a.validate = [](const FaultCheck& c) {
    for (const std::string& t : c.entry.targets) {
      if (c.nodes.count(t) > 0 && !is_slave(c.scenario, t)) {
        c.reader.fail("target", fmt::format("\"{}\" is not a slave (slaves are named like broker-a-s1)", t));
      }
    }
  };
  a.apply = [](FaultContext& ctx, const FaultEntry& f) {
    return ctx.each_target(f, [&](NodeId n) { return promote(ctx, n, f); });
  };
  a.real_apply = [](RealFaults& real, const FaultEntry& f) {
    return each_real_target(f, [&](const std::string& n) { return real.promote_slave(n, f.param<std::string>("role")); });
  };
  return a;
}

FaultActionSpec update_topic_fault() {
  FaultActionSpec a;
  a.name = "update_topic";
  a.story = "the operator changes `topic`'s queue count to `queues` on the target masters (UPDATE_AND_CREATE_TOPIC)";
  a.keys = {
      {.name = "topic", .default_value = std::string(), .story = "a topic of the scenario", .names_topic = true},
      {.name = "queues",
       .default_value = std::int64_t{0},
       .story = "the new queue count (queues = 8)",
       .min = 1,
       .max = kQueuesMax,
       .required = true},
  };
  a.validate = [](const FaultCheck& c) {
    for (const std::string& t : c.entry.targets) {
      if (c.nodes.count(t) > 0 && !is_master(c.scenario, t)) {
        c.reader.fail("target", fmt::format("\"{}\" is not a broker group's master (named like broker-a)", t));
      }
    }
  };
  a.apply = [](FaultContext& ctx, const FaultEntry& f) {
    cluster::Cluster& c = ctx.cluster();
    return ctx.each_target(f, [&](NodeId n) {
      auto index = c.broker_index(c.name_of(n));
      if (!index || *index >= c.spec().brokers.size()) {
        return Status(Error(Errc::invalid_argument,
                            fmt::format("update_topic: {} is not a broker group's master", c.name_of(n))));
      }
      return c.update_topic(*index, f.param<std::string>("topic"),
                            static_cast<std::int32_t>(f.param<std::int64_t>("queues")));
    });
  };
  a.real_apply = [](RealFaults& real, const FaultEntry& f) {
    return each_real_target(f, [&](const std::string& n) {
      return real.update_topic(n, f.param<std::string>("topic"), static_cast<std::int32_t>(f.param<std::int64_t>("queues")));
    });
  };
  return a;
}

}  // namespace ferry::sim::scenario
