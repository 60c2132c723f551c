// ObserverApp: the real runner's own client (`mqsim run --real`), on a host that no fault touches.
// What the simulated runner reads out of the nodes' memory, it asks for over the wire, as an
// operator's tools would:
//   - every NameServer, one loop each (a dark one stalls only its own): the route of every
//     scenario topic (History::routes, observer "namesrv-i"), the broker cluster info (for boot
//     and the liveness requirements) and the live-broker table (FERRY_GET_BROKER_LIVE_TABLE),
//     whose ages give each registration's time (History::registrations);
//   - the brokers (the master of each group, else a slave): each queue's first offset as it rises
//     (GET_MIN_OFFSET, History::queue_floors) and every consumer group's committed offset of every
//     queue (QUERY_CONSUMER_OFFSET, History::commits, by the broker node that answered).
//   - in controller mode, every controller, one loop each: whether it leads (1005) and what its own
//     replicated state says of each group (FERRY_GET_LOCAL_SYNC_STATE_DATA: History::controller_views),
//     and each broker of a controller-mode group: its last epoch and SEND_OKs by master epoch
//     (FERRY_GET_EPOCH_ACKS: History::broker_epochs) — what the simulated ControllerObserver reads.
// Each loop looks every kObserveEvery (250 ms) after its last answer. It also runs the operator's
// commands for the runner (create and update topics, promote a slave) on its admin client.
// Loop thread only, like every component; the runner reaches it through ClientHost::visit.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "client/admin_client.h"
#include "client/client_instance.h"
#include "remoting/body/cluster_info.h"
#include "remoting/body/topic_route_data.h"
#include "runtime/runtime.h"
#include "sim/cluster/cluster_spec.h"
#include "sim/history/history.h"
#include "sim/process.h"
#include "sim/scenario/route_observer.h"

namespace ferry::sim::real {

struct ObserverSetup {
  std::vector<std::string> namesrv_names;  // "namesrv-0", ...
  std::vector<std::string> namesrv_addrs;  // "10.77.0.10:9876", ... (same order)
  std::map<std::string, std::string> broker_by_addr;  // "10.77.0.12:10911" -> "broker-a"
  std::vector<cluster::TopicSpec> topics;
  std::set<std::string> groups;  // consumer groups whose commits are watched
  std::string client_ip;
  std::vector<std::string> controller_names;  // "controller-0", ...
  std::vector<std::string> controller_addrs;  // (same order)
  std::vector<std::string> controller_groups;  // broker groups in controller mode
  struct WatchedBroker {
    std::string addr;
    std::string group;
  };
  std::map<std::string, WatchedBroker> controller_brokers;  // their brokers, by node
};

// What the observer last heard from one controller.
struct ControllerView {
  bool answered = false;
  bool leader = false;  // it leads the Raft group and serves (1005's isLeader)
  std::map<std::string, sim::ControllerViewRecord> groups;  // by broker group (node names)
};

// What the observer last heard from one NameServer.
struct NamesrvView {
  bool answered = false;  // its last look got every answer
  remoting::body::ClusterInfo cluster;
  std::map<std::string, remoting::body::TopicRouteData> routes;  // by topic; absent: no route
};

class ObserverApp final : public NodeProcess {
 public:
  ObserverApp(Runtime& rt, ObserverSetup setup, std::shared_ptr<sim::History> history);
  ~ObserverApp() override;

  client::AdminClient& admin() { return *admin_; }
  Runtime& runtime() { return rt_; }
  // The last view of NameServer i (by the setup's order).
  const NamesrvView& view(std::size_t i) const { return views_.at(i); }
  std::size_t namesrv_count() const { return views_.size(); }
  // The last view of controller i (by the setup's order).
  const ControllerView& controller_view(std::size_t i) const { return controller_views_.at(i); }
  std::size_t controller_count() const { return controller_views_.size(); }
  // Starts the controllers' loops (at boot, before the brokers: the boot waits for a leader).
  void start_watching_controllers();
  // Starts the loops (once the cluster booted: before, the routes are empty anyway).
  void start_watching();

 private:
  static Task<void> watch_namesrv(ObserverApp* self, std::size_t i);
  static Task<void> watch_commits(ObserverApp* self);  // floors and commits
  static Task<void> watch_controller(ObserverApp* self, std::size_t i);
  static Task<void> watch_epochs(ObserverApp* self);

  Runtime& rt_;
  ObserverSetup setup_;
  std::shared_ptr<sim::History> history_;
  scenario::RouteLog routes_;
  std::unique_ptr<client::ClientInstance> instance_;  // every NameServer: the admin client's
  std::unique_ptr<client::AdminClient> admin_;
  std::vector<std::unique_ptr<client::ClientInstance>> per_namesrv_;
  std::vector<std::unique_ptr<client::AdminClient>> per_namesrv_admin_;
  std::vector<NamesrvView> views_;
  std::map<std::pair<std::string, std::string>, MonoTime> last_registration_;  // (namesrv, broker addr)
  std::map<std::tuple<std::string, std::string, MessageQueue>, QueueOffset> last_commit_;  // (broker, group, queue)
  std::map<MessageQueue, QueueOffset> floors_;
  std::vector<ControllerView> controller_views_;
  std::map<std::string, sim::BrokerEpochRecord> last_epochs_;  // by broker node
  bool watching_ = false;
  bool watching_controllers_ = false;
};

}  // namespace ferry::sim::real
