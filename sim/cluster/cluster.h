// Cluster: a RocketMQ deployment (ClusterSpec) running in one simulated World — NameServer nodes,
// broker nodes, and client nodes the caller adds — with handles to run it and to hurt it.
//
//   sim::cluster::Cluster c(sim::swarm_options(seed), spec);
//   ASSERT_TRUE(c.boot().ok());                          // brokers up, registered, topics routed
//   NodeId app = c.add_client("consumer-1", factory);   // a ClientInstance-based app per node
//   c.kill(c.broker_node(0));  c.partition(a, b);  c.silence(n);  ...
//   LivenessReport l = c.heal_and_converge({...}, 120s);  // then everything must converge
//
// Nodes are built by factories, so a crash destroys a node's component like a dying process and
// start() rebuilds it from the same description on the same disk. Every node's address is fixed
// by its id ("127.0.0.<10+id>"); NameServers listen on 9876, controllers on kControllerPort,
// brokers on their listen_port.
//
// Faults (all by NodeId; see sim/world.h and sim/ids.h for their meaning): kill / power_off /
// crash(kind), start, restart (after a delay, optionally on a wiped disk), silence (a host gone
// dark), pause / resume, partition / partition_one_way / isolate / heal, clog, skew_wall_clock,
// wipe_disk. heal_all() undoes every fault that can be undone: links healed and unclogged, paused
// nodes resumed, down nodes started, brokers whose start failed started again (a supervisor's
// restart), clock skew kept (a skewed clock is a property of a machine), retired nodes left down.
// quiet() begins the liveness phase's quiet (FoundationDB's quiet database): what the world drew
// at random stops for good — the disks' I/O errors and slow syncs and reads, every BUGGIFY site —
// and a broker whose store refuses writes after a failed CommitLog sync is restarted (what its
// operator does; the store recovers what was durable). The network's latency and the clocks' skew
// stay: they are the machines, not faults. The liveness phase asks whether the healed cluster
// converges, not how slow a chaos world is: the fault phase already ran the rare paths, and with
// them on the bound had to cover a tenth of all replies arriving just before their timeout
// (slow-disk-sync-flush under swarm seed 8: 22 minutes for the producers' last sends).
//
// Single-threaded, like the World it owns; not copyable. Component pointers (broker(i),
// namesrv(i)) are valid until the node's next crash.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "broker/broker.h"
#include "client/client_config.h"
#include "controller/controller.h"
#include "namesrv/name_server.h"
#include "sim/cluster/cluster_spec.h"
#include "sim/node.h"
#include "sim/world.h"

namespace ferry::sim::cluster {

// Builds a client node's component from its runtime and a ClientConfig that points at the
// cluster's NameServers (instance name = the node's name, deterministic unique-id parts).
using ClientFactory = std::function<std::unique_ptr<NodeProcess>(Runtime& rt, const client::ClientConfig& config)>;

// A named progress requirement for the liveness phase: `pending()` returns nullopt once it holds,
// else a sentence saying what is still missing ("queue T@broker-a:2 held by nobody").
struct Convergence {
  std::string name;
  std::function<std::optional<std::string>()> pending;
};

struct LivenessReport {
  bool converged = false;
  Duration took{};                   // virtual time from the heal to convergence (or the bound)
  std::vector<std::string> missing;  // "name: what is still pending", for each one not met
  std::string to_string() const;
};

inline constexpr std::uint16_t kControllerPort = 9878;
// A running broker that stopped itself (Broker::failure(): in controller mode, a CommitLog sync
// that failed) is started again this long after, as systemd's Restart=on-failure would (the
// mqbroker daemon exits with code 3 then), unless a fault restarted it meanwhile.
inline constexpr Duration kSupervisorRestartDelay = std::chrono::seconds(5);

class Cluster {
 public:
  // Builds and starts every NameServer and broker node of `spec` (spec.check() must pass).
  // `namesrv_factory`, when given, replaces the NameServer component (a test double that records
  // what brokers send); it must listen on port 9876 of its node.
  // `log`: where every node of the cluster's World logs (World's constructor).
  Cluster(WorldOptions options, ClusterSpec spec, NodeFactory namesrv_factory = {}, LogSettings log = default_log_settings());
  ~Cluster();
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;

  World& world() { return world_; }
  const ClusterSpec& spec() const { return spec_; }

  // Runs until every broker is running and has registered at least once, then creates the spec's
  // topics on every broker group and waits until every NameServer routes them. Errors
  // (timed_out, or the broker's start error) say which node is not there.
  Status boot(Duration limit = std::chrono::seconds(60));

  // ---- nodes ---------------------------------------------------------------------------------
  std::size_t namesrv_count() const { return namesrv_nodes_.size(); }
  NodeId namesrv_node(std::size_t i) const { return namesrv_nodes_.at(i); }
  // The NameServer component, nullptr while its node is down (or with a replaced factory).
  namesrv::NameServer* namesrv(std::size_t i);
  const std::vector<std::string>& namesrv_addrs() const { return namesrv_addrs_; }

  // Brokers are numbered masters first — broker i < spec().brokers.size() is the master of group
  // i — then every slave (slave_index() finds them). broker_count() counts them all.
  std::size_t broker_count() const { return broker_nodes_.size(); }
  // The k-th slave (k = its brokerId, 1-based) of group `group`, if the spec has it.
  std::optional<std::size_t> slave_index(std::size_t group, std::size_t k = 1) const;
  // "broker-a" for a master, "broker-a-s1" for its first slave (the node's name).
  const std::string& broker_label(std::size_t i) const { return broker_labels_.at(i); }
  std::size_t broker_group(std::size_t i) const { return broker_groups_.at(i); }
  NodeId broker_node(std::size_t i) const { return broker_nodes_.at(i); }
  std::optional<std::size_t> broker_index(const std::string& name) const;
  // The Broker component, nullptr while its node is down.
  broker::Broker* broker(std::size_t i);
  std::string broker_addr(std::size_t i);
  const broker::BrokerConfig& broker_config(std::size_t i) const { return broker_configs_.at(i); }

  // Controller mode: the controllers (numbered as their nodes "controller-{i}"), and the broker
  // the group's controllers made master, if it runs (for any group: the running broker of the
  // group that takes writes as master).
  std::size_t controller_count() const { return controller_nodes_.size(); }
  NodeId controller_node(std::size_t i) const { return controller_nodes_.at(i); }
  // The Controller component, nullptr while its node is down.
  controller::Controller* controller(std::size_t i);
  const std::vector<std::string>& controller_addrs() const { return controller_addrs_; }
  std::optional<std::size_t> master_of(std::size_t group);

  client::ClientConfig client_config(const std::string& instance_name) const;
  // A client node whose component `factory` builds (again at every start).
  NodeId add_client(const std::string& name, ClientFactory factory);
  // A node with no component: tests drive it with run_task / run().
  NodeId add_bare(const std::string& name) { return world_.add_node(name); }
  // The operator's topic change (mqadmin updateTopic): UPDATE_AND_CREATE_TOPIC with `queues` read
  // and write queues for `topic` (a topic of the spec, keeping its perm and order) sent to the
  // master of group `group` from the cluster's admin node. Started now, completes later (a
  // failure is logged on the admin node at error level). Errors: invalid_argument for a topic
  // not in the spec, unsupported before boot().
  Status update_topic(std::size_t group, const std::string& topic, std::int32_t queues);
  // Any other node (a fake peer).
  NodeId add_node(const std::string& name, NodeFactory factory) { return world_.add_node(name, std::move(factory)); }
  const std::string& name_of(NodeId n) { return world_.node(n).node_name(); }

  // ---- faults --------------------------------------------------------------------------------
  void crash(NodeId n, CrashKind kind) { world_.crash(n, kind); }
  void kill(NodeId n) { world_.kill(n); }
  void power_off(NodeId n) { world_.power_off(n); }
  void start(NodeId n) { world_.start(n); }
  void restart(NodeId n, CrashKind kind, Duration delay = Duration{}, bool wipe = false) { world_.restart(n, kind, delay, wipe); }
  void silence(NodeId n) { world_.silence(n); }
  void pause(NodeId n) { world_.pause(n); }
  void resume(NodeId n) { world_.resume(n); }
  void partition(NodeId a, NodeId b);
  void partition_one_way(NodeId from, NodeId to);
  void isolate(NodeId n);
  void heal(NodeId a, NodeId b);
  void clog(NodeId from, NodeId to, Duration extra);
  void skew_wall_clock(NodeId n, std::int64_t delta_ms) { world_.jump_wall_clock(n, delta_ms); }
  void wipe_disk(NodeId n) { world_.wipe_disk(n); }
  // Heals links, unclogs, resumes paused nodes and starts down ones (see the class comment).
  void heal_all();
  // Stops the faults the world draws at random and restarts brokers whose sync failed (see the
  // class comment). For good: nothing turns them on again.
  void quiet();
  // A node the operator replaced for good (the old master of a group whose slave was promoted:
  // started again as a master it would be a second brokerId 0). heal_all() leaves it down and
  // brokers_running() does not wait for it; nothing else changes (start() still starts it).
  void retire(NodeId n) { retired_.insert(n); }
  bool retired(NodeId n) const { return retired_.count(n) > 0; }

  // ---- running -------------------------------------------------------------------------------
  void run_for(Duration d) { world_.run_for(d); }
  RunReport run_until(const std::function<bool()>& goal, Duration limit) { return world_.run_until(goal, limit); }
  template <typename T>
  TaskRun<T> run_task(NodeId n, Task<T> task, Duration limit) {
    return world_.run_task(n, std::move(task), limit);
  }

  // The liveness phase: quiet(), heal_all(), then run until every requirement holds or `bound`
  // passes.
  // `after_each_event`, when given, is called after every event (an observer: it must only read).
  LivenessReport heal_and_converge(const std::vector<Convergence>& requirements, Duration bound,
                                   const std::function<void()>& after_each_event = {});

  // Built-in requirements: every broker running; every NameServer that is up routes `topic` to
  // every broker group that should serve it.
  Convergence brokers_running();
  Convergence routes_converged(const std::string& topic);

  // "seed 42, trace 0123abcd…, virtual time 12.345 s": for failure messages.
  std::string describe() const;

 private:
  void add_namesrv(std::size_t i, NodeFactory factory);
  void add_controller(std::size_t i);
  void add_broker(std::size_t group, std::int64_t broker_id);
  Task<Status> create_topics(NodeId on);
  Task<void> update_topic_task(remoting::body::TopicConfig tc, std::string addr, std::string label);

  World world_;
  ClusterSpec spec_;
  std::vector<NodeId> namesrv_nodes_;
  std::vector<std::string> namesrv_addrs_;
  std::vector<NodeId> controller_nodes_;
  std::vector<std::string> controller_addrs_;
  std::vector<NodeId> broker_nodes_;
  std::vector<broker::BrokerConfig> broker_configs_;
  std::vector<std::string> broker_labels_;
  std::vector<std::size_t> broker_groups_;
  std::optional<NodeId> admin_node_;
  std::set<NodeId> retired_;  // a bare node boot() creates topics from
};

}  // namespace ferry::sim::cluster
