// RealCluster: a scenario's cluster as real processes (`mqsim run --real`): mqnamesrv, mqbroker and
// (controller mode) mqcontroller daemons, each in its own network namespace (testbed.h) with its configuration, data and log in
// a folder of the run, and the scenario's producers and consumers as workload apps on the
// production runtime (client_host.h), each in a namespace of its own too. One more host, the
// observer (observer_app.h), watches over the wire what the simulated runner reads from memory,
// and carries out the operator's commands.
//
// It is the real runner's RealFaults (sim/scenario/real_faults.h): kills, restarts, pauses, links
// cut or darkened, promotions and topic updates happen to it. Like the simulated Cluster it keeps
// the retired nodes (a consumer gone for good, a master replaced by a promoted slave) down at the
// heal, and restarts a broker that stopped itself after kSupervisorRestartDelay (systemd's
// Restart=on-failure). Every start of a node again is an Event of the History.
//
// Driven by one thread, the runner's: every method but the client hosts' own threads.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/log.h"
#include "sim/cluster/cluster.h"
#include "sim/cluster/workload.h"
#include "sim/real/client_host.h"
#include "sim/real/daemon_process.h"
#include "sim/real/delay_relay.h"
#include "sim/real/observer_app.h"
#include "sim/real/testbed.h"
#include "sim/scenario/real_faults.h"
#include "sim/scenario/route_observer.h"
#include "sim/scenario/take_observer.h"
#include "sim/scenario/scenario.h"

namespace ferry::sim::real {

struct RealRunOptions {
  std::string bin_dir;   // where mqnamesrv and mqbroker are
  std::string work_dir;  // the run's folder: one sub-folder per node (config, data, log); made
  // Where the client apps and the observer log (their runtime's settings).
  LogSettings client_log = default_log_settings();
};

inline constexpr std::uint16_t kRealNamesrvPort = 9876;
inline constexpr std::uint16_t kRealControllerPort = 9878;

class RealCluster final : public scenario::RealFaults {
 public:
  // The hosts, folders and configurations; nothing runs yet. Errors: what cannot run for real
  // (real_refusals), the testbed's (not root, no ip/nft), a folder that cannot be made.
  static Result<std::unique_ptr<RealCluster>> create(const scenario::Scenario& s, RealRunOptions options,
                                                     std::shared_ptr<sim::History> history);
  ~RealCluster() override;  // stop()

  // Starts the controllers (a Raft quorum), the NameServers, the observer, then the brokers; waits
  // (up to `limit`) until a controller leads, every NameServer knows every broker and the
  // controllers named a master of each controller-mode group, then creates the topics on the
  // masters and waits until every NameServer routes them to every group.
  Status boot(Duration limit);
  // Starts client `name` (a scenario producer or consumer node) from `factory`.
  Status add_client(const std::string& name, const cluster::ClientFactory& factory);
  // Left down at the heal (and kill()ed by the caller when it should be).
  void retire(const std::string& node) { retired_.insert(node); }
  // Does what came due: nodes whose downtime ended start, brokers that exited by themselves are
  // started again after kSupervisorRestartDelay; the clients' routes and takes are looked at
  // every kObserveEvery. Call often (every few ms).
  void tick();
  // Stops everything (clients, then daemons with SIGTERM and a grace period, then SIGKILL) and
  // removes the testbed. Safe to call twice.
  Status stop();

  // ---- the liveness requirements, as the simulated Cluster's ----
  cluster::Convergence brokers_running();
  cluster::Convergence routes_converged(const std::string& topic);
  cluster::Convergence producers_done(std::vector<std::string> producers);
  cluster::Convergence consumers_assigned(const std::string& topic, std::vector<std::string> consumers, bool broadcast);

  // RealFaults
  Status kill(const std::string& node) override;
  Status start_after(const std::string& node, Duration delay) override;
  Status wipe(const std::string& node) override;
  Status pause(const std::string& node) override;
  Status resume(const std::string& node) override;
  Status cut(const std::string& from, const std::string& to) override;
  Status uncut(const std::string& from, const std::string& to) override;
  Status clog(const std::string& from, const std::string& to, Duration extra) override;
  Status skew_clock(const std::string& node, Duration skew) override;
  Status fill_disk(const std::string& node, std::int64_t free_bytes) override;
  Status restore_disk(const std::string& node) override;
  Status darken(const std::string& node) override;
  Status undarken(const std::string& node) override;
  Status promote_slave(const std::string& node, const std::string& role) override;
  Status update_topic(const std::string& broker, const std::string& topic, std::int32_t queues) override;
  Status heal_all() override;

  // The node a role target (sim/scenario/target_alias.h) names now, as the observer last saw it:
  // "controller:leader" the controller that says it leads; "master:G" in controller mode the
  // broker the leader's state names master of G (running), otherwise G's running master (the
  // node G, or a slave promoted in its place); "slave:G" the first running broker of G, by name,
  // that is not its master. not_found for a vacant role.
  Result<std::string> resolve_alias(std::string_view alias);

  // What the run used for links and processes (nftables drops, the delaying relay, signals).
  std::string describe_network() const;
  const std::string& work_dir() const { return options_.work_dir; }
  // The daemons by name, and where each one's stdout and stderr went.
  std::vector<std::string> daemon_names() const;
  std::string daemon_log(const std::string& node) const { return options_.work_dir + "/" + node + "/daemon.log"; }

 private:
  struct Daemon {
    std::unique_ptr<DaemonProcess> process;
    bool broker = false;
    bool controller = false;
    std::size_t group = 0;     // brokers: index into the spec's groups
    std::int64_t broker_id = 0;
    std::string data_dir;
    std::string addr;          // "ip:port" it listens on
    bool stopped_by_us = false;  // its last exit was a kill or a stop, not its own
    std::string faketime_file;   // its libfaketime offset ("" : started without libfaketime)
    std::uint64_t disk_bytes = 0;  // its store is a tmpfs of this size (0: the host's disk)
    bool disk_filled = false;
    std::int64_t skew_ms = 0;
    std::optional<std::chrono::steady_clock::time_point> start_at;
  };
  struct Client {
    std::unique_ptr<ClientHost> host;
    std::optional<std::chrono::steady_clock::time_point> start_at;
  };

  RealCluster(const scenario::Scenario& s, RealRunOptions options, std::shared_ptr<sim::History> history);
  Status write_configs();
  Status start_daemon(const std::string& name);
  // Runs an operator's command on the observer: `job` gets its admin client; waits up to `limit`.
  Status admin(const std::string& what, std::function<Task<Status>(client::AdminClient&)> job, Duration limit);
  // A copy of what the observer last heard from each NameServer (empty when it is down).
  std::vector<NamesrvView> namesrv_views();
  // A copy of what the observer last heard from each controller (empty when it is down).
  std::vector<ControllerView> controller_views();
  // The node the leading controller names master of `group` (controller mode), if any.
  std::optional<std::string> named_master(const std::string& group);
  // The address of `group`'s master now: the named one in controller mode, else the group's node
  // or the slave promoted in its place.
  std::string master_addr(std::size_t group);
  void record_start(const std::string& node, int life);
  void look_at_clients();

  const scenario::Scenario& s_;
  RealRunOptions options_;
  std::shared_ptr<sim::History> history_;
  std::unique_ptr<Testbed> testbed_;
  // Relays for the links the scenario clogs (made before anything starts), and their clogs now.
  std::shared_ptr<Clogs> clogs_ = std::make_shared<Clogs>();
  std::vector<std::unique_ptr<DelayRelay>> relays_;
  std::set<std::pair<std::string, std::string>> relayed_;  // (from, to) pairs a relay carries
  std::vector<std::string> mounts_;  // the brokers' tmpfs stores, unmounted at stop()
  std::map<std::string, Daemon> daemons_;
  std::vector<std::string> namesrvs_, brokers_, controllers_;  // daemon names, in spec order
  std::set<std::string> promoted_;  // slaves promote_slave made masters
  std::map<std::string, Client> clients_;
  std::unique_ptr<ClientHost> observer_;
  std::set<std::string> retired_;
  scenario::RouteLog client_routes_;
  scenario::TakeLog takes_;
  std::mutex look_mu_;  // client_routes_ and takes_: a late visit may run beside the next
  std::chrono::steady_clock::time_point next_look_{};
  bool stopped_ = false;
};

// The production runtime's monotonic time now (std::chrono::steady_clock, SystemClock's), which
// every app of a real run records with: the runner's events share it.
MonoTime real_now();

// The size of a broker's tmpfs when the file gives no disk_capacity_bytes: room for the default
// index file (RocketMQ's 5,000,000 slots and 20,000,000 entries, about 420 MB, reserved up front)
// and the scenario's CommitLog and ConsumeQueue files.
inline constexpr std::uint64_t kTmpfsBytes = std::uint64_t{2} << 30;

// Unmounts what runs that died left mounted under /tmp/mqsim-real-* (their pid gone). Returns how
// many. (Testbed::sweep removes their namespaces.)
std::size_t sweep_mounts();

// libfaketime's multi-threaded library (Debian package faketime), "" when it is not installed.
std::string faketime_library();

// Why `s` cannot run on real processes: one sentence per reason (empty: it can).
std::vector<std::string> real_refusals(const scenario::Scenario& s);

}  // namespace ferry::sim::real
