// gen_run: a whole simulated run drawn by RapidCheck (sim/property/property.h). Every choice is a
// shrinkable pick, so a failing run shrinks towards one group without a slave, one topic with one
// queue, few messages, consumers that start at once and stay, and fewer, earlier, shorter faults.
#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/pop_receipt.h"
#include "sim/check/registry.h"
#include "sim/property/property.h"
#include "sim/scenario/fault_registry.h"

namespace ferry::sim::property {

namespace {

using scenario::ConsumeMode;
using scenario::ConsumerKind;
using scenario::ConsumerScenario;
using scenario::FaultEntry;
using scenario::ProducerScenario;
using scenario::Scenario;

// Bounds of a generated run: small enough that a case runs in about a second.
constexpr int kTopicsMax = 2;
constexpr int kQueuesMax = 8;
constexpr int kProducersMax = 3;
constexpr int kGroupsPerTopicMax = 2;
constexpr int kMembersMax = 3;
constexpr int kMessagesMin = 10;
constexpr int kMessagesMax = 120;
constexpr int kKeysMax = 4;  // keys drawn from a small set, so that they collide

Duration ms(std::int64_t n) { return std::chrono::milliseconds(n); }

// One fault as drawn: plain numbers, mapped onto the run's nodes afterwards (fault_entry), so
// that shrinking a field (an earlier time, the first node, a shorter duration) keeps it valid.
struct FaultDraw {
  std::size_t kind = 0;  // index into the shape's fault kinds
  std::int64_t at_ms = 0;
  std::size_t target = 0;  // index into the nodes the kind may hit
  std::size_t peer = 0;    // index into the other nodes
  std::int64_t duration_ms = 0;
  std::int64_t amount = 0;  // latency (ms) or skew (s, signed)
};

rc::Gen<FaultDraw> gen_fault_draw(std::size_t kinds, Duration length) {
  const std::int64_t last_ms = std::max<std::int64_t>(2'000, to_ms(length) - 2'000);
  return rc::gen::exec([=] {
    FaultDraw d;
    d.kind = *rc::gen::inRange<std::size_t>(0, kinds);
    d.at_ms = *rc::gen::inRange<std::int64_t>(1'000, last_ms);
    d.target = *rc::gen::inRange<std::size_t>(0, 64);
    d.peer = *rc::gen::inRange<std::size_t>(0, 64);
    d.duration_ms = *rc::gen::inRange<std::int64_t>(500, 20'000);
    d.amount = *rc::gen::inRange<std::int64_t>(-120, 121);
    return d;
  });
}

// The nodes of a run, by what a fault may do to them.
struct Nodes {
  std::vector<std::string> all;
  std::vector<std::string> brokers;
  std::vector<std::string> durable;  // NameServers and SYNC_FLUSH brokers: a power loss keeps what was acknowledged
  // Controller mode: "master:<group>" of each such group (a crash of it is a failover; crashes
  // only, never one side of a link: it may name the node of the other side).
  std::vector<std::string> masters;
  // Consumers that join late or leave: when they are in the cluster (a fault may only hit a node
  // that is there; the runner refuses others).
  std::map<std::string, std::pair<Duration, std::optional<Duration>>> lifetimes;
  // Broadcast consumers may be killed at any time: one writes a queue's start offset to its local
  // file before it takes the queue (client/push_rebalance.cc), so a restart resumes there rather
  // than at the queue's end (RocketMQ's first writes the file 10 s after start).

  // Those of `from` that are in the cluster for all of [at, at + lasting].
  std::vector<std::string> present(const std::vector<std::string>& from, Duration at, Duration lasting) const {
    std::vector<std::string> out;
    for (const std::string& n : from) {
      auto it = lifetimes.find(n);
      if (it != lifetimes.end() && (at < it->second.first || (it->second.second && at + lasting >= *it->second.second))) continue;
      out.push_back(n);
    }
    return out;
  }
};

Nodes nodes_of(const Scenario& s) {
  Nodes n;
  n.all = s.node_names();
  for (const ConsumerScenario& c : s.consumers) {
    n.lifetimes[c.node] = {c.start_at, c.stop_at};
  }
  for (std::size_t i = 0; i < s.cluster.namesrvs; ++i) n.durable.push_back(fmt::format("namesrv-{}", i));
  // Controllers sync their Raft log before they answer.
  for (std::size_t i = 0; i < s.cluster.controllers; ++i) n.durable.push_back(fmt::format("controller-{}", i));
  for (const cluster::BrokerGroupSpec& g : s.cluster.brokers) {
    const bool sync = g.flush == store::FlushMode::sync_flush;
    const bool slave_sync = g.slave_flush.value_or(g.flush) == store::FlushMode::sync_flush;
    n.brokers.push_back(g.name);
    if (sync) n.durable.push_back(g.name);
    if (g.controller_mode) n.masters.push_back("master:" + g.name);
    for (std::size_t k = 1; k <= g.slaves; ++k) {
      const std::string slave = fmt::format("{}-s{}", g.name, k);
      n.brokers.push_back(slave);
      if (slave_sync) n.durable.push_back(slave);
    }
  }
  return n;
}

const std::string& pick(const std::vector<std::string>& from, std::size_t index) { return from[index % from.size()]; }

FaultEntry fault_entry(const FaultDraw& d, FaultKind kind, const Nodes& nodes, bool broker_crashes) {
  static constexpr const char* kActions[] = {"kill", "power_off", "partition", "clog", "slow_disk", "skew_clock", "pause"};
  static_assert(std::size(kActions) == static_cast<std::size_t>(FaultKind::pause) + 1, "an action for every FaultKind");
  FaultEntry f = scenario::make_fault(kActions[static_cast<std::size_t>(kind)], ms(d.at_ms));
  f.duration = ms(d.duration_ms);
  // NameServers, brokers and producers are there for the whole run; consumers only while present.
  const Duration lasting = ms(d.duration_ms) + std::chrono::seconds(1);
  const bool crash = kind == FaultKind::kill || kind == FaultKind::power_off;
  std::vector<std::string> candidates = nodes.present(kind == FaultKind::power_off ? nodes.durable
                                                      : kind == FaultKind::slow_disk ? nodes.brokers
                                                                                     : nodes.all,
                                                      f.at, lasting);
  if (crash && broker_crashes) {
    candidates.insert(candidates.end(), nodes.masters.begin(), nodes.masters.end());  // failovers (SYNC_FLUSH groups)
  }
  if (crash && !broker_crashes) {
    std::erase_if(candidates, [&](const std::string& n) { return std::find(nodes.brokers.begin(), nodes.brokers.end(), n) != nodes.brokers.end(); });
  }
  const std::string& target = pick(candidates, d.target);
  f.targets = {target};
  std::vector<std::string> others;
  for (const std::string& n : nodes.present(nodes.all, f.at, lasting)) {
    if (n != target) others.push_back(n);
  }
  switch (kind) {
    case FaultKind::kill:
    case FaultKind::power_off:
      break;
    case FaultKind::partition:
      f.peers = {pick(others, d.peer)};
      break;
    case FaultKind::clog:
      f.peers = {pick(others, d.peer)};
      f.params["latency"] = ms(50 + std::abs(d.amount) * 15);  // 50 ms .. 1.85 s
      break;
    case FaultKind::slow_disk:
      f.params["latency"] = ms(5 + std::abs(d.amount) * 4);  // 5 .. 485 ms a sync
      break;
    case FaultKind::skew_clock:
      f.duration.reset();  // a property of the machine from then on
      f.params["skew"] = ms(d.amount * 1'000);
      break;
    case FaultKind::pause:
      f.duration = ms(std::min<std::int64_t>(d.duration_ms, 10'000));
      break;
  }
  return f;
}

cluster::BrokerGroupSpec gen_group(const Shape& shape, std::size_t index) {
  cluster::BrokerGroupSpec g;
  g.name = fmt::format("broker-{}", static_cast<char>('a' + index));
  if (shape.transactions) {
    // Checks every 5 s so a run resolves its unknown transactions, and 60 of them (5 min) before a
    // half message is discarded: a producer can stay away from its broker for two minutes after
    // the last fault (the NameServer registration, the route poll and the heartbeat each wait up to
    // 30 s), and RocketMQ counts a check toward transactionCheckMax even with no producer online.
    // With 15 the broker discarded a committed transaction as designed and the property blamed it.
    g.config.transaction_check_interval = std::chrono::seconds(5);
    g.config.transaction_check_max = 60;
  }
  g.slaves = shape.slaves ? *rc::gen::inRange<std::size_t>(0, 2) : 0;
  g.flush = shape.sync_only || *rc::gen::arbitrary<bool>() ? store::FlushMode::sync_flush : store::FlushMode::async_flush;
  if (g.slaves > 0) {
    g.role = shape.sync_only || *rc::gen::arbitrary<bool>() ? broker::BrokerRole::sync_master : broker::BrokerRole::async_master;
  }
  // A quarter of the groups with slaves run in controller mode (RocketMQ 5): the controllers elect
  // a master when it dies. What SEND_OK promises is kept strict: SYNC_FLUSH, every member of the
  // SyncStateSet holds an acknowledged message.
  if (shape.controller_groups && g.slaves > 0 && *rc::gen::inRange(0, 4) == 0) {
    g.controller_mode = true;
    g.slaves = 2;
    g.flush = store::FlushMode::sync_flush;
    g.role = broker::BrokerRole::sync_master;
    g.config.ha.all_ack_in_sync_state_set = true;
  }
  return g;
}

cluster::TopicSpec gen_topic(const Shape& shape, std::size_t index) {
  cluster::TopicSpec t;
  t.name = fmt::format("Topic{}", index);
  t.queues = *rc::gen::inRange(1, kQueuesMax + 1);
  switch (shape.topics) {
    case TopicOrder::ordered: t.ordered = true; break;
    case TopicOrder::unordered: t.ordered = false; break;
    case TopicOrder::any: t.ordered = *rc::gen::arbitrary<bool>(); break;
  }
  return t;
}

ProducerScenario gen_producer(const Shape& shape, const Scenario& s, std::size_t index) {
  ProducerScenario p;
  p.node = fmt::format("producer-{}", index);
  const cluster::TopicSpec& topic = s.cluster.topics[*rc::gen::inRange<std::size_t>(0, s.cluster.topics.size())];
  p.spec.topic = topic.name;
  p.spec.ordered = topic.ordered;
  p.spec.messages = static_cast<std::uint64_t>(*rc::gen::inRange(kMessagesMin, kMessagesMax + 1));
  p.spec.interval = ms(*rc::gen::inRange(50, 301));
  p.spec.keys.clear();
  const int keys = *rc::gen::inRange(1, kKeysMax + 1);
  for (int k = 0; k < keys; ++k) p.spec.keys.push_back(fmt::format("key-{}", k));
  if (shape.transactions && !topic.ordered) {
    cluster::ProducerSpec::Transactions tx;
    tx.rollback_percent = *rc::gen::inRange(0, 51);
    tx.unknown_percent = *rc::gen::inRange(0, 51);
    tx.local_time = ms(*rc::gen::inRange(0, 1'001));
    p.spec.transactions = tx;
  }
  if (shape.timers && !topic.ordered && !p.spec.transactions) {
    cluster::ProducerSpec::Timers timers;
    timers.min = ms(*rc::gen::inRange<std::int64_t>(1'000, 5'001));
    timers.max = timers.min + ms(*rc::gen::inRange<std::int64_t>(0, 15'001));
    p.spec.timers = timers;
  }
  return p;
}

// The members of one consumer group of `topic`.
void gen_group_members(const Shape& shape, const std::string& topic, std::size_t group_index, Scenario& s) {
  const std::vector<Flavor> flavors(shape.consumers.begin(), shape.consumers.end());
  const Flavor flavor = flavors[*rc::gen::inRange<std::size_t>(0, flavors.size())];
  const std::string group = fmt::format("{}-{}-readers", flavor_name(flavor), group_index);
  const int members = *rc::gen::inRange(1, kMembersMax + 1);
  const std::int64_t length_ms = to_ms(shape.length);
  for (int m = 0; m < members; ++m) {
    ConsumerScenario c;
    c.node = fmt::format("consumer-{}", s.consumers.size());
    c.spec.group = group;
    c.spec.topic = topic;
    const bool pop_kind = flavor == Flavor::pop || flavor == Flavor::pop_fifo;
    c.kind = flavor == Flavor::lite_pull ? ConsumerKind::lite_pull : pop_kind ? ConsumerKind::pop : ConsumerKind::push;
    if (pop_kind) {
      cluster::ConsumerSpec::Pop pop;
      // FIFO: a queue waits out the invisible time of each message left, so a failing consumer
      // holds all of its queue's messages up; 1-3 s and at least 90 % keep a queue of 360 messages
      // within the liveness bound (about 0.1 x 360 waits of up to 3 s).
      const bool fifo = flavor == Flavor::pop_fifo;
      pop.invisible_time = ms(*rc::gen::inRange<std::int64_t>(1'000, fifo ? 3'001 : 10'001));
      pop.batch = *rc::gen::inRange(1, kPopBatchMax + 1);
      // At least 70 %: sixteen unacknowledged deliveries in a row (the DLQ) stay out of reach.
      pop.ack_percent = *rc::gen::inRange(fifo ? 90 : 70, 101);
      c.spec.pop = pop;
    }
    // An orderly POP consumer is a FIFO one (the runner sets ConsumerSpec::Pop::fifo).
    c.mode = flavor == Flavor::orderly || flavor == Flavor::pop_fifo ? ConsumeMode::orderly : ConsumeMode::concurrently;
    if (flavor == Flavor::broadcast) {
      c.spec.config.message_model = client::MessageModel::BROADCASTING;
    } else {
      // Clustering: a group's first start reads every queue from its beginning, so everything
      // acknowledged before it joined is its to consume too.
      c.spec.config.consume_from_where = client::ConsumeFromWhere::CONSUME_FROM_FIRST_OFFSET;
    }
    // The first member starts at once and stays; the others may join late and may leave.
    if (m > 0 && shape.joins_and_leaves) {
      if (*rc::gen::arbitrary<bool>()) c.start_at = ms(*rc::gen::inRange<std::int64_t>(1'000, length_ms / 2 + 1'001));
      if (*rc::gen::arbitrary<bool>()) {
        c.stop_at = c.start_at + ms(*rc::gen::inRange<std::int64_t>(5'000, length_ms / 2 + 5'001));
      }
    }
    s.consumers.push_back(std::move(c));
  }
}

}  // namespace

const char* flavor_name(Flavor f) {
  switch (f) {
    case Flavor::concurrent: return "concurrent";
    case Flavor::orderly: return "orderly";
    case Flavor::broadcast: return "broadcast";
    case Flavor::lite_pull: return "lite-pull";
    case Flavor::pop: return "pop";
    case Flavor::pop_fifo: return "pop-fifo";
  }
  return "?";
}

const char* fault_kind_name(FaultKind k) {
  switch (k) {
    case FaultKind::kill: return "kill";
    case FaultKind::power_off: return "power_off";
    case FaultKind::partition: return "partition";
    case FaultKind::clog: return "clog";
    case FaultKind::slow_disk: return "slow_disk";
    case FaultKind::skew_clock: return "skew_clock";
    case FaultKind::pause: return "pause";
  }
  return "?";
}

rc::Gen<GeneratedRun> gen_run(const Shape& shape) {
  RC_ASSERT(shape.groups_max >= 1);
  RC_ASSERT(!shape.consumers.empty());
  return rc::gen::exec([shape] {
    GeneratedRun run;
    Scenario& s = run.scenario;
    s.name = "generated";
    s.story = "a run generated by a property test (sim/property/property.h)";
    s.cluster.namesrvs = *rc::gen::inRange<std::size_t>(1, 3);
    s.cluster.brokers.clear();
    const std::size_t groups = *rc::gen::inRange<std::size_t>(1, shape.groups_max + 1);
    for (std::size_t i = 0; i < groups; ++i) s.cluster.brokers.push_back(gen_group(shape, i));
    for (const cluster::BrokerGroupSpec& g : s.cluster.brokers) {
      if (g.controller_mode) s.cluster.controllers = 3;
    }
    const std::size_t topics = *rc::gen::inRange<std::size_t>(1, kTopicsMax + 1);
    for (std::size_t i = 0; i < topics; ++i) s.cluster.topics.push_back(gen_topic(shape, i));
    const std::size_t producers = *rc::gen::inRange<std::size_t>(1, kProducersMax + 1);
    for (std::size_t i = 0; i < producers; ++i) s.producers.push_back(gen_producer(shape, s, i));
    std::size_t group_index = 0;
    for (const cluster::TopicSpec& t : s.cluster.topics) {
      const int groups_here = *rc::gen::inRange(1, kGroupsPerTopicMax + 1);
      for (int g = 0; g < groups_here; ++g) gen_group_members(shape, t.name, group_index++, s);
    }
    // Faults: drawn as numbers, then put on this run's nodes.
    const std::vector<FaultKind> kinds(shape.faults.begin(), shape.faults.end());
    if (!kinds.empty() && shape.faults_max > 0) {
      // 0 .. faults_max of them (a failure shrinks by dropping faults), each drawn over its whole
      // ranges: RapidCheck's numbers otherwise grow with the test's size, and every early fault
      // would be a kill at one second.
      const rc::Gen<FaultDraw> draw = rc::gen::resize(100, gen_fault_draw(kinds.size(), shape.length));
      const auto draws = *rc::gen::resize(static_cast<int>(shape.faults_max), rc::gen::container<std::vector<FaultDraw>>(draw));
      const Nodes nodes = nodes_of(s);
      for (const FaultDraw& d : draws) {
        const FaultKind kind = kinds[d.kind % kinds.size()];
        s.faults.push_back(fault_entry(d, kind, nodes, shape.broker_crashes));
      }
    }
    s.run.length = shape.length;
    s.run.swarm = shape.swarm;
    s.liveness.bound = std::chrono::minutes(3);
    // Nothing generated loses an acknowledged message by design (property.h): judged strictly.
    s.checks.lost = scenario::LostMode::strict;
    if (shape.timers) {
      const check::CheckerSpec* spec = check::checkers().find("timer_delivery");
      RC_ASSERT(spec != nullptr);
      scenario::NamedCheck named;
      named.name = spec->name;
      for (const OptionSpec& o : spec->options) named.options[std::string(o.name)] = o.default_value;
      // A fault excuses a late timer sent up to a minute after it: a consumer's route of a
      // restarted broker lacks it until its next poll (30 s) and the broker registers every 30 s.
      named.options["aftermath"] = Duration(std::chrono::minutes(1));
      s.checks.named.push_back(std::move(named));
    }
    run.seed = *rc::gen::noShrink(rc::gen::inRange<std::uint64_t>(1, std::uint64_t{1} << 40));
    return run;
  });
}

}  // namespace ferry::sim::property
