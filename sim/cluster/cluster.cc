#include "sim/cluster/cluster.h"

#include <fmt/format.h>

#include "client/admin_client.h"
#include "client/client_instance.h"
#include "runtime/assert.h"
#include "sim/net/network.h"

namespace ferry::sim::cluster {

namespace {

constexpr std::uint16_t kNamesrvPort = 9876;

}  // namespace

std::string LivenessReport::to_string() const {
  if (converged) return fmt::format("converged after {} ms", to_ms(took));
  std::string out = fmt::format("not converged after {} ms:", to_ms(took));
  for (const std::string& m : missing) out += "\n  " + m;
  return out;
}

Cluster::Cluster(WorldOptions options, ClusterSpec spec, NodeFactory namesrv_factory, LogSettings log)
    : world_(options, std::move(log)), spec_(std::move(spec)) {
  const Status valid = spec_.check();
  FERRY_ASSERT(valid.ok(), "ClusterSpec: {}", valid.ok() ? "" : valid.error().detail);
  for (std::size_t i = 0; i < spec_.namesrvs; ++i) add_namesrv(i, namesrv_factory);
  // Each controller's factory needs every peer's address: node ids (hence hosts) are given in
  // order, so they are known before the nodes are added.
  for (std::size_t i = 0; i < spec_.controllers; ++i) {
    controller_addrs_.push_back(fmt::format("127.0.0.{}:{}", 10 + world_.node_count() + i, kControllerPort));
  }
  for (std::size_t i = 0; i < spec_.controllers; ++i) add_controller(i);
  for (std::size_t i = 0; i < spec_.brokers.size(); ++i) add_broker(i, 0);
  for (std::size_t i = 0; i < spec_.brokers.size(); ++i) {
    for (std::size_t k = 1; k <= spec_.brokers[i].slaves; ++k) add_broker(i, static_cast<std::int64_t>(k));
  }
}

Cluster::~Cluster() = default;

void Cluster::add_namesrv(std::size_t i, NodeFactory factory) {
  if (!factory) {
    namesrv::NameServerConfig base = spec_.namesrv_config;
    factory = [base](Runtime& rt) -> std::unique_ptr<NodeProcess> {
      namesrv::NameServerConfig c = base;
      c.listen_host = rt.network().host();
      c.listen_port = kNamesrvPort;
      auto ns = std::make_unique<namesrv::NameServer>(rt, c);
      if (Status s = ns->start(); !s.ok()) {
        rt.log().error("NameServer did not start: {}", s.error().to_string());
        return nullptr;  // a node without a component: its clients see connects refused
      }
      return hosted(std::move(ns));
    };
  }
  const NodeId id = world_.add_node(fmt::format("namesrv-{}", i), std::move(factory));
  namesrv_nodes_.push_back(id);
  namesrv_addrs_.push_back(fmt::format("{}:{}", world_.node(id).host(), kNamesrvPort));
}

void Cluster::add_controller(std::size_t i) {
  controller::ControllerConfig base = spec_.controller_config;
  base.peers.clear();
  for (std::size_t k = 0; k < controller_addrs_.size(); ++k) {
    base.peers.push_back(controller::ControllerPeer{fmt::format("n{}", k), controller_addrs_[k]});
  }
  base.self = fmt::format("n{}", i);
  const NodeId id = world_.add_node(fmt::format("controller-{}", i), [base](Runtime& rt) -> std::unique_ptr<NodeProcess> {
    auto c = std::make_unique<controller::Controller>(rt, base);
    if (Status s = c->start(); !s.ok()) {
      rt.log().error("controller did not start: {}", s.error().to_string());
      return nullptr;
    }
    return hosted(std::move(c));
  });
  FERRY_ASSERT_EQ(fmt::format("{}:{}", world_.node(id).host(), kControllerPort), controller_addrs_[i]);
  controller_nodes_.push_back(id);
}

controller::Controller* Cluster::controller(std::size_t i) {
  auto* p = dynamic_cast<Hosted<controller::Controller>*>(world_.node(controller_nodes_.at(i)).process());
  return p ? &p->get() : nullptr;
}

std::optional<std::size_t> Cluster::master_of(std::size_t group) {
  for (std::size_t i = 0; i < broker_nodes_.size(); ++i) {
    if (broker_groups_[i] != group) continue;
    broker::Broker* b = broker(i);
    if (b == nullptr || b->state() != broker::Broker::State::running) continue;
    if (b->config().broker_role == broker::BrokerRole::slave) continue;
    if (b->replicas() != nullptr && !b->replicas()->is_master()) continue;
    return i;
  }
  return std::nullopt;
}

void Cluster::add_broker(std::size_t group, std::int64_t broker_id) {
  const BrokerGroupSpec& g = spec_.brokers[group];
  broker::BrokerConfig cfg = g.config;
  cfg.broker_name = g.name;
  cfg.broker_cluster_name = g.cluster;
  cfg.broker_id = broker_id;
  cfg.namesrv_addr = namesrv_addrs_;
  cfg.flush_disk_type = broker_id == 0 ? g.flush : g.slave_flush.value_or(g.flush);
  cfg.broker_role = broker_id == 0 ? g.role : broker::BrokerRole::slave;
  cfg.store = g.store;
  if (g.controller_mode) {
    cfg.enable_controller_mode = true;
    cfg.controller_addr = controller_addrs_;
  }
  broker_configs_.push_back(cfg);
  const std::string label = broker_id == 0 ? g.name : fmt::format("{}-s{}", g.name, broker_id);
  broker_labels_.push_back(label);
  broker_groups_.push_back(group);
  const auto self = std::make_shared<NodeId>();
  const NodeId id = world_.add_node(label, [cfg, self, this](Runtime& rt) -> std::unique_ptr<NodeProcess> {
    auto b = std::make_unique<broker::Broker>(rt, cfg);
    // The supervisor: restarts the process of this life once it stopped itself.
    const std::uint64_t life = world_.node(*self).incarnation();
    b->set_failure_handler([this, self, life](const Error&) {
      world_.schedule(world_.now() + kSupervisorRestartDelay, EventTag{}, [this, self, life] {
        SimNode& n = world_.node(*self);
        if (n.incarnation() != life || retired(*self)) return;  // a fault restarted it meanwhile
        n.log().warn("supervisor: restarting the broker, which stopped itself {} ms ago", to_ms(kSupervisorRestartDelay));
        world_.restart(*self, CrashKind::process_kill);
      });
    });
    b->launch();
    return hosted(std::move(b));
  });
  *self = id;
  if (g.disk_capacity_bytes > 0) {
    DiskOptions d = world_.node(id).disk().options();
    d.capacity_bytes = g.disk_capacity_bytes;
    world_.node(id).disk().set_options(d);
  }
  broker_nodes_.push_back(id);
}

namesrv::NameServer* Cluster::namesrv(std::size_t i) {
  auto* p = dynamic_cast<Hosted<namesrv::NameServer>*>(world_.node(namesrv_nodes_.at(i)).process());
  return p ? &p->get() : nullptr;
}

std::optional<std::size_t> Cluster::slave_index(std::size_t group, std::size_t k) const {
  std::size_t seen = 0;
  for (std::size_t i = spec_.brokers.size(); i < broker_nodes_.size(); ++i) {
    if (broker_groups_[i] == group && ++seen == k) return i;
  }
  return std::nullopt;
}

std::optional<std::size_t> Cluster::broker_index(const std::string& name) const {
  for (std::size_t i = 0; i < spec_.brokers.size(); ++i) {
    if (spec_.brokers[i].name == name) return i;
  }
  return std::nullopt;
}

broker::Broker* Cluster::broker(std::size_t i) {
  auto* p = dynamic_cast<Hosted<broker::Broker>*>(world_.node(broker_nodes_.at(i)).process());
  return p ? &p->get() : nullptr;
}

std::string Cluster::broker_addr(std::size_t i) {
  return fmt::format("{}:{}", world_.node(broker_nodes_.at(i)).host(), broker_configs_.at(i).listen_port);
}

client::ClientConfig Cluster::client_config(const std::string& instance_name) const {
  client::ClientConfig c;
  c.namesrv_addrs = namesrv_addrs_;
  c.instance_name = instance_name;
  // The unique-id parts a real process takes from its pid and a hash: fixed per name, so that
  // message ids are the same in every run of a seed.
  std::uint32_t h = 2166136261u;
  for (char ch : instance_name) h = (h ^ static_cast<std::uint8_t>(ch)) * 16777619u;
  c.uniq_id_pid = static_cast<std::int32_t>(1000 + h % 30000);
  c.uniq_id_process_hash = static_cast<std::int32_t>(h >> 1);
  return c;
}

NodeId Cluster::add_client(const std::string& name, ClientFactory factory) {
  const client::ClientConfig config = client_config(name);
  return world_.add_node(name, [config, factory = std::move(factory)](Runtime& rt) { return factory(rt, config); });
}

// ---- faults --------------------------------------------------------------------------------

void Cluster::partition(NodeId a, NodeId b) { world_.net().partition(a, b); }
void Cluster::partition_one_way(NodeId from, NodeId to) { world_.net().partition_one_way(from, to); }
void Cluster::isolate(NodeId n) { world_.net().isolate(n); }
void Cluster::heal(NodeId a, NodeId b) { world_.net().heal(a, b); }
void Cluster::clog(NodeId from, NodeId to, Duration extra) { world_.net().clog(from, to, extra); }

void Cluster::heal_all() {
  world_.net().heal_all();
  world_.net().unclog_all();
  // A broker whose start failed (say, an I/O error while recovering) exits; a supervisor starts
  // it again.
  for (std::size_t i = 0; i < broker_nodes_.size(); ++i) {
    broker::Broker* b = broker(i);
    if (b != nullptr && b->state() == broker::Broker::State::failed) world_.kill(broker_nodes_[i]);
  }
  for (std::size_t i = 0; i < world_.node_count(); ++i) {
    const NodeId id{static_cast<std::uint32_t>(i)};
    SimNode& n = world_.node(id);
    if (n.state() == SimNode::State::paused) world_.resume(id);
    if (n.state() == SimNode::State::down && !retired(id)) world_.start(id);
  }
}

void Cluster::quiet() {
  for (std::size_t i = 0; i < world_.node_count(); ++i) {
    SimDisk& disk = world_.node(NodeId{static_cast<std::uint32_t>(i)}).disk();
    DiskOptions calm = disk.options();
    calm.eio_on_sync_ppm = 0;
    calm.eio_on_read_ppm = 0;
    calm.eio_on_create_ppm = 0;
    calm.slow_sync_ppm = 0;
    calm.slow_read_ppm = 0;
    disk.set_options(calm);
  }
  world_.stop_buggify();
  // What its operator does with a broker whose store refuses writes after a failed CommitLog
  // sync: restart it (heal_all() starts it; the store recovers what was durable).
  for (std::size_t i = 0; i < broker_nodes_.size(); ++i) {
    broker::Broker* b = broker(i);
    if (b == nullptr || !b->store().sync_failed() || retired(broker_nodes_[i])) continue;
    world_.node(broker_nodes_[i]).log().warn("operator: restarting the broker, whose store refuses writes after a failed "
                                             "CommitLog sync");
    world_.kill(broker_nodes_[i]);
  }
}

// ---- boot ----------------------------------------------------------------------------------

Task<Status> Cluster::create_topics(NodeId on) {
  client::ClientInstance ci(world_.node(on), client_config("cluster-admin"));
  client::AdminClient admin(ci);
  Status result;
  // Masters only: a slave copies its master's topics (broker/slave_sync.h).
  for (std::size_t g = 0; g < spec_.brokers.size() && result.ok(); ++g) {
    const std::size_t i = master_of(g).value_or(g);
    for (const TopicSpec& t : spec_.topics) {
      Status s = co_await admin.create_topic(broker_addr(i), topic_config(t));
      if (!s.ok()) {
        result = Error(s.error().code, fmt::format("create topic {} on {}: {}", t.name, broker_labels_[i], s.error().detail));
        break;
      }
    }
  }
  co_await ci.shutdown();
  co_return result;
}

Status Cluster::update_topic(std::size_t group, const std::string& topic, std::int32_t queues) {
  if (!admin_node_) return Error(Errc::unsupported, "update_topic before boot(): no admin node yet");
  FERRY_ASSERT(group < spec_.brokers.size(), "update_topic: group {} of {}", group, spec_.brokers.size());
  const TopicSpec* spec = find_topic(spec_, topic);
  if (spec == nullptr) return Error(Errc::invalid_argument, fmt::format("update_topic: {} is not a topic of the cluster", topic));
  const remoting::body::TopicConfig tc = topic_config(*spec, queues);
  SimNode& admin = world_.node(*admin_node_);
  const std::size_t master = master_of(group).value_or(group);
  admin.spawn(update_topic_task(tc, broker_addr(master), broker_labels_[master]), "cluster-update-topic");
  return {};
}

Task<void> Cluster::update_topic_task(remoting::body::TopicConfig tc, std::string addr, std::string label) {
  SimNode& admin = world_.node(*admin_node_);
  client::ClientInstance ci(admin, client_config("cluster-admin"));
  client::AdminClient client(ci);
  Status s = co_await client.create_topic(addr, tc);
  if (!s.ok()) {
    admin.log().error("update topic {} on {}: {}", tc.topic_name, label, s.error().to_string());
  } else {
    admin.log().info("topic {} on {} now has {} queues", tc.topic_name, label, tc.write_queue_nums);
  }
  co_await ci.shutdown();
}

Status Cluster::boot(Duration limit) {
  const MonoTime deadline = world_.now() + limit;
  auto left = [&] { return deadline > world_.now() ? deadline - world_.now() : Duration{}; };
  for (std::size_t i = 0; i < broker_nodes_.size(); ++i) {
    RunReport r = world_.run_until(
        [&] {
          broker::Broker* b = broker(i);
          if (b == nullptr) return false;
          if (b->state() == broker::Broker::State::failed) return true;
          return b->state() == broker::Broker::State::running && !b->registrar().successes().empty();
        },
        left());
    broker::Broker* b = broker(i);
    if (b != nullptr && b->state() == broker::Broker::State::failed) {
      return Error(Errc::io_error, fmt::format("broker {} failed to start: {}", broker_labels_[i],
                                               b->start_error() ? b->start_error()->to_string() : "?"));
    }
    if (!r.ok()) {
      return Error(Errc::timed_out, fmt::format("broker {} not running and registered: {} ({})", broker_labels_[i],
                                                r.message, describe()));
    }
  }
  for (std::size_t g = 0; g < spec_.brokers.size(); ++g) {
    if (!spec_.brokers[g].controller_mode) continue;
    RunReport r = world_.run_until([&] { return master_of(g).has_value(); }, left());
    if (!r.ok()) {
      return Error(Errc::timed_out, fmt::format("the controllers named no master of {}: {} ({})", spec_.brokers[g].name,
                                                r.message, describe()));
    }
  }
  if (spec_.topics.empty()) return {};
  if (!admin_node_) admin_node_ = world_.add_node("cluster-admin");
  auto made = world_.run_task(*admin_node_, create_topics(*admin_node_), left());
  if (!made.ok()) return Error(Errc::timed_out, "creating topics: " + made.report.message);
  if (!made.value->ok()) return *made.value;
  // Brokers register their new topics with every NameServer at once (a registration round).
  std::vector<Convergence> routes;
  for (const TopicSpec& t : spec_.topics) routes.push_back(routes_converged(t.name));
  RunReport r = world_.run_until(
      [&] {
        for (const Convergence& c : routes) {
          if (c.pending()) return false;
        }
        return true;
      },
      left());
  if (!r.ok()) {
    for (const Convergence& c : routes) {
      if (auto p = c.pending()) return Error(Errc::timed_out, fmt::format("{}: {} ({})", c.name, *p, describe()));
    }
  }
  return {};
}

// ---- liveness ------------------------------------------------------------------------------

LivenessReport Cluster::heal_and_converge(const std::vector<Convergence>& requirements, Duration bound,
                                          const std::function<void()>& after_each_event) {
  quiet();
  heal_all();
  const MonoTime healed = world_.now();
  auto all_met = [&] {
    if (after_each_event) after_each_event();
    for (const Convergence& c : requirements) {
      if (c.pending()) return false;
    }
    return true;
  };
  RunReport r = world_.run_until(all_met, bound);
  LivenessReport report;
  report.took = world_.now() - healed;
  report.converged = r.ok();
  if (!report.converged) {
    for (const Convergence& c : requirements) {
      if (auto p = c.pending()) report.missing.push_back(c.name + ": " + *p);
    }
    if (report.missing.empty()) report.missing.push_back(r.message);  // a deadlock, say
  }
  return report;
}

Convergence Cluster::brokers_running() {
  return Convergence{"brokers running", [this]() -> std::optional<std::string> {
                       for (std::size_t i = 0; i < broker_nodes_.size(); ++i) {
                         if (retired(broker_nodes_[i])) continue;
                         broker::Broker* b = broker(i);
                         if (b == nullptr) return broker_labels_[i] + " is down";
                         if (b->state() != broker::Broker::State::running) return broker_labels_[i] + " is not running";
                       }
                       return std::nullopt;
                     }};
}

Convergence Cluster::routes_converged(const std::string& topic) {
  return Convergence{"routes of " + topic, [this, topic]() -> std::optional<std::string> {
                       for (std::size_t n = 0; n < namesrv_nodes_.size(); ++n) {
                         namesrv::NameServer* ns = namesrv(n);
                         if (ns == nullptr) {
                           if (!world_.node(namesrv_nodes_[n]).up()) return fmt::format("namesrv-{} is down", n);
                           continue;  // a replaced NameServer component: nothing to inspect
                         }
                         auto route = ns->routes().route_of(topic);
                         for (const BrokerGroupSpec& g : spec_.brokers) {
                           bool found = false;
                           if (route) {
                             for (const auto& q : route->queue_datas) found = found || q.broker_name == g.name;
                           }
                           if (!found) return fmt::format("namesrv-{} has no route of {} to {}", n, topic, g.name);
                         }
                       }
                       return std::nullopt;
                     }};
}

std::string Cluster::describe() const {
  return fmt::format("seed {}, trace {:016x}, virtual time {:.3f} s", world_.options().seed, world_.trace_hash(),
                     static_cast<double>(to_ms(world_.now() - MonoTime{})) / 1000.0);
}

}  // namespace ferry::sim::cluster
