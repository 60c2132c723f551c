#include "sim/scenario/route_observer.h"

#include "sim/cluster/workload.h"

namespace ferry::sim::scenario {

std::map<std::string, sim::RouteGroup> route_groups(const remoting::body::TopicRouteData& route) {
  std::map<std::string, sim::RouteGroup> out;
  for (const remoting::body::QueueData& q : route.queue_datas) {
    sim::RouteGroup& g = out[q.broker_name];
    g.read_queues = q.read_queue_nums;
    g.write_queues = q.write_queue_nums;
  }
  for (const remoting::body::BrokerData& b : route.broker_datas) {
    auto it = out.find(b.broker_name);
    if (it != out.end()) it->second.master = b.broker_addrs.count(0) > 0;
  }
  return out;
}

RouteObserver::RouteObserver(cluster::Cluster& c, const std::map<std::string, NodeId>& clients,
                             std::shared_ptr<sim::History> history)
    : cluster_(c), clients_(clients), history_(history), routes_(history) {
  for (std::size_t i = 0; i < c.broker_count(); ++i) broker_by_addr_.emplace(c.broker_addr(i), c.broker_label(i));
}

void RouteLog::record(MonoTime now, const std::string& observer, const std::string& topic,
                      std::map<std::string, sim::RouteGroup> groups) {
  auto [it, fresh] = last_.try_emplace({observer, topic});
  if (!fresh && it->second == groups) return;
  it->second = groups;
  const auto held = history_->hold();
  history_->routes.push_back(sim::RouteRecord{now, observer, topic, std::move(groups)});
}

void RouteLog::record_client(MonoTime now, const std::string& name, const client::ClientInstance& ci,
                             const std::vector<cluster::TopicSpec>& topics) {
  for (const cluster::TopicSpec& t : topics) {
    auto route = ci.route(t.name);
    record(now, name, t.name, route ? route_groups(*route) : std::map<std::string, sim::RouteGroup>{});
  }
}

void RouteObserver::operator()(MonoTime now) {
  const std::vector<cluster::TopicSpec>& topics = cluster_.spec().topics;
  for (std::size_t i = 0; i < cluster_.namesrv_count(); ++i) {
    namesrv::NameServer* ns = cluster_.namesrv(i);
    if (ns == nullptr) continue;
    const std::string name = cluster_.name_of(cluster_.namesrv_node(i));
    for (const cluster::TopicSpec& t : topics) {
      auto route = ns->routes().route_of(t.name);
      routes_.record(now, name, t.name, route ? route_groups(*route) : std::map<std::string, sim::RouteGroup>{});
    }
    for (const auto& [addr, live] : ns->routes().live_brokers()) {
      auto [it, fresh] = last_registration_.try_emplace({name, addr}, live.last_update);
      if (!fresh && it->second == live.last_update) continue;
      it->second = live.last_update;
      auto b = broker_by_addr_.find(addr);
      // The NameServer's clock may drift: the record is in world time, as every other one.
      const MonoTime at = cluster_.world().node(cluster_.namesrv_node(i)).sim_clock().world_time_at(live.last_update);
      history_->registrations.push_back(sim::RegistrationRecord{at, name, b != broker_by_addr_.end() ? b->second : addr});
    }
  }
  for (const auto& [name, node] : clients_) {
    const client::ClientInstance* ci = cluster::client_instance_of(cluster_, node);
    if (ci != nullptr) routes_.record_client(now, name, *ci, topics);
  }
}

}  // namespace ferry::sim::scenario
