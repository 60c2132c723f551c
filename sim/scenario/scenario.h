// Scenario: one failure story for the simulator as plain data — the cluster, the workload, an
// explicit fault schedule, the run length, the liveness phase and the checks — which the runner
// (`mqsim run`) executes: build the Cluster, add the client nodes, run the fault schedule
// (fault_schedule.h) for `run.length`, then the liveness phase, then judge with the checks.
//
// parse_scenario() (scenario_parser.h) makes one from a TOML file; docs/scenarios.md describes
// every key and its default. Every field below has the default the file format documents, so a
// default-constructed Scenario is a valid, tiny run (one NameServer, one ASYNC_FLUSH master, no
// topics, no clients, no faults).
//
// Node names are the harness's (sim/cluster/cluster.h): "namesrv-0", "namesrv-1", ... for
// NameServers; the group's name ("broker-a") for its master, "broker-a-s1" for its first slave;
// each producer's and consumer's `node` for the client nodes the runner adds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "broker/broker_config.h"
#include "runtime/time.h"
#include "sim/check/history.h"
#include "sim/cluster/cluster_spec.h"
#include "sim/cluster/workload.h"
#include "sim/ids.h"
#include "sim/options.h"

namespace ferry::sim::scenario {

// ---- bounds --------------------------------------------------------------------------------

// What one file may declare. Nodes get addresses 127.0.0.<10+id>, so a world holds about 240:
// 8 NameServers + 16 groups of 5 brokers + 64 producers + 64 consumers stay well inside.
inline constexpr std::size_t kBrokerGroupsMax = 16;
inline constexpr std::size_t kTopicsMax = 256;
inline constexpr std::size_t kProducersMax = 64;
inline constexpr std::size_t kConsumersMax = 64;
inline constexpr std::size_t kFaultsMax = 10'000;
inline constexpr std::size_t kScenarioTextBytesMax = 1 << 20;
inline constexpr std::int32_t kQueuesMax = 1024;  // a topic's queues on one group

// ---- workload ------------------------------------------------------------------------------

struct ProducerScenario {
  std::string node;       // the client node's name ("producer-0", ...)
  Duration start_at{};    // virtual time at which the runner adds the node
  // group, topic, messages, interval, body_bytes, keys, ordered, and the ProducerConfig
  // (send_latency_fault_enable, retries, send timeout).
  cluster::ProducerSpec spec;
};

enum class ConsumerKind : std::uint8_t { push, lite_pull };
enum class ConsumeMode : std::uint8_t { concurrently, orderly };
const char* consumer_kind_name(ConsumerKind k);
const char* consume_mode_name(ConsumeMode m);

struct ConsumerScenario {
  std::string node;  // the client node's name ("consumer-0", ...)
  Duration start_at{};
  // The node leaves for good at this time (the runner kills it: the broker sees its connections
  // close and the group rebalances; the liveness heal leaves it down); unset = runs on.
  std::optional<Duration> stop_at;
  ConsumerKind kind = ConsumerKind::push;
  ConsumeMode mode = ConsumeMode::concurrently;
  // group, topic, expression; spec.config.message_model and consume_from_where are set from the
  // file (the rest of the PushConsumerConfig keeps RocketMQ's defaults).
  cluster::ConsumerSpec spec;
};

// ---- faults --------------------------------------------------------------------------------

enum class FaultAction : std::uint8_t {
  kill,               // process kill (page cache survives); with duration: started again after it
  power_off,          // power loss (unsynced data lost or torn); with duration: started again
  restart,            // crash (kind) and start after duration (default 0), optionally wiped
  silence,            // the host goes dark, its process runs on; with duration: back after it
  pause,              // the node's events are held; with duration: resumed after it
  resume,             // ends a pause
  partition,          // cut both directions between every target and every peer; duration: heal
  partition_one_way,  // packets from targets to peers are dropped; duration: heal
  isolate,            // every link of the targets cut (same effect as silence); duration: rejoin
  heal,               // heal the links between targets and peers (both directions)
  heal_all,           // Cluster::heal_all() and every filled disk restored: no targets
  clog,               // extra latency from targets to peers; duration: unclogged after it
  skew_clock,         // the targets' wall clocks jump by `skew` (kept: a property of the machine)
  wipe_disk,          // the targets' disks are emptied (the node must be down: kill it first)
  fill_disk,          // the targets' disks are full but `free_bytes`; duration: capacity restored
  promote_slave,      // the operator promotes the target slave to master (`role`); the old master
                      // is retired: the liveness phase does not start it again
  update_topic,       // the operator changes `topic`'s queue count to `queues` on the target masters
                      // (UPDATE_AND_CREATE_TOPIC, as mqadmin updateTopic)
  slow_disk,          // every sync of the targets' disks takes `latency` more; duration: restored
  lying_disk,         // the targets' disks report syncs done without making anything durable
                      // (DiskOptions::lying_sync); duration: honest again after it
};
inline constexpr std::uint8_t kFaultActionMax = static_cast<std::uint8_t>(FaultAction::lying_disk);
const char* fault_action_name(FaultAction a);
std::optional<FaultAction> parse_fault_action(std::string_view name);

// What an action takes besides `at`, `action` and `target`.
struct ActionKeys {
  bool targets = true;    // needs targets (heal_all takes none)
  bool peers = false;     // needs peers
  bool duration = false;  // may have a duration
  const char* extra = "";  // its own keys, comma-separated ("kind,wipe"; "" = none)
};
ActionKeys action_keys(FaultAction a);
bool action_takes(const ActionKeys& keys, std::string_view key);  // `key` is one of keys.extra

struct FaultEntry {
  Duration at{};  // virtual time since the start of the run (after boot)
  FaultAction action = FaultAction::kill;
  std::vector<std::string> targets;  // node names; empty only for heal_all
  std::vector<std::string> peers;    // partition, partition_one_way, heal, clog: the other side
  // How long the fault lasts before it is undone (see FaultAction); unset = until the liveness
  // phase heals it. restart: the downtime (unset = 0).
  std::optional<Duration> duration;
  CrashKind kind = CrashKind::process_kill;  // restart: how the node goes down
  bool wipe = false;                         // restart: wipe the disk while down
  Duration latency{};                        // clog, slow_disk: the extra latency (> 0)
  std::int64_t skew_ms = 0;                  // skew_clock: the jump of the wall clock
  std::uint64_t free_bytes = 0;              // fill_disk: what is left free
  // promote_slave: the role the slave takes; unset = its group's configured master role.
  std::optional<broker::BrokerRole> role;
  std::string topic;        // update_topic: a topic of the scenario
  std::int32_t queues = 0;  // update_topic: its new read and write queue count
  int line = 0;  // the entry's line in the file, for messages
};

// ---- run, liveness, checks -----------------------------------------------------------------

struct RunSettings {
  Duration length = std::chrono::seconds(60);  // virtual time from boot to the liveness phase
  // Draw buggify and fault probabilities from each seed (sim::swarm_options(seed)); off: the
  // world's defaults, no buggify, only the scheduled faults.
  bool swarm = false;
};

// The built-in requirements of the liveness phase (sim/cluster/cluster.h and workload.h).
enum class Requirement : std::uint8_t {
  brokers_running,     // every broker node running
  routes_converged,    // every NameServer routes every topic to every group
  producers_done,      // every producer sent all its messages
  all_acked_consumed,  // every acknowledged message consumed, intact, by every consumer group
  consumers_assigned,  // every queue of a clustering group held by exactly one live member
};
inline constexpr std::uint8_t kRequirementMax = static_cast<std::uint8_t>(Requirement::consumers_assigned);
const char* requirement_name(Requirement r);

struct LivenessSettings {
  bool enabled = true;
  // After heal_all(), every requirement must hold within this bound.
  Duration bound = std::chrono::seconds(120);
  std::vector<Requirement> require = {Requirement::brokers_running, Requirement::routes_converged,
                                      Requirement::producers_done, Requirement::all_acked_consumed,
                                      Requirement::consumers_assigned};
};

// How acknowledged-but-lost messages are judged.
enum class LostMode : std::uint8_t {
  strict,  // any loss fails the run (SYNC_FLUSH + SYNC_MASTER promise none)
  report,  // the loss is measured and printed, not a failure (async modes)
  off,
};
const char* lost_mode_name(LostMode m);

// A named check with its own options ([checks.failover] ...): options as the file gave them,
// completed with the catalog's defaults (checker_catalog.h), by option name.
using CheckValue = std::variant<bool, std::int64_t, Duration, std::string>;
struct NamedCheck {
  std::string name;
  std::map<std::string, CheckValue> options;
  int line = 0;
};

struct CheckSettings {
  LostMode lost = LostMode::strict;
  // Duplicate deliveries allowed in all (at-least-once: they are always counted); unset: no bound.
  std::optional<std::int64_t> duplicates_max;
  bool corrupt = true;  // a message that fails its own checksum, or that nobody sent, fails
  // Acknowledged sends of one key are consumed in order, on ordered topics; unset: on when a
  // topic is ordered.
  std::optional<bool> per_key_order;
  bool offsets_dense = false;      // a group's consumed offsets of a queue have no holes
  bool offsets_monotonic = true;   // committed offsets move forward only (or an explained reset)
  bool routes = true;              // routes converge after the heal (false: the liveness phase skips routes_converged)
  // Error-level log lines the scenario expects (substrings); any other fails the run.
  std::vector<std::string> expected_errors;
  std::vector<NamedCheck> named;   // in the order of the catalog
};

// ---- the scenario --------------------------------------------------------------------------

struct Scenario {
  std::string file;   // where it was read from (for messages and `mqsim list`)
  std::string name;   // defaults to the file's base name without ".toml"
  std::string story;  // one line: what happens and what must hold
  cluster::ClusterSpec cluster;
  std::vector<ProducerScenario> producers;
  std::vector<ConsumerScenario> consumers;
  std::vector<FaultEntry> faults;  // in the file's order (fault_schedule.h sorts them in time)
  RunSettings run;
  LivenessSettings liveness;
  CheckSettings checks;

  // Every node name a fault may target: NameServers, brokers (masters, then slaves), clients.
  std::vector<std::string> node_names() const;
};

// The settings a History carries for the checkers (sim/check): strict loss, the duplicate bound,
// dense and monotonic offsets, corruption, per-key order, the expected error lines, the named
// checks. (The other checks of CheckSettings are the runner's to apply.)
check::CheckSettings history_check_settings(const Scenario& s);

// The World's options for one seed of `s`: sim::swarm_options(seed) when run.swarm, else the
// defaults (no buggify, no random faults) with that seed.
WorldOptions world_options(const Scenario& s, std::uint64_t seed);

}  // namespace ferry::sim::scenario
