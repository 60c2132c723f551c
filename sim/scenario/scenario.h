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
#include "sim/cluster/cluster_spec.h"
#include "sim/cluster/workload.h"
#include "sim/history/history.h"
#include "sim/history/option_value.h"
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

enum class ConsumerKind : std::uint8_t { push, lite_pull, pop };
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

// One [[faults]] entry. Its action is a registered fault action (fault_registry.h: what each
// does, the keys it takes, its undo); `params` holds the action's own keys, every one of them
// (the parser and make_fault() fill in the defaults).
struct FaultEntry {
  Duration at{};  // virtual time since the start of the run (after boot)
  std::string action = "kill";
  std::vector<std::string> targets;  // node names; empty only for an action that takes none (heal_all)
  std::vector<std::string> peers;    // the other side of a link (partition, clog, heal, ...)
  // How long the fault lasts before it is undone; unset = until the liveness phase heals it.
  // For a crash (kill, power_off, restart): the downtime (World::restart starts it again).
  std::optional<Duration> duration;
  OptionValues params;
  int line = 0;  // the entry's line in the file, for messages

  // The action's key `key` (asserts that it is there with type T).
  template <typename T>
  const T& param(std::string_view key) const {
    return option<T>(params, key);
  }
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
// completed with the defaults of the checker's spec (sim/check/registry.h), by option name.
using CheckValue = OptionValue;
struct NamedCheck {
  std::string name;
  OptionValues options;
  int line = 0;
};
// The value of option `name` of `check` (the parser filled every option); asserts that it exists
// with type T.
template <typename T>
const T& check_option(const NamedCheck& check, std::string_view name) {
  return option<T>(check.options, name);
}

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
  std::vector<NamedCheck> named;   // in the order of the registry
};

// What swarm may loosen ([swarm]): the bounds of a story that hold in the file's own world but
// not in one whose links, disks, clocks and code paths swarm draws from the seed (a failover time,
// a count of send outcomes, a latency). Applied only when the run draws swarm faults (run.swarm,
// or `mqsim run --swarm`); the guarantees (nothing acknowledged lost, nothing corrupt, one master
// per epoch, the stores' prefix, convergence after the heal) are never loosened.
struct SwarmSettings {
  // The liveness bound under swarm; unset: the larger of liveness.bound and kSwarmLivenessBound
  // plus the longest producer's plan (see below).
  std::optional<Duration> liveness_bound;
  // Error lines swarm's faults bring to this story, added to checks.expected_errors (the
  // simulated disk's failed sync, DiskOptions::kEioOnSyncText, is always added).
  std::vector<std::string> expected_errors;
  // Named checks ([checks.NAME]) judged and printed, but not failing, under swarm.
  std::vector<std::string> figures_only;
};
// Under swarm more work may be left at the heal: in a slow world the producers sent a fraction of
// their messages by then (latency-backoff seed 8: 1,400 of 7,200), and the rest come after it at
// their own pace. So the default bound under swarm is the longest producer's whole plan
// (messages x interval, from its start) plus this; a pull held on a connection the world made
// silent ends only at its timeout. The quiet phase (sim/cluster/cluster.h) makes the rest quick; a
// run that converges stops there.
inline constexpr Duration kSwarmLivenessBound = std::chrono::minutes(10);

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
  SwarmSettings swarm;

  // Every node name a fault may target: NameServers, brokers (masters, then slaves), clients.
  std::vector<std::string> node_names() const;
};

// The settings a History carries for the checkers (sim/check): strict loss, the duplicate bound,
// dense and monotonic offsets, corruption, per-key order, the expected error lines, the named
// checks; under swarm (run.swarm) with what [swarm] loosens. (The other checks of CheckSettings
// are the runner's to apply.)
sim::CheckSettings history_check_settings(const Scenario& s);

// The liveness phase's bound: liveness.bound, or under swarm what [swarm] says.
Duration liveness_bound(const Scenario& s);

// The World's options for one seed of `s`: sim::swarm_options(seed) when run.swarm, else the
// defaults (no buggify, no random faults) with that seed.
WorldOptions world_options(const Scenario& s, std::uint64_t seed);

// The story of `s` cut at `length` (`mqsim run --length`), for a CI-sized run of a long story:
// run.length becomes the smaller of the two, each producer sends only what it would have sent by
// then (start_at + messages x interval), and faults due at or after `length` are dropped (one that
// began before lasts until the heal at most, as any fault). The checks stay as written: a bound
// that needs the story's end (a window past the cut) is judged on what the cut run shows.
// Returns the number of faults dropped.
std::size_t cut_to_length(Scenario& s, Duration length);

}  // namespace ferry::sim::scenario
