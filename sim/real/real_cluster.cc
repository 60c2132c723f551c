#include "sim/real/real_cluster.h"

#include <signal.h>
#include <sys/statvfs.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <future>
#include <thread>

#include <fmt/format.h>

#include "broker/ha_role.h"
#include "sim/cluster/consumer_apps.h"
#include "sim/scenario/duration_text.h"
#include "sim/scenario/fault_registry.h"
#include "sim/scenario/target_alias.h"
#include "sim/real/host_command.h"

namespace ferry::sim::real {

namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

constexpr Duration kVisitTimeout = std::chrono::seconds(2);
constexpr Duration kAdminTimeout = std::chrono::seconds(15);
constexpr Duration kStopGrace = std::chrono::seconds(10);
constexpr const char* kObserverHost = "observer";

std::string flush_name(store::FlushMode f) { return f == store::FlushMode::sync_flush ? "SYNC_FLUSH" : "ASYNC_FLUSH"; }

}  // namespace

MonoTime real_now() {
  return MonoTime(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()));
}

namespace {

Clock::time_point after(Duration d) { return Clock::now() + std::chrono::duration_cast<Clock::duration>(d); }

Status write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  out.close();
  if (!out) return Error(Errc::io_error, fmt::format("cannot write {}", path));
  return Status();
}

Task<void> finish_job(Task<Status> job, std::shared_ptr<std::promise<Status>> done) {
  Status s = co_await std::move(job);
  done->set_value(std::move(s));
}

std::string join(const std::vector<std::string>& parts, const char* sep) {
  std::string out;
  for (const std::string& p : parts) {
    if (!out.empty()) out += sep;
    out += p;
  }
  return out;
}

}  // namespace

std::string faketime_library() {
  for (const char* path : {"/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1", "/usr/lib/aarch64-linux-gnu/faketime/libfaketimeMT.so.1",
                           "/usr/lib/faketime/libfaketimeMT.so.1"}) {
    std::error_code ec;
    if (fs::exists(path, ec)) return path;
  }
  return "";
}

namespace {

// The daemons (not clients) whose wall clock a scenario skews.
std::set<std::string> skewed_daemons(const scenario::Scenario& s) {
  std::set<std::string> clients;
  for (const scenario::ProducerScenario& p : s.producers) clients.insert(p.node);
  for (const scenario::ConsumerScenario& k : s.consumers) clients.insert(k.node);
  std::set<std::string> out;
  for (const scenario::FaultEntry& f : s.faults) {
    if (f.action != "skew_clock") continue;
    for (const std::string& t : f.targets) {
      if (clients.count(t) == 0) out.insert(t);
    }
  }
  return out;
}

}  // namespace

// The brokers whose store a file fills (fill_disk) or sizes (disk_capacity_bytes), with the size of
// the tmpfs each gets.
std::map<std::string, std::uint64_t> tmpfs_brokers(const scenario::Scenario& s) {
  std::map<std::string, std::uint64_t> out;
  for (const cluster::BrokerGroupSpec& g : s.cluster.brokers) {
    if (g.disk_capacity_bytes == 0) continue;
    out[g.name] = g.disk_capacity_bytes;
    for (std::size_t k = 1; k <= g.slaves; ++k) out[fmt::format("{}-s{}", g.name, k)] = g.disk_capacity_bytes;
  }
  for (const scenario::FaultEntry& f : s.faults) {
    if (f.action != "fill_disk") continue;
    for (const std::string& t : f.targets) out.try_emplace(t, kTmpfsBytes);
  }
  return out;
}

std::size_t sweep_mounts() {
  std::ifstream in("/proc/mounts");
  std::string line;
  std::vector<std::string> dead;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string device, dir;
    fields >> device >> dir;
    const std::string prefix = "/tmp/mqsim-real-";
    if (dir.rfind(prefix, 0) != 0) continue;
    // /tmp/mqsim-real-NAME-PID-seedN/...: the pid is the number before "-seed".
    const std::size_t seed = dir.find("-seed", prefix.size());
    if (seed == std::string::npos) continue;
    const std::size_t dash = dir.rfind('-', seed - 1);
    if (dash == std::string::npos) continue;
    const long pid = std::strtol(dir.c_str() + dash + 1, nullptr, 10);
    if (pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH)) continue;
    dead.push_back(dir);
  }
  std::size_t n = 0;
  for (const std::string& dir : dead) {
    if (run_host_command({find_program("umount"), "-l", dir}).ok()) ++n;
  }
  return n;
}

std::vector<std::string> real_refusals(const scenario::Scenario& s) {
  std::vector<std::string> why;
  if (!skewed_daemons(s).empty() && faketime_library().empty()) {
    why.emplace_back("skew_clock of a daemon needs libfaketime (Debian package faketime), which is not installed");
  }
  const broker::BrokerConfig defaults;
  for (const cluster::BrokerGroupSpec& g : s.cluster.brokers) {
    // broker.conf takes these from 1000 ms on (src/daemon/broker_conf.cc).
    if (g.controller_mode && g.config.controller_heartbeat_timeout < std::chrono::seconds(1)) {
      why.push_back(fmt::format("{}: controller_heartbeat_timeout below 1 s has no broker.conf value (controllerHeartBeatTimeoutMills >= 1000)", g.name));
    }
    if (g.config.ha.max_time_slave_not_catchup < std::chrono::seconds(1)) {
      why.push_back(fmt::format("{}: max_time_slave_not_catchup below 1 s has no broker.conf value (haMaxTimeSlaveNotCatchup >= 1000)", g.name));
    }
    if (g.config.rebalance_lock_max_live_time != defaults.rebalance_lock_max_live_time) {
      why.push_back(fmt::format("{}: rebalance_lock_max_live_time has no broker.conf key (RocketMQ reads it from a JVM "
                                "property)",
                                g.name));
    }
  }
  // One line per reason, however many entries share it.
  std::map<std::string, std::pair<std::string, std::size_t>> faults;  // reason -> (first entry, count)
  std::vector<std::string> order;
  auto note = [&](const scenario::FaultEntry& f, const std::string& reason) {
    const std::string key = f.action + ": " + reason;
    auto [it, fresh] = faults.try_emplace(key, fmt::format("at {} (line {})", scenario::format_duration(f.at), f.line), 0);
    if (fresh) order.push_back(key);
    ++it->second.second;
  };
  for (const scenario::FaultEntry& f : s.faults) {
    if (std::string r = scenario::real_refusal(f); !r.empty()) note(f, r);
  }
  for (const std::string& key : order) {
    const auto& [first, count] = faults.at(key);
    why.push_back(count == 1 ? fmt::format("[[faults]] {}: {}", first, key)
                             : fmt::format("[[faults]] {} and {} more: {}", first, count - 1, key));
  }
  return why;
}

RealCluster::RealCluster(const scenario::Scenario& s, RealRunOptions options, std::shared_ptr<sim::History> history)
    : s_(s), options_(std::move(options)), history_(history), client_routes_(history), takes_(history) {}

Result<std::unique_ptr<RealCluster>> RealCluster::create(const scenario::Scenario& s, RealRunOptions options,
                                                         std::shared_ptr<sim::History> history) {
  if (std::vector<std::string> why = real_refusals(s); !why.empty()) {
    return Error(Errc::unsupported, fmt::format("{} cannot run for real: {}", s.name, join(why, "; ")));
  }
  std::unique_ptr<RealCluster> c(new RealCluster(s, std::move(options), std::move(history)));
  std::vector<std::string> hosts;
  for (std::size_t i = 0; i < s.cluster.namesrvs; ++i) {
    c->namesrvs_.push_back(fmt::format("namesrv-{}", i));
    hosts.push_back(c->namesrvs_.back());
  }
  // Masters first, then each group's slaves: the simulated Cluster's order.
  std::vector<std::pair<std::size_t, std::int64_t>> brokers;
  for (std::size_t g = 0; g < s.cluster.brokers.size(); ++g) brokers.emplace_back(g, 0);
  for (std::size_t g = 0; g < s.cluster.brokers.size(); ++g) {
    for (std::size_t k = 1; k <= s.cluster.brokers[g].slaves; ++k) brokers.emplace_back(g, static_cast<std::int64_t>(k));
  }
  for (const auto& [g, id] : brokers) {
    const std::string& group = s.cluster.brokers[g].name;
    const std::string name = id == 0 ? group : fmt::format("{}-s{}", group, id);
    c->brokers_.push_back(name);
    hosts.push_back(name);
    Daemon d;
    d.broker = true;
    d.group = g;
    d.broker_id = id;
    c->daemons_.emplace(name, std::move(d));
  }
  for (const std::string& n : c->namesrvs_) c->daemons_.emplace(n, Daemon{});
  for (std::size_t i = 0; i < s.cluster.controllers; ++i) {
    c->controllers_.push_back(fmt::format("controller-{}", i));
    hosts.push_back(c->controllers_.back());
    Daemon d;
    d.controller = true;
    d.broker_id = static_cast<std::int64_t>(i);
    c->daemons_.emplace(c->controllers_.back(), std::move(d));
  }
  for (const scenario::ProducerScenario& p : s.producers) hosts.push_back(p.node);
  for (const scenario::ConsumerScenario& k : s.consumers) hosts.push_back(k.node);
  hosts.emplace_back(kObserverHost);
  std::error_code ec;
  fs::create_directories(c->options_.work_dir, ec);
  if (ec) return Error(Errc::io_error, fmt::format("cannot make {}: {}", c->options_.work_dir, ec.message()));
  auto testbed = Testbed::create(hosts);
  if (!testbed.ok()) return std::move(testbed).error();
  c->testbed_ = std::move(*testbed);
  // A relay on each end of every link the scenario ever clogs: connections either end opens go
  // through it from the start, so a clog applies to connections that are open when it comes.
  std::map<std::string, std::set<std::string>> peers;
  for (const scenario::FaultEntry& f : s.faults) {
    if (f.action != "clog") continue;
    for (const std::string& t : f.targets) {
      for (const std::string& p : f.peers) {
        peers[t].insert(p);
        peers[p].insert(t);
        c->relayed_.insert({t, p});
      }
    }
  }
  for (const auto& [host, with] : peers) {
    auto relay = DelayRelay::start(*c->testbed_, host, std::vector<std::string>(with.begin(), with.end()), c->clogs_);
    if (!relay.ok()) return std::move(relay).error();
    c->relays_.push_back(std::move(*relay));
  }
  FERRY_TRY(c->write_configs());
  return c;
}

RealCluster::~RealCluster() { (void)stop(); }

Status RealCluster::write_configs() {
  const std::set<std::string> skewed = skewed_daemons(s_);
  const std::map<std::string, std::uint64_t> tmpfs = tmpfs_brokers(s_);
  std::vector<std::string> namesrv_addrs;
  for (const std::string& n : namesrvs_) namesrv_addrs.push_back(fmt::format("{}:{}", testbed_->ip(n), kRealNamesrvPort));
  std::vector<std::string> controller_addrs, peers;
  for (std::size_t i = 0; i < controllers_.size(); ++i) {
    controller_addrs.push_back(fmt::format("{}:{}", testbed_->ip(controllers_[i]), kRealControllerPort));
    peers.push_back(fmt::format("n{}-{}", i, controller_addrs.back()));
  }
  for (auto& [name, d] : daemons_) {
    const std::string dir = options_.work_dir + "/" + name;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return Error(Errc::io_error, fmt::format("cannot make {}: {}", dir, ec.message()));
    d.data_dir = dir + "/store";
    // A store the file fills or sizes is a tmpfs of its own, whose size the runner sets (mount -o
    // remount,size=): a full disk the broker sees through statvfs and ENOSPC, as on a real one.
    if (auto t = tmpfs.find(name); t != tmpfs.end()) {
      fs::create_directories(d.data_dir, ec);
      auto mounted = run_host_command({find_program("mount"), "-t", "tmpfs", "-o", fmt::format("size={}", t->second), "tmpfs", d.data_dir});
      if (!mounted.ok()) return mounted.error();
      d.disk_bytes = t->second;
      mounts_.push_back(d.data_dir);
    }
    const std::string conf = dir + (d.broker ? "/broker.conf" : d.controller ? "/controller.conf" : "/namesrv.conf");
    std::string text;
    std::string program;
    if (d.controller) {
      // One member of the Raft quorum: its peers by id ("n0-ip:port;..."), itself, its data.
      const controller::ControllerConfig& cc = s_.cluster.controller_config;
      program = options_.bin_dir + "/mqcontroller";
      d.addr = controller_addrs.at(static_cast<std::size_t>(d.broker_id));
      text = fmt::format(
          "# {}: written by mqsim run --real from the scenario's [cluster]\n"
          "controllerDLegerGroup={}\ncontrollerDLegerPeers={}\ncontrollerDLegerSelfId=n{}\n"
          "scanNotActiveBrokerInterval={}\nenableElectUncleanMaster={}\nnotifyBrokerRoleChanged={}\ndataDir={}\n",
          name, cc.group, join(peers, ";"), d.broker_id, to_ms(cc.scan_not_active_broker_interval),
          cc.enable_elect_unclean_master, cc.notify_broker_role_changed, d.data_dir);
    } else if (!d.broker) {
      program = options_.bin_dir + "/mqnamesrv";
      d.addr = fmt::format("{}:{}", testbed_->ip(name), kRealNamesrvPort);
      text = fmt::format("# {}: written by mqsim run --real\nlistenPort={}\ndataDir={}\n", name, kRealNamesrvPort, d.data_dir);
    } else {
      program = options_.bin_dir + "/mqbroker";
      const cluster::BrokerGroupSpec& g = s_.cluster.brokers[d.group];
      const store::StoreConfig& st = g.store;
      d.addr = fmt::format("{}:{}", testbed_->ip(name), g.config.listen_port);
      const broker::BrokerRole role = d.broker_id == 0 ? g.role : broker::BrokerRole::slave;
      const store::FlushMode flush = d.broker_id == 0 ? g.flush : g.slave_flush.value_or(g.flush);
      text = fmt::format(
          "# {}: written by mqsim run --real from the scenario's [[brokers]] {}\n"
          "brokerClusterName={}\nbrokerName={}\nbrokerId={}\nbrokerRole={}\nflushDiskType={}\n"
          "namesrvAddr={}\nbrokerIP1={}\nlistenPort={}\nstorePathRootDir={}\n"
          "mappedFileSizeCommitLog={}\nmappedFileSizeConsumeQueue={}\nmaxMessageSize={}\nsyncFlushTimeout={}\n"
          "transactionTimeOut={}\ntransactionCheckMax={}\ntransactionCheckInterval={}\n",
          name, g.name, g.cluster, g.name, d.broker_id, broker::role_name(role), flush_name(flush), join(namesrv_addrs, ";"),
          testbed_->ip(name), g.config.listen_port, d.data_dir, st.commit_log_file_size_bytes,
          st.consume_queue_units_per_file * 20, st.message_size_max_bytes, to_ms(st.sync_flush_timeout),
          to_ms(g.config.transaction_timeout), g.config.transaction_check_max, to_ms(g.config.transaction_check_interval));
      if (g.controller_mode) {
        const broker::BrokerConfig& k = g.config;
        text += fmt::format(
            "enableControllerMode=true\ncontrollerAddr={}\nallAckInSyncStateSet={}\ninSyncReplicas={}\n"
            "minInSyncReplicas={}\ncontrollerHeartBeatTimeoutMills={}\nhaMaxTimeSlaveNotCatchup={}\nreadUnCommitted={}\n",
            join(controller_addrs, ";"), k.ha.all_ack_in_sync_state_set, k.ha.in_sync_replicas, k.min_in_sync_replicas,
            to_ms(k.controller_heartbeat_timeout), to_ms(k.ha.max_time_slave_not_catchup), k.read_uncommitted);
      }
    }
    FERRY_TRY(write_file(conf, text));
    // A daemon whose clock the file skews runs under libfaketime from its first life: its wall
    // clock reads the offset from a file of its own (re-read every second), its monotonic clock
    // stays real, as the simulator's skew_clock.
    std::vector<std::string> env;
    if (skewed.count(name) > 0) {
      d.faketime_file = dir + "/faketime";
      FERRY_TRY(write_file(d.faketime_file, "+0\n"));
      env = {"LD_PRELOAD=" + faketime_library(), "FAKETIME_TIMESTAMP_FILE=" + d.faketime_file, "FAKETIME_CACHE_DURATION=1",
             "FAKETIME_DONT_FAKE_MONOTONIC=1"};
    }
    d.process = std::make_unique<DaemonProcess>(name, std::vector<std::string>{program, "-c", conf}, testbed_->netns_fd(name),
                                                daemon_log(name), std::move(env));
  }
  return Status();
}

Status RealCluster::start_daemon(const std::string& name) {
  Daemon& d = daemons_.at(name);
  d.start_at.reset();
  d.stopped_by_us = false;
  FERRY_TRY(d.process->start());
  record_start(name, d.process->lives());
  return Status();
}

void RealCluster::record_start(const std::string& node, int life) {
  if (life < 2) return;
  history_->record_event(real_now(), sim::EventKind::start, node,
                         fmt::format("started again (life {})", life));
}

Status RealCluster::boot(Duration limit) {
  const Clock::time_point deadline = after(limit);
  for (const std::string& n : controllers_) FERRY_TRY(start_daemon(n));
  for (const std::string& n : namesrvs_) FERRY_TRY(start_daemon(n));
  ObserverSetup setup;
  for (const std::string& n : controllers_) {
    setup.controller_names.push_back(n);
    setup.controller_addrs.push_back(daemons_.at(n).addr);
  }
  for (const cluster::BrokerGroupSpec& g : s_.cluster.brokers) {
    if (g.controller_mode) setup.controller_groups.push_back(g.name);
  }
  for (const std::string& b : brokers_) {
    const Daemon& d = daemons_.at(b);
    const cluster::BrokerGroupSpec& g = s_.cluster.brokers[d.group];
    if (g.controller_mode) setup.controller_brokers.emplace(b, ObserverSetup::WatchedBroker{d.addr, g.name});
  }
  setup.namesrv_names = namesrvs_;
  for (const std::string& n : namesrvs_) setup.namesrv_addrs.push_back(daemons_.at(n).addr);
  for (const std::string& b : brokers_) setup.broker_by_addr.emplace(daemons_.at(b).addr, b);
  setup.topics = s_.cluster.topics;
  for (const scenario::ConsumerScenario& k : s_.consumers) setup.groups.insert(k.spec.group);
  setup.client_ip = testbed_->ip(kObserverHost);
  auto history = history_;
  observer_ = std::make_unique<ClientHost>(
      kObserverHost, testbed_->netns_fd(kObserverHost), options_.work_dir + "/" + kObserverHost, testbed_->ip(kObserverHost),
      [setup, history](Runtime& rt) {
        auto o = std::make_unique<ObserverApp>(rt, setup, history);
        o->start_watching_controllers();
        o->start_watching();
        return std::unique_ptr<NodeProcess>(std::move(o));
      },
      options_.client_log);
  FERRY_TRY(observer_->start());
  auto exited = [this]() -> Status {
    for (auto& [name, d] : daemons_) {
      if (d.process->lives() > 0 && !d.process->running()) {
        return Error(Errc::io_error, fmt::format("boot: {} exited ({}); its log: {}", name, d.process->last_exit(), daemon_log(name)));
      }
    }
    return Status();
  };
  // The NameServers answer before the brokers start: a broker that finds none registers only at
  // its next round, 30 s later (registerNameServerPeriod).
  for (;;) {
    const std::vector<NamesrvView> views = namesrv_views();
    bool all = views.size() == namesrvs_.size();
    for (const NamesrvView& v : views) all = all && v.answered;
    if (all) break;
    FERRY_TRY(exited());
    if (Clock::now() > deadline) return Error(Errc::timed_out, "boot: the NameServers do not answer");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  // A controller leads before the brokers ask for their roles.
  while (!controllers_.empty()) {
    bool led = false;
    for (const ControllerView& v : controller_views()) led = led || v.leader;
    if (led) break;
    FERRY_TRY(exited());
    if (Clock::now() > deadline) return Error(Errc::timed_out, "boot: no controller leads the Raft group");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  for (const std::string& b : brokers_) FERRY_TRY(start_daemon(b));
  // Every NameServer knows every broker.
  auto registered = [this]() -> std::optional<std::string> {
    const std::vector<NamesrvView> views = namesrv_views();
    if (views.size() != namesrvs_.size()) return std::string("the observer is not up");
    for (std::size_t i = 0; i < views.size(); ++i) {
      if (!views[i].answered) return fmt::format("{} did not answer", namesrvs_[i]);
      for (const std::string& b : brokers_) {
        const Daemon& d = daemons_.at(b);
        const std::string& group = s_.cluster.brokers[d.group].name;
        auto it = views[i].cluster.broker_addr_table.find(group);
        bool known = false;
        if (it != views[i].cluster.broker_addr_table.end()) {
          // By address: in controller mode the controllers give the ids.
          for (const auto& [id, addr] : it->second.broker_addrs) known = known || addr == d.addr;
        }
        if (!known) return fmt::format("{} does not know {} yet", namesrvs_[i], b);
      }
    }
    // Each controller-mode group has the master the controllers named, registered as such.
    for (const cluster::BrokerGroupSpec& g : s_.cluster.brokers) {
      if (!g.controller_mode) continue;
      const std::optional<std::string> m = named_master(g.name);
      if (!m) return fmt::format("the controllers named no master of {} yet", g.name);
      for (std::size_t i = 0; i < views.size(); ++i) {
        auto it = views[i].cluster.broker_addr_table.find(g.name);
        if (it == views[i].cluster.broker_addr_table.end() || it->second.broker_addrs.count(0) == 0 ||
            it->second.broker_addrs.at(0) != daemons_.at(*m).addr) {
          return fmt::format("{} does not know {} as the master of {} yet", namesrvs_[i], *m, g.name);
        }
      }
    }
    return std::nullopt;
  };
  for (;;) {
    const std::optional<std::string> pending = registered();
    if (!pending) break;
    FERRY_TRY(exited());
    if (Clock::now() > deadline) return Error(Errc::timed_out, "boot: " + *pending);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  // The topics, on every master (a slave copies its master's).
  for (std::size_t gi = 0; gi < s_.cluster.brokers.size(); ++gi) {
    const cluster::BrokerGroupSpec& g = s_.cluster.brokers[gi];
    const std::string addr = master_addr(gi);
    for (const cluster::TopicSpec& t : s_.cluster.topics) {
      const remoting::body::TopicConfig tc = cluster::topic_config(t);
      FERRY_TRY(admin(fmt::format("create topic {} on {}", t.name, g.name),
                      [addr, tc](client::AdminClient& a) { return a.create_topic(addr, tc); }, kAdminTimeout));
    }
  }
  for (const cluster::TopicSpec& t : s_.cluster.topics) {
    const cluster::Convergence routed = routes_converged(t.name);
    for (;;) {
      const std::optional<std::string> pending = routed.pending();
      if (!pending) break;
      if (Clock::now() > deadline) return Error(Errc::timed_out, "boot: " + *pending);
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  return Status();
}

Status RealCluster::add_client(const std::string& name, const cluster::ClientFactory& factory) {
  if (!testbed_->has(name)) return Error(Errc::invalid_argument, fmt::format("no client host {}", name));
  auto [it, fresh] = clients_.try_emplace(name);
  if (!fresh) return Error(Errc::invalid_argument, fmt::format("client {} added twice", name));
  client::ClientConfig cc;
  for (const std::string& n : namesrvs_) cc.namesrv_addrs.push_back(daemons_.at(n).addr);
  cc.instance_name = name;
  cc.client_ip = testbed_->ip(name);
  it->second.host = std::make_unique<ClientHost>(
      name, testbed_->netns_fd(name), options_.work_dir + "/" + name, testbed_->ip(name),
      [factory, cc](Runtime& rt) { return factory(rt, cc); }, options_.client_log);
  return it->second.host->start();
}

void RealCluster::tick() {
  const Clock::time_point now = Clock::now();
  for (auto& [name, d] : daemons_) {
    if (d.start_at && *d.start_at <= now) {
      if (Status s = start_daemon(name); !s.ok()) {
        history_->record_event(real_now(), sim::EventKind::fault, name, "could not start: " + s.error().to_string());
      }
      continue;
    }
    // The supervisor (systemd's Restart=on-failure): a daemon that exited by itself comes back.
    if (d.process->lives() > 0 && !d.stopped_by_us && !d.start_at && retired_.count(name) == 0 && !d.process->running()) {
      history_->record_event(real_now(), sim::EventKind::crash, name,
                             fmt::format("exited by itself ({}); the supervisor starts it again in {}", d.process->last_exit(),
                                         scenario::format_duration(cluster::kSupervisorRestartDelay)));
      d.start_at = after(cluster::kSupervisorRestartDelay);
    }
  }
  for (auto& [name, c] : clients_) {
    if (c.start_at && *c.start_at <= now) {
      c.start_at.reset();
      if (!c.host->running()) {
        (void)c.host->start();
        history_->record_event(real_now(), sim::EventKind::start, name, "started again");
      }
    }
  }
  if (now >= next_look_) {
    next_look_ = now + std::chrono::duration_cast<Clock::duration>(sim::kObserveEvery);
    look_at_clients();
  }
}

void RealCluster::look_at_clients() {
  for (auto& [name, c] : clients_) {
    if (c.host->paused()) continue;
    const std::string n = name;
    c.host->visit(
        [this, n](NodeProcess& p) {
          auto* app = dynamic_cast<cluster::ClientApp*>(&p);
          if (app == nullptr) return;
          const std::lock_guard<std::mutex> g(look_mu_);
          client_routes_.record_client(real_now(), n, app->client_instance(), s_.cluster.topics);
          takes_.look(real_now(), n, *app);
        },
        kVisitTimeout);
  }
}

std::vector<NamesrvView> RealCluster::namesrv_views() {
  auto out = std::make_shared<std::vector<NamesrvView>>();
  if (!observer_ || !observer_->visit(
                        [out](NodeProcess& p) {
                          auto& o = static_cast<ObserverApp&>(p);
                          for (std::size_t i = 0; i < o.namesrv_count(); ++i) out->push_back(o.view(i));
                        },
                        kVisitTimeout)) {
    return {};
  }
  return *out;
}

std::vector<ControllerView> RealCluster::controller_views() {
  auto out = std::make_shared<std::vector<ControllerView>>();
  if (!observer_ || !observer_->visit(
                        [out](NodeProcess& p) {
                          auto& o = static_cast<ObserverApp&>(p);
                          for (std::size_t i = 0; i < o.controller_count(); ++i) out->push_back(o.controller_view(i));
                        },
                        kVisitTimeout)) {
    return {};
  }
  return *out;
}

std::optional<std::string> RealCluster::named_master(const std::string& group) {
  for (const ControllerView& v : controller_views()) {
    if (!v.answered || !v.leader) continue;
    auto it = v.groups.find(group);
    if (it == v.groups.end() || it->second.master.empty() || daemons_.count(it->second.master) == 0) return std::nullopt;
    return it->second.master;
  }
  return std::nullopt;
}

std::string RealCluster::master_addr(std::size_t group) {
  const cluster::BrokerGroupSpec& g = s_.cluster.brokers.at(group);
  if (g.controller_mode) {
    if (const std::optional<std::string> m = named_master(g.name)) return daemons_.at(*m).addr;
  }
  for (const std::string& p : promoted_) {
    const Daemon& d = daemons_.at(p);
    if (d.group == group && d.process->running()) return d.addr;
  }
  return daemons_.at(g.name).addr;
}

Result<std::string> RealCluster::resolve_alias(std::string_view alias) {
  if (alias == "controller:leader") {
    const std::vector<ControllerView> views = controller_views();
    for (std::size_t i = 0; i < views.size() && i < controllers_.size(); ++i) {
      if (views[i].answered && views[i].leader && daemons_.at(controllers_[i]).process->running()) return controllers_[i];
    }
    return Error(Errc::not_found, "controller:leader: no controller is the leader now");
  }
  const bool master = alias.substr(0, 7) == "master:";
  const std::string group(alias.substr(master ? 7 : 6));
  std::optional<std::size_t> gi;
  for (std::size_t g = 0; g < s_.cluster.brokers.size(); ++g) {
    if (s_.cluster.brokers[g].name == group) gi = g;
  }
  if (!gi) return Error(Errc::invalid_argument, fmt::format("\"{}\": no broker group named \"{}\"", alias, group));
  auto running = [this](const std::string& node) { return daemons_.at(node).process->running(); };
  std::optional<std::string> m;
  if (s_.cluster.brokers[*gi].controller_mode) {
    m = named_master(group);
  } else {
    for (const std::string& p : promoted_) {
      if (daemons_.at(p).group == *gi && running(p)) m = p;
    }
    if (!m && retired_.count(group) == 0) m = group;
  }
  if (m && !running(*m)) m.reset();
  if (master) {
    if (!m) return Error(Errc::not_found, fmt::format("{}: group {} has no running master now", alias, group));
    return *m;
  }
  std::optional<std::string> best;
  for (const std::string& b : brokers_) {
    const Daemon& d = daemons_.at(b);
    if (d.group != *gi || b == m || !running(b)) continue;
    if (!best || b < *best) best = b;
  }
  if (!best) return Error(Errc::not_found, fmt::format("{}: group {} has no running slave now", alias, group));
  return *best;
}

Status RealCluster::admin(const std::string& what, std::function<Task<Status>(client::AdminClient&)> job, Duration limit) {
  auto done = std::make_shared<std::promise<Status>>();
  std::future<Status> result = done->get_future();
  const bool posted = observer_ && observer_->visit(
                                       [job, done](NodeProcess& p) {
                                         auto& o = static_cast<ObserverApp&>(p);
                                         o.runtime().spawn(finish_job(job(o.admin()), done), "operator");
                                       },
                                       limit);
  if (!posted) return Error(Errc::timed_out, what + ": the observer did not take the command");
  if (result.wait_for(limit) != std::future_status::ready) {
    return Error(Errc::timed_out, fmt::format("{}: no answer within {}", what, scenario::format_duration(limit)));
  }
  Status s = result.get();
  if (!s.ok()) return Error(s.error().code, fmt::format("{}: {}", what, s.error().detail));
  return s;
}

Status RealCluster::stop() {
  if (stopped_) return Status();
  stopped_ = true;
  for (auto& [name, c] : clients_) c.host->kill();
  if (observer_) observer_->kill();
  for (auto& [name, d] : daemons_) {
    if (d.process) d.process->terminate(kStopGrace);
  }
  for (auto& r : relays_) r->stop();
  Status first;
  for (const std::string& dir : mounts_) {
    auto r = run_host_command({find_program("umount"), dir});
    if (!r.ok()) r = run_host_command({find_program("umount"), "-l", dir});
    if (!r.ok() && first.ok()) first = r.error();
  }
  mounts_.clear();
  Status removed = testbed_ ? testbed_->remove() : Status();
  return first.ok() ? removed : first;
}

// ---- liveness ------------------------------------------------------------------------------

cluster::Convergence RealCluster::brokers_running() {
  return cluster::Convergence{"brokers running", [this]() -> std::optional<std::string> {
                                const std::vector<NamesrvView> views = namesrv_views();
                                for (const std::string& b : brokers_) {
                                  if (retired_.count(b) > 0) continue;
                                  Daemon& d = daemons_.at(b);
                                  if (!d.process->running()) return b + " is down";
                                  const std::string& group = s_.cluster.brokers[d.group].name;
                                  for (std::size_t i = 0; i < views.size(); ++i) {
                                    auto it = views[i].cluster.broker_addr_table.find(group);
                                    bool known = false;
                                    if (it != views[i].cluster.broker_addr_table.end()) {
                                      for (const auto& [id, addr] : it->second.broker_addrs) known = known || addr == d.addr;
                                    }
                                    if (!known) return fmt::format("{} is not registered with {}", b, namesrvs_[i]);
                                  }
                                }
                                return std::nullopt;
                              }};
}

cluster::Convergence RealCluster::routes_converged(const std::string& topic) {
  return cluster::Convergence{"routes of " + topic, [this, topic]() -> std::optional<std::string> {
                                const std::vector<NamesrvView> views = namesrv_views();
                                if (views.size() != namesrvs_.size()) return std::string("the observer did not answer");
                                for (std::size_t i = 0; i < views.size(); ++i) {
                                  if (!views[i].answered) return fmt::format("{} did not answer", namesrvs_[i]);
                                  auto route = views[i].routes.find(topic);
                                  for (const cluster::BrokerGroupSpec& g : s_.cluster.brokers) {
                                    bool found = false;
                                    if (route != views[i].routes.end()) {
                                      for (const auto& q : route->second.queue_datas) found = found || q.broker_name == g.name;
                                    }
                                    if (!found) return fmt::format("{} has no route of {} to {}", namesrvs_[i], topic, g.name);
                                  }
                                }
                                return std::nullopt;
                              }};
}

cluster::Convergence RealCluster::producers_done(std::vector<std::string> producers) {
  return cluster::Convergence{"producers done", [this, producers]() -> std::optional<std::string> {
                                const auto held = history_->hold();
                                for (const std::string& p : producers) {
                                  std::uint64_t messages = 0;
                                  for (const scenario::ProducerScenario& ps : s_.producers) {
                                    if (ps.node == p) messages = ps.spec.messages;
                                  }
                                  auto it = history_->next_seq.find(p);
                                  if (it == history_->next_seq.end() || it->second < messages) return p + " has not finished";
                                  for (const sim::SendRecord& r : history_->sends) {
                                    if (r.producer == p && r.done_at == MonoTime{}) return p + " has sends in flight";
                                  }
                                }
                                return std::nullopt;
                              }};
}

cluster::Convergence RealCluster::consumers_assigned(const std::string& topic, std::vector<std::string> consumers, bool broadcast) {
  return cluster::Convergence{cluster::assignment_name(topic, broadcast), [this, topic, consumers, broadcast]() -> std::optional<std::string> {
                                std::vector<cluster::HeldQueues> held;
                                for (const std::string& n : consumers) {
                                  auto it = clients_.find(n);
                                  auto queues = std::make_shared<std::optional<std::vector<MessageQueue>>>();
                                  if (it != clients_.end()) {
                                    it->second.host->visit(
                                        [queues](NodeProcess& p) {
                                          if (auto* k = dynamic_cast<cluster::ConsumerNode*>(&p)) *queues = k->held_queues();
                                        },
                                        kVisitTimeout);
                                  }
                                  held.push_back(cluster::HeldQueues{n, *queues});
                                }
                                return cluster::assignment_gap(s_.cluster, topic, held, broadcast);
                              }};
}

// ---- faults --------------------------------------------------------------------------------

Status RealCluster::kill(const std::string& node) {
  if (auto it = daemons_.find(node); it != daemons_.end()) {
    it->second.stopped_by_us = true;
    it->second.start_at.reset();
    it->second.process->kill();
    return Status();
  }
  if (auto it = clients_.find(node); it != clients_.end()) {
    it->second.start_at.reset();
    it->second.host->kill();
    return Status();
  }
  return Error(Errc::invalid_argument, fmt::format("kill: no node {}", node));
}

Status RealCluster::start_after(const std::string& node, Duration delay) {
  if (auto it = daemons_.find(node); it != daemons_.end()) {
    it->second.start_at = after(delay);
    return Status();
  }
  if (auto it = clients_.find(node); it != clients_.end()) {
    it->second.start_at = after(delay);
    return Status();
  }
  return Error(Errc::invalid_argument, fmt::format("start: no node {}", node));
}

Status RealCluster::wipe(const std::string& node) {
  std::string dir;
  if (auto it = daemons_.find(node); it != daemons_.end()) {
    if (it->second.process->running()) return Error(Errc::invalid_argument, fmt::format("wipe_disk: {} is up; kill it first", node));
    dir = it->second.data_dir;
  } else if (auto c = clients_.find(node); c != clients_.end()) {
    if (c->second.host->running()) return Error(Errc::invalid_argument, fmt::format("wipe_disk: {} is up; kill it first", node));
    dir = options_.work_dir + "/" + node;
  } else {
    return Error(Errc::invalid_argument, fmt::format("wipe_disk: no node {}", node));
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (ec) return Error(Errc::io_error, fmt::format("wipe_disk: {}: {}", dir, ec.message()));
  return Status();
}

Status RealCluster::pause(const std::string& node) {
  if (auto it = daemons_.find(node); it != daemons_.end()) {
    it->second.process->pause();
    return Status();
  }
  if (auto it = clients_.find(node); it != clients_.end()) {
    it->second.host->pause();
    return Status();
  }
  return Error(Errc::invalid_argument, fmt::format("pause: no node {}", node));
}

Status RealCluster::resume(const std::string& node) {
  if (auto it = daemons_.find(node); it != daemons_.end()) {
    if (it->second.process->paused()) it->second.process->resume();
    return Status();
  }
  if (auto it = clients_.find(node); it != clients_.end()) {
    it->second.host->resume();
    return Status();
  }
  return Error(Errc::invalid_argument, fmt::format("resume: no node {}", node));
}

Status RealCluster::cut(const std::string& from, const std::string& to) { return testbed_->cut(from, to); }
Status RealCluster::uncut(const std::string& from, const std::string& to) { return testbed_->uncut(from, to); }
Status RealCluster::darken(const std::string& node) { return testbed_->darken(node); }

Status RealCluster::skew_clock(const std::string& node, Duration skew) {
  const std::int64_t delta = to_ms(skew);
  if (auto it = daemons_.find(node); it != daemons_.end()) {
    Daemon& d = it->second;
    if (d.faketime_file.empty()) return Error(Errc::invalid_argument, fmt::format("skew_clock: {} runs without libfaketime", node));
    d.skew_ms += delta;
    // libfaketime's relative offset in seconds; written whole, then renamed over the old one.
    const std::string tmp = d.faketime_file + ".new";
    FERRY_TRY(write_file(tmp, fmt::format("{}{}.{:03}\n", d.skew_ms < 0 ? "-" : "+", std::abs(d.skew_ms) / 1000, std::abs(d.skew_ms) % 1000)));
    std::error_code ec;
    fs::rename(tmp, d.faketime_file, ec);
    if (ec) return Error(Errc::io_error, fmt::format("skew_clock: {}: {}", d.faketime_file, ec.message()));
    return Status();
  }
  if (auto it = clients_.find(node); it != clients_.end()) {
    it->second.host->skew_wall_clock(delta);
    return Status();
  }
  return Error(Errc::invalid_argument, fmt::format("skew_clock: no node {}", node));
}

namespace {

// Sets the tmpfs at `dir` to `bytes` (whole pages; not below what it holds: the kernel refuses).
Status resize_tmpfs(const std::string& dir, std::uint64_t bytes) {
  auto r = run_host_command({find_program("mount"), "-o", fmt::format("remount,size={}", bytes), dir});
  if (!r.ok()) return r.error();
  return Status();
}

}  // namespace

Status RealCluster::fill_disk(const std::string& node, std::int64_t free_bytes) {
  auto it = daemons_.find(node);
  if (it == daemons_.end() || it->second.disk_bytes == 0) {
    return Error(Errc::invalid_argument, fmt::format("fill_disk: {} has no disk of the runner's", node));
  }
  struct statvfs st {};
  if (statvfs(it->second.data_dir.c_str(), &st) != 0) {
    return Error(Errc::io_error, fmt::format("fill_disk: statvfs {}: {}", it->second.data_dir, std::strerror(errno)));
  }
  const std::uint64_t page = 4096;
  const std::uint64_t used = static_cast<std::uint64_t>(st.f_blocks - st.f_bfree) * st.f_frsize;
  const std::uint64_t size = (used + static_cast<std::uint64_t>(free_bytes) + page - 1) / page * page;
  FERRY_TRY(resize_tmpfs(it->second.data_dir, std::max(size, page)));
  it->second.disk_filled = true;
  return Status();
}

Status RealCluster::restore_disk(const std::string& node) {
  auto it = daemons_.find(node);
  if (it == daemons_.end() || it->second.disk_bytes == 0 || !it->second.disk_filled) return Status();
  FERRY_TRY(resize_tmpfs(it->second.data_dir, it->second.disk_bytes));
  it->second.disk_filled = false;
  return Status();
}

Status RealCluster::clog(const std::string& from, const std::string& to, Duration extra) {
  if (relayed_.count({from, to}) == 0) {
    return Error(Errc::invalid_argument, fmt::format("clog: no relay carries {} -> {} (the scenario's clog entries set them up)", from, to));
  }
  clogs_->set(from, to, extra);
  return Status();
}
Status RealCluster::undarken(const std::string& node) { return testbed_->undarken(node); }

Status RealCluster::promote_slave(const std::string& node, const std::string& role) {
  auto it = daemons_.find(node);
  if (it == daemons_.end() || !it->second.broker || it->second.broker_id == 0) {
    return Error(Errc::invalid_argument, fmt::format("promote_slave: {} is not a slave", node));
  }
  if (!it->second.process->running()) return Error(Errc::invalid_argument, fmt::format("promote_slave: broker {} is not running", node));
  const cluster::BrokerGroupSpec& g = s_.cluster.brokers[it->second.group];
  const std::string to = role.empty() ? std::string(broker::role_name(g.role)) : role;
  // The operator's procedure (docs/operations.md): the old master is gone for good.
  retire(g.name);
  promoted_.insert(node);
  const std::string addr = it->second.addr;
  return admin(fmt::format("promote {} to {}", node, to), [addr, to](client::AdminClient& a) { return a.promote_slave(addr, to); },
               kAdminTimeout);
}

Status RealCluster::update_topic(const std::string& broker, const std::string& topic, std::int32_t queues) {
  auto it = daemons_.find(broker);
  if (it == daemons_.end() || !it->second.broker) return Error(Errc::invalid_argument, fmt::format("update_topic: {} is not a broker", broker));
  const cluster::TopicSpec* spec = cluster::find_topic(s_.cluster, topic);
  if (spec == nullptr) return Error(Errc::invalid_argument, fmt::format("update_topic: {} is not a topic of the cluster", topic));
  // The group's master now: the named broker, the slave promoted in its place, or the one the
  // controllers named.
  const std::string addr = master_addr(it->second.group);
  const remoting::body::TopicConfig tc = cluster::topic_config(*spec, queues);
  return admin(fmt::format("update topic {} on {}", topic, broker), [addr, tc](client::AdminClient& a) { return a.create_topic(addr, tc); },
               kAdminTimeout);
}

Status RealCluster::heal_all() {
  Status first = testbed_->heal_all();
  clogs_->clear();
  for (const auto& [name, d] : daemons_) {
    if (Status s = restore_disk(name); !s.ok() && first.ok()) first = s;
  }
  for (auto& [name, d] : daemons_) {
    if (d.process->paused()) d.process->resume();
    if (retired_.count(name) == 0 && !d.process->running()) d.start_at = Clock::now();
  }
  for (auto& [name, c] : clients_) {
    c.host->resume();
    if (retired_.count(name) == 0 && !c.host->running()) c.start_at = Clock::now();
  }
  tick();
  return first;
}

std::vector<std::string> RealCluster::daemon_names() const {
  std::vector<std::string> out;
  for (const auto& [name, d] : daemons_) out.push_back(name);
  return out;
}

std::string RealCluster::describe_network() const {
  std::string out = "links: nftables drops in each host's namespace (partitions, silence)";
  if (!relays_.empty()) {
    std::uint64_t relayed = 0;
    for (const auto& r : relays_) relayed += r->connections();
    out += fmt::format("; clogs: the runner's delaying relay on {} hosts (no netem here), {} connections through it", relays_.size(), relayed);
  }
  return out + "; processes: SIGKILL, SIGSTOP/SIGCONT";
}

}  // namespace ferry::sim::real
