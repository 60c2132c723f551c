// RouteObserver: a Watch observer (watch.h) that records, into the History, what every
// NameServer and every client node's route of each scenario topic shows (a RouteRecord each time
// it changes) and every registration a NameServer takes (a RegistrationRecord each time a
// broker's live entry is refreshed). The route-staleness checker (sim/check/route_staleness.h)
// judges the records; the failover and report pages read them too.
//
// Only reads: NameServer route tables (Cluster::namesrv), the ClientInstance of workload app
// nodes (sim/cluster/workload.h). A node that is down is skipped (its next record, once it is
// up, is compared with its last one).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "client/client_instance.h"
#include "remoting/body/topic_route_data.h"
#include "sim/cluster/cluster.h"
#include "sim/history/history.h"

namespace ferry::sim::scenario {

// What `route` says of each broker group: its queue counts and whether it has a master.
std::map<std::string, sim::RouteGroup> route_groups(const remoting::body::TopicRouteData& route);

// Records into History::routes what `observer` (a NameServer or client node) routes `topic` to,
// each time it differs from what it routed last (the History's lock held while writing). Shared
// by the simulated runner's RouteObserver and the real one (sim/real).
class RouteLog {
 public:
  explicit RouteLog(std::shared_ptr<sim::History> history) : history_(std::move(history)) {}
  void record(MonoTime now, const std::string& observer, const std::string& topic, std::map<std::string, sim::RouteGroup> groups);
  // What a client app routes each of `topics` to now (an empty route for one it has none of).
  void record_client(MonoTime now, const std::string& name, const client::ClientInstance& ci,
                     const std::vector<cluster::TopicSpec>& topics);

 private:
  std::shared_ptr<sim::History> history_;
  std::map<std::pair<std::string, std::string>, std::map<std::string, sim::RouteGroup>> last_;
};

class RouteObserver {
 public:
  // `clients`: the client nodes by name, as the runner adds them (read at every call, so nodes
  // added later are observed from then on). The cluster, the map and the history outlive it.
  RouteObserver(cluster::Cluster& c, const std::map<std::string, NodeId>& clients, std::shared_ptr<sim::History> history);

  void operator()(MonoTime now);

 private:
  cluster::Cluster& cluster_;
  const std::map<std::string, NodeId>& clients_;
  std::shared_ptr<sim::History> history_;
  RouteLog routes_;
  std::map<std::string, std::string> broker_by_addr_;  // "127.0.0.12:10911" -> "broker-a"
  // The last registration time of each (namesrv, broker address), to record changes only.
  std::map<std::pair<std::string, std::string>, MonoTime> last_registration_;
};

}  // namespace ferry::sim::scenario
