// Property tests over whole simulated clusters: RapidCheck generates a run — a cluster shape,
// topics, producers, consumers that join and leave, a fault schedule, and the World's seed —
// the simulator executes it with the production NameServer, Broker and client code, and a
// property asks the History's checkers (sim/check) whether a guarantee held. A failing run
// shrinks to a minimal one (fewer faults, groups, clients; earlier and shorter faults), and its
// scenario is written as a file that `mqsim run` replays.
//
//   #include <rapidcheck/gtest.h>
//   #include "sim/property/property.h"
//
//   RC_GTEST_PROP(Ordering, EachKeyInOrder, ()) {
//     using namespace ferry::sim::property;
//     Shape shape;
//     shape.topics = TopicOrder::ordered;
//     shape.consumers = {Flavor::orderly};
//     const GeneratedRun run = *gen_run(shape);                 // shrinkable
//     const Outcome out = execute(run);                // the whole cluster, in virtual time
//     require_check(out, "key-order");                 // RC_FAIL with the violation and replay
//   }
//
// On failure RapidCheck prints the shrunk counterexample (showValue below: the cluster, the
// clients, the faults) and `RC_PARAMS="reproduce=..."`, which regenerates it exactly; the
// failure message names the written scenario file and the one command that replays that seed:
//   build/bin/mqsim run property-failures/generated-<hash>.toml --seed <seed>
// docs/properties.md has the properties Ferry checks, how to write one, and a worked example.
//
// What a generated run never contains: faults that lose acknowledged messages by design (a power
// loss of an ASYNC_FLUSH node, a wiped disk, a full disk, an operator's promotion), nor a kill of
// a broadcast consumer before its offsets were first written (10 s after its start: it would start
// again from the last offset, as RocketMQ's does). Every run promises at-least-once for what was
// acknowledged, so every checker applies strictly.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <set>
#include <string>
#include <string_view>

#include <rapidcheck.h>

#include "sim/scenario/runner.h"
#include "sim/scenario/scenario.h"

namespace ferry::sim::property {

// Which topics a run declares: ordered ones (producers select by key hash), unordered, or both.
enum class TopicOrder : std::uint8_t { any, ordered, unordered };

// The kinds of consumer group a run may contain.
enum class Flavor : std::uint8_t {
  concurrent,  // clustering push consumers, concurrent listener
  orderly,     // clustering push consumers, orderly listener (broker locks per queue)
  broadcast,   // broadcasting push consumers, concurrent listener
  lite_pull,   // clustering lite pull consumers, auto commit
  pop,         // POP consumers (RocketMQ 5): 1-10 s invisible, 1-32 a POP, 70-100 % acknowledged
  pop_fifo,    // FIFO POP consumers (order=true): one batch of a queue at a time; 1-3 s invisible, 90-100 % acknowledged
};
const char* flavor_name(Flavor f);

// The faults a run may draw (each with a duration, after which it is undone).
enum class FaultKind : std::uint8_t {
  kill,        // a process kill of any node, started again after the duration
  power_off,   // a power loss of a NameServer or a SYNC_FLUSH broker, started again after it
  partition,   // both directions between a node and another
  clog,        // extra latency from a node to another
  slow_disk,   // slower syncs on a broker's disk
  skew_clock,  // a node's wall clock jumps (up to two minutes either way)
  pause,       // a node's events held (a long GC pause)
};
const char* fault_kind_name(FaultKind k);

// What the generator draws from. The defaults cover everything a property judges.
struct Shape {
  std::size_t groups_max = 3;  // broker groups: 1 .. groups_max
  bool slaves = true;          // a group may have a slave (SYNC_MASTER or ASYNC_MASTER)
  // Only SYNC_FLUSH groups, SYNC_MASTER when they have a slave.
  bool sync_only = false;
  TopicOrder topics = TopicOrder::any;
  std::set<Flavor> consumers = {Flavor::concurrent, Flavor::orderly, Flavor::broadcast, Flavor::lite_pull};
  // Consumers may start late (join) and leave for good (one member of each group stays).
  bool joins_and_leaves = true;
  std::set<FaultKind> faults = {FaultKind::kill,      FaultKind::power_off,  FaultKind::partition, FaultKind::clog,
                                FaultKind::slow_disk, FaultKind::skew_clock, FaultKind::pause};
  std::size_t faults_max = 6;
  // Kills and power losses may hit brokers (false: only NameServers and clients). A broker keeps
  // its consumers' queue locks in memory; a restarted one grants none for one lock lifetime, so
  // that none overlaps a lock a consumer confirmed before the crash and still trusts for 30 s
  // (broker/rebalance_lock_manager.h).
  bool broker_crashes = true;
  // A group with slaves may run in controller mode (a quarter of them: two slaves, SYNC_MASTER +
  // SYNC_FLUSH, allAckInSyncStateSet; the run then has three controllers, which faults may hit
  // too). With broker_crashes, "master:<group>" is a crash target: a failover.
  bool controller_groups = true;
  // Producers of unordered topics send transactional messages (ProducerSpec::Transactions: a
  // rollback and an UNKNOW share of 0-50 % each, a local phase of 0-1 s), and the brokers check
  // open transactions every 5 s (transactionCheckInterval).
  bool transactions = false;
  // Producers of unordered topics (not transactional ones) send timer messages (RocketMQ 5:
  // TIMER_DELAY_MS drawn per message from a producer's range within 1-20 s), and the run asks for
  // the named check timer_delivery with its default bounds.
  bool timers = false;
  Duration length = std::chrono::seconds(40);  // the run before the liveness phase
  bool swarm = false;  // also draw the World's random faults and buggify from the seed
};

// A generated run: the scenario (plain data; scenario_writer.h writes it as a file) and the seed.
struct GeneratedRun {
  scenario::Scenario scenario;
  std::uint64_t seed = 1;
};
// For RapidCheck's counterexample: one line per broker group, topic, client and fault.
void showValue(const GeneratedRun& run, std::ostream& os);

rc::Gen<GeneratedRun> gen_run(const Shape& shape = {});

// An executed run: the outcome (History, verdicts, liveness) and the run it came from.
struct Outcome {
  GeneratedRun run;
  scenario::RunOutcome result;
};

// Runs it in the simulator. A run that could not be carried out (a generated scenario the runner
// refuses) is a bug of the generator: RC_FAIL says why.
Outcome execute(const GeneratedRun& run);

// The checker `name`'s verdict (sim/check: "key-order", "queue-offsets", "lost-acked", ...); nullptr
// when it did not run.
const check::Verdict* verdict(const Outcome& out, std::string_view name);

// RC_FAIL unless checker `name` ran and passed; the message has its first violation, the written
// scenario file and the mqsim command that replays the run.
void require_check(const Outcome& out, std::string_view name);
// RC_FAIL unless the liveness phase converged (everything healed, every requirement met).
void require_converged(const Outcome& out);

// Writes the run's scenario file (in $FERRY_PROPERTY_DIR, else ./property-failures) and returns
// "MQSIM run FILE --seed N" (MQSIM: $FERRY_MQSIM, which ctest sets to this build's, else
// build/bin/mqsim; sim/io/replay_file.h). Named by a hash of the scenario, so the same run always
// gets the same file.
std::string write_replay(const GeneratedRun& run);

}  // namespace ferry::sim::property
