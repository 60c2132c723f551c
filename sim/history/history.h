// The History of a simulated run: every send attempt with its outcome and times, every
// consumption with its group, consumer, queue and offset, and the faults and (re)starts that
// explain redeliveries. It is kept outside every node (it survives their crashes), filled by the
// workload apps (sim/cluster/workload.h) and the fault code of a test or scenario, judged by the
// checkers (checkers.h), and saved and loaded with history_codec.h so that `mqsim check` can
// judge a recorded run again.
//
// Single-threaded (the World's thread). Records are appended in virtual-time order: the order of
// `consumes` is the order the listeners saw the messages.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>  // determinism-ok: History::write_lock, for real runs (never contended in simulation)
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/message_queue.h"
#include "common/offsets.h"
#include "runtime/time.h"
#include "sim/history/option_value.h"

namespace ferry::sim {

// The outcome of one send as the producer saw it: ok (SEND_OK: stored and, under SYNC_FLUSH,
// synced), stored_not_durable (FLUSH_DISK_TIMEOUT and the other "stored, but" statuses), failed
// (refused before anything was stored), unknown (a timeout or a broken connection: it may or may
// not have been stored).
enum class SendOutcome : std::uint8_t { ok, stored_not_durable, failed, unknown };
inline constexpr std::uint8_t kSendOutcomeMax = 3;
const char* outcome_name(SendOutcome o);

// What a transactional send ends as (a producer app with transactions, sim/cluster/workload.h):
// none for an ordinary send. Decided when the half message is acknowledged SEND_OK: commit or
// rollback as the app's local transaction drew it (its "database", which outlives the producer);
// rollback for a half message not acknowledged SEND_OK (the local transaction never ran).
enum class TxFate : std::uint8_t { none, commit, rollback };
inline constexpr std::uint8_t kTxFateMax = 2;
const char* tx_fate_name(TxFate f);

struct SendRecord {
  std::string producer;  // node name
  std::uint64_t seq = 0;
  std::string key;
  std::string topic;
  SendOutcome outcome = SendOutcome::unknown;
  std::string detail;  // the error or the status, when not ok
  MessageQueue queue;  // where it was stored (ok / stored_not_durable)
  QueueOffset queue_offset;
  MonoTime sent_at{};
  MonoTime done_at{};
  bool ordered = false;  // sent to the queue its key hashes to (per-key order is promised)
  // ---- transactional sends (fate != none; checker `transactions`) ----
  // `outcome` is the half message's; queue is the real one, queue_offset is unknown (-1) until
  // the message is committed. by_check: the local transaction answered UNKNOW, so the broker's
  // check decides. verdict_at: when the producer sent its verdict (END_TRANSACTION); unset when it
  // never did (it died during its local transaction: the check decides).
  TxFate fate = TxFate::none;
  bool by_check = false;
  std::optional<MonoTime> verdict_at;
  // ---- timer messages (checker timer-delivery) ----
  // The delay the message asked for (TIMER_DELAY_MS); queue_offset is then unknown (-1): the
  // reply's offset is the timer topic's, not where the message is delivered when due.
  std::optional<Duration> timer_delay;

  std::string id() const;  // "producer-1#17"
  // The message must reach every group that subscribed to its topic: acknowledged SEND_OK and not
  // a rolled-back transaction.
  bool owed() const { return outcome == SendOutcome::ok && fate != TxFate::rollback; }
};

// When a POP consumer's delivery was handed out: the broker popped it between `requested_at` (the
// POP request went out: PopResult::sent_at) and the ConsumeRecord's `at` (the reply arrived, perhaps much later), so
// its invisible time ends no earlier than `invisible_until` (requested_at plus the invisible time
// the POP asked for). `pop_time_ms`: the broker's wall clock when it handed the message out (the
// reply's popTime); -1 unknown (a file written before version 17).
struct PopDelivery {
  MonoTime requested_at{};
  MonoTime invisible_until{};
  std::int64_t pop_time_ms = -1;
};

struct History;
struct ConsumeRecord;
// True when a node of broker group `broker` ("broker-a", "broker-a-s1") logged an error-level line
// at or after `from` (History::error_logs): a failed disk (a CommitLog sync that failed refuses
// writes until a restart, and what it covered may be lost) keeps a broker from storing POP
// revives, and may have taken a checkpoint.
bool broker_logged_error_since(const History& h, const std::string& broker, MonoTime from);
// True when POP delivery `a` of a message was handed out before delivery `b` of the same message.
// Certain when the consumers' clocks tell: `a`'s reply arrived before `b`'s POP went out (less two
// clocks' drift, 500 ppm each), or the other way round. Else, when one broker group handed both
// out, by its clock (pop_time_ms: a long poll may answer a POP sent earlier after one sent
// later); else (a file before version 17, or two broker groups: a send retried) by when the POPs
// went out, then by fewer reconsumes. A broker's clock that jumped back, or another master's, may
// disagree with the consumers': the checkers excuse what happens around those. Not a strict weak
// order over many deliveries: sort a message's deliveries with pop_sort. Both must be POP
// deliveries.
bool pop_order(const ConsumeRecord& a, const ConsumeRecord& b);
// Sorts `deliveries` (indexes into h.consumes: POP deliveries, of one message) by pop_order,
// stably, by insertion: defined whatever pop_order answers, and a message has few deliveries.
void pop_sort(const History& h, std::vector<std::uint64_t>& deliveries);

struct ConsumeRecord {
  std::string consumer;  // node name
  std::string group;
  std::string topic;
  MessageQueue queue;
  QueueOffset queue_offset;
  std::int32_t reconsume_times = 0;
  MonoTime at{};
  // The broker id (0 master, > 0 slave) that served the queue's last pull with messages when
  // this one was consumed (push consumers; -1 unknown). A batch pulled from the master before it
  // died may still be consumed after the slave answered a later pull: the label is the queue's.
  std::int64_t pulled_from = -1;
  // An orderly consumer of a clustering group: when its broker lock of the queue was last
  // confirmed before this delivery (ProcessQueue::last_lock_time, the consumer's clock); unset for
  // every other kind of consumer (checker orderly-exclusive).
  std::optional<MonoTime> lock_at;
  // A POP consumer's delivery (checker pop-delivery); unset for every other kind of consumer.
  std::optional<PopDelivery> pop;
  bool intact = false;   // the body parsed and its checksum holds
  std::string producer;  // from the body, when intact
  std::uint64_t seq = 0;
  std::string key;

  std::string id() const;  // "producer-1#17", or "corrupt" when not intact
};

// Something that happened to a node and may explain a redelivery: a crash, a restart, a fault
// (partition, clog, silence...), a heal, a client's (re)start, a rebalance.
// promote: the operator promoted a slave (target: the slave's node) to master of its group.
enum class EventKind : std::uint8_t { crash, start, fault, heal, rebalance, promote };
inline constexpr std::uint8_t kEventKindMax = 5;
const char* event_kind_name(EventKind k);

struct Event {
  MonoTime at{};
  EventKind kind = EventKind::fault;
  std::string target;  // node name, or "" for the whole cluster
  std::string detail;  // "process kill", "partition consumer-0 / broker-a", ...
};

// What a node's route of a topic showed from `at` on (recorded when it changed): for each broker
// group the route names, its queue counts and whether it had a master (brokerId 0). `observer`
// is a NameServer ("namesrv-0", its route table) or a client node (its last fetched route). An
// empty `groups` means no route at all (the topic unknown to that node).
struct RouteGroup {
  std::int32_t read_queues = 0;
  std::int32_t write_queues = 0;
  bool master = false;
  bool operator==(const RouteGroup& o) const {
    return read_queues == o.read_queues && write_queues == o.write_queues && master == o.master;
  }
};
struct RouteRecord {
  MonoTime at{};
  std::string observer;
  std::string topic;
  std::map<std::string, RouteGroup> groups;  // by broker group name
};

// A NameServer took a registration of a broker (its live-broker entry was refreshed at `at`).
// `broker` is the broker's node name ("broker-b", "broker-b-s1").
struct RegistrationRecord {
  MonoTime at{};
  std::string namesrv;
  std::string broker;
};

// ---- error-level log lines (captured by the runner, sim/scenario/log_capture.h) -------------

// One log line of a node: when (the World's virtual time, not the node's skewed clock), whose,
// its level ("error", "critical"; the runner's ring of recent lines also keeps "info", "warn")
// and its text (the message alone, without the node/time/level prefix).
struct LogLine {
  MonoTime at{};
  std::string node;
  std::string level;
  std::string text;
};
// History::error_logs keeps the first this many lines; the rest are only counted.
inline constexpr std::size_t kErrorLogsKeptMax = 1'000;

// How the scenario wants the history judged (checkers.h). Saved with the history, so that a
// recorded run is judged again by the same rules.
struct CheckSettings {
  // Lost acknowledged messages fail the run (SYNC_FLUSH + SYNC_MASTER); when false the loss is
  // reported as a figure only (async modes, where only synced data must survive).
  bool lost_strict = true;
  // Fail when more than this many duplicate deliveries are seen (per group, summed); -1: unbounded.
  std::int64_t duplicates_max = -1;
  // Fail when a queue's consumed offsets of a group have holes (no tag filtering, nothing expired).
  bool offsets_dense = false;
  // The named checks the scenario asked for ([checks.failover] ...), by check name, each with
  // every option its spec lists (sim/check/registry.h); a check not named here is not run.
  std::map<std::string, OptionValues> named;
  // Named checks judged as figures only: their verdict is printed with its violations but passes
  // (a scenario's story bound that swarm's faults may break: scenario.h, SwarmSettings).
  std::vector<std::string> figures_only;

  // Error-level log lines the scenario expects (substrings of the text); the error-logs checker
  // fails on any other (error_logs.h).
  std::vector<std::string> expected_errors;
  // ---- consumer apps' settings (committed offsets, corruption, per-key order) ----
  // Fail when a broker's committed offset of a (group, queue) moves back unexplained
  // (committed_offsets.h); when false the moves are figures only.
  bool offsets_monotonic = true;
  // Fail on a corrupt delivery (a body failing its checksum, or one nobody sent); when false
  // they are counted only.
  bool corrupt_fails = true;
  // Per-key order (key_order.h): unset judges the sends to ordered topics; true judges every
  // acknowledged send; false counts reorders without failing.
  std::optional<bool> per_key_order;
};

// ---- request-reply (RocketMQ 4.6+; checker request-reply) ----------------------------------

// What a request ends as, as its requester saw it (Producer::request): replied (a reply came),
// timed_out (the request was sent, no reply came within its timeout), failed (the send failed),
// pending (never resolved: its requester died first, or the run ended).
enum class RequestOutcome : std::uint8_t { pending, replied, timed_out, failed };
inline constexpr std::uint8_t kRequestOutcomeMax = 3;
const char* request_outcome_name(RequestOutcome o);

// One request of a requesting producer app (sim/cluster/workload.h, ProducerSpec::requests). The
// request message is also a SendRecord of the same producer and seq (outcome unknown: request()
// does not say how the send ended). The replying app echoes the request's body, so the reply names
// the request it answers.
struct RequestRecord {
  std::string requester;  // node name
  std::uint64_t seq = 0;
  MonoTime sent_at{};
  Duration timeout{};
  RequestOutcome outcome = RequestOutcome::pending;
  std::optional<MonoTime> done_at;
  // replied: the request the reply's body names ("producer-1#17"), or "corrupt" when the body
  // does not parse.
  std::string reply_of;
  std::string detail;  // the error, when timed_out or failed

  std::string id() const;  // "producer-1#17"
};

// ---- POP consumption (RocketMQ 5; checker pop-delivery) ------------------------------------

// A POP consumer acknowledged one of its deliveries (ACK_MESSAGE with the message's receipt
// handle): `consume` is the delivery's index in History::consumes; the ack was sent at `sent_at`
// and answered at `done_at` (ok: SUCCESS; else the error is in `detail`, "unanswered" when the
// consumer died waiting: done_at is then sent_at). The broker answers
// SUCCESS to the ack of a handle whose message came back already, so an ack holds the message
// back only when it was answered within the delivery's invisible time.
// A POP message handed out with this many reconsumes goes to the DLQ when it is not acknowledged
// (a subscription group's retryMaxTimes, which the workload's groups keep at RocketMQ's default).
inline constexpr std::int32_t kPopRetryMaxTimes = 16;

struct PopAckRecord {
  std::uint64_t consume = 0;
  MonoTime sent_at{};
  MonoTime done_at{};
  bool ok = false;
  std::string detail;
};

// ---- consumers and committed offsets ------------------------------------------------------

// One consumer node as its app described itself at (first) start, and when it left for good.
struct ConsumerInfo {
  std::string group;
  std::string topic;
  bool broadcast = false;  // message model BROADCASTING: it must receive everything itself
  std::string kind;        // "push-concurrently", "push-orderly", "lite-pull", "pop", "pop-fifo"
  // An SQL92 subscription (empty: "*"): the consumer is owed only what it selects on the
  // properties every workload message carries (sim/history/selection.h).
  std::string sql;
  MonoTime first_start{};
  std::optional<MonoTime> left_at;  // stopped for good (a scenario's stop_at)
};

// A push consumer took a queue (a new ProcessQueue) and starts reading it at `offset`, seen at
// `at` by an observer of the client nodes (sim/scenario/take_observer.h; within 250 ms of the
// take). A broadcast consumer owes every message of a queue from its first take on: what was sent
// after it, and what lies at or beyond the offset it started at.
struct TakeRecord {
  MonoTime at{};
  std::string consumer;
  MessageQueue queue;
  QueueOffset offset;
};

// An offset a broker's ConsumerOffsetManager held at `at` for (group, queue), recorded by an
// observer of the running masters whenever it changed (sim/scenario/offset_observer.h).
struct CommitRecord {
  MonoTime at{};
  std::string broker;  // the broker node ("broker-a", "broker-a-s1" once promoted)
  std::string group;
  MessageQueue queue;  // queue.broker_name is the broker group
  QueueOffset offset;
};

// A queue's first offset on its group's master rose to `min_offset` at `at` (cleanup removed the
// messages below it: retention, or a disk past its limits deleting at once), recorded by an
// observer of the running masters (sim/scenario/offset_observer.h). What a group had not
// consumed below it is gone by RocketMQ's rules: expired, not lost (owed.h).
struct QueueFloorRecord {
  MonoTime at{};
  MessageQueue queue;  // queue.broker_name is the broker group
  QueueOffset min_offset;
};

// ---- metrics (the nodes' registries, common/metrics.h) --------------------------------------

// One node's metric at `at`: the sum of every series of one family of its registry (a
// histogram's count), as the runner's MetricsObserver sampled it (sim/scenario/metrics_observer.h)
// every second of virtual time; a sample is recorded only when the value changed since the node's
// last one (a value holds until the next sample). The families sampled are kSampledMetrics below.
struct MetricSample {
  MonoTime at{};
  std::string node;
  std::string metric;
  double value = 0;
};
// History::metric_samples keeps at most this many (about 40 B each); the rest are counted.
inline constexpr std::size_t kMetricSamplesKeptMax = 500'000;
// The families sampled: what the report plots and the metric-bound checker may name.
inline constexpr std::array<std::string_view, 9> kSampledMetrics = {
    "rocketmq_messages_in_total",          "rocketmq_messages_out_total",       "rocketmq_consumer_lag_messages",
    "rocketmq_consumer_inflight_messages", "ferry_ha_slave_lag_bytes",          "rocketmq_storage_flush_behind_bytes",
    "ferry_requests_refused_total",        "ferry_namesrv_brokers_live",        "active_broker_num",
};

// ---- broker stores across restarts (checker store-prefix) ----------------------------------

// One restart of a broker node (master or slave) as the runner's StoreObserver saw it
// (sim/scenario/store_observer.h): on its first look at the node's new life, the CommitLog that
// recovery left, set against what the observer had seen of the node's log before.
//  * before_max, before_synced: the log's end and the highest flushed (synced) offset seen in the
//    earlier lives (0 when none was seen);
//  * recovered_end: where recovery ended the log (RecoveryInfo::commit_log.end);
//  * records_compared, bytes_compared: the records seen before at offsets below recovered_end
//    (and not cleaned up since) that were read again in the recovered log and compared (size and
//    CRC-32 of the record's bytes);
//  * first_mismatch: the first such offset whose record differs (missing, another size or other
//    bytes), with `detail` saying what was seen there;
//  * lives_missed: lives of the node that started and ended between two looks (their appends
//    were never seen, so only records below before_synced, which no later life may replace, were
//    compared);
//  * wiped: the disk was wiped while the node was down: a new life with nothing to compare.
// The store's promise (docs/store.md, "Recovery"): recovered_end >= before_synced, and no mismatch.
struct StoreRestartRecord {
  MonoTime at{};       // the look that found the new life
  std::string broker;  // the broker node ("broker-a", "broker-a-s1")
  PhysicalOffset before_max;
  PhysicalOffset before_synced;
  PhysicalOffset recovered_end;
  std::int64_t records_compared = 0;
  std::int64_t bytes_compared = 0;
  std::optional<PhysicalOffset> first_mismatch;
  std::int64_t lives_missed = 0;
  bool wiped = false;
  std::string detail;  // what differed at first_mismatch, or a note ("wiped", "nothing seen before")
};

// ---- controller mode (RocketMQ 5; checkers controller-history and one-master-per-epoch) ----

// What one controller's replicated state (controller/replicas_info.h) said of a broker group from
// `at` on, recorded by the runner's ControllerObserver each time it changed: the master (its node
// name, "" when the group has none) and masterEpoch, the SyncStateSet (node names, sorted) and
// syncStateSetEpoch.
struct ControllerViewRecord {
  MonoTime at{};
  std::string controller;  // "controller-1"
  std::string group;       // the broker group ("broker-a")
  std::int32_t master_epoch = 0;
  std::string master;
  std::int32_t sync_state_set_epoch = 0;
  std::vector<std::string> sync_state_set;
};

// What one broker node of a controller-mode group held from `at` on, recorded each time it
// changed: the last epoch of its epoch file, and how many messages it answered SEND_OK for in
// each masterEpoch during its current life (BrokerStats::acked_by_epoch; a restart starts the
// counts again).
struct BrokerEpochRecord {
  MonoTime at{};
  std::string broker;  // the node ("broker-a-s2")
  std::string group;
  std::int32_t epoch = 0;
  std::map<std::int32_t, std::int64_t> acked;
};

struct History {
  // Held by whoever writes while others may (the workload apps of `mqsim run --real` run on one
  // thread each, with the runner's observers on another); the record_* functions take it
  // themselves. In the simulator every writer is on one thread and the lock is never contended.
  // Shared by copies (a History is copied only whole, after a run).
  using WriteLock = std::recursive_mutex;  // determinism-ok: see above
  std::shared_ptr<WriteLock> write_lock = std::make_shared<WriteLock>();
  std::unique_lock<WriteLock> hold() const { return std::unique_lock<WriteLock>(*write_lock); }  // determinism-ok: see above

  std::vector<SendRecord> sends;
  // Requests of requesting producers, in the order they were sent (checker request-reply).
  std::vector<RequestRecord> requests;
  std::vector<ConsumeRecord> consumes;
  // The acknowledgements of POP consumers, in the order they were answered (checker pop-delivery).
  std::vector<PopAckRecord> pop_acks;
  std::vector<Event> events;
  CheckSettings settings;
  // The topics each consumer group subscribed to (recorded by the consumer apps at start), so
  // that a group that consumed nothing still counts as one that should have.
  std::map<std::string, std::set<std::string>> subscriptions;
  // The next sequence number of each producer (so a restarted producer goes on, not over).
  std::map<std::string, std::uint64_t> next_seq;
  // The producers (node names) that send with sendLatencyFaultEnable (recorded at their start).
  std::set<std::string> latency_fault_producers;

  // What the runner's observers saw (sim/scenario/route_observer.h), in time order.
  std::vector<RouteRecord> routes;
  std::vector<RegistrationRecord> registrations;
  // ---- consumers and committed offsets ----
  // Every consumer node by name (recorded by the consumer apps; empty in histories that predate
  // it: every group is then judged as a clustering group).
  std::map<std::string, ConsumerInfo> consumers;
  // Committed offsets as the brokers held them, in time order (checker committed-offsets).
  std::vector<CommitRecord> commits;
  // The queues push consumers took, in time order (lost-acked, for broadcast consumers).
  std::vector<TakeRecord> takes;
  // Each rise of a queue's first offset on its master, in time order (lost-acked: expired).
  std::vector<QueueFloorRecord> queue_floors;
  // ---- broker stores ----
  // Every broker restart the StoreObserver judged, in time order (checker store-prefix).
  std::vector<StoreRestartRecord> store_restarts;
  // ---- controller mode ----
  // In time order (ControllerObserver, sim/scenario/controller_observer.h).
  std::vector<ControllerViewRecord> controller_views;
  std::vector<BrokerEpochRecord> broker_epochs;
  // ---- metrics ----
  // In time order (MetricsObserver); samples past kMetricSamplesKeptMax are counted only.
  std::vector<MetricSample> metric_samples;
  std::int64_t metric_samples_not_kept = 0;
  // The kinds of record the run could not observe, by field name ("store_restarts"), sorted: a
  // run on real processes reads no broker's memory. A checker that reads one of them is not
  // judged (its verdict says so) rather than passed on records nobody made.
  std::vector<std::string> unobserved;

  // Sends acknowledged with SEND_OK, by (producer, seq).
  std::set<std::pair<std::string, std::uint64_t>> acked() const;
  // Intact messages `group` consumed, by (producer, seq).
  std::set<std::pair<std::string, std::uint64_t>> consumed_by(const std::string& group) const;
  // Every group that subscribed or consumed something, sorted.
  std::set<std::string> groups() const;
  // True when `group`'s consumers are broadcast ones (ConsumerInfo::broadcast).
  bool broadcast_group(const std::string& group) const;
  // Who must receive a message once: the group of a clustering consumer, "group/consumer" of a
  // broadcast one. Duplicates, order and offsets are judged per audience.
  std::string audience(const ConsumeRecord& c) const;
  // Records a consumer app's start: the first start sets first_start, a later one keeps it.
  void record_consumer(MonoTime at, const std::string& name, ConsumerInfo info);

  void record_event(MonoTime at, EventKind kind, std::string target, std::string detail);

  // Every time of every record moved by -`origin` (MonoTime{} + origin becomes 0): a real run
  // (`mqsim run --real`) records steady-clock times, and counts them from its own start after.
  // Unset times (an in-flight send's done_at) stay unset.
  void rebase_times(Duration origin);

  // Every error- and critical-level log line of every node, in time order: the first
  // kErrorLogsKeptMax, then only counted in error_logs_not_kept.
  std::vector<LogLine> error_logs;
  std::int64_t error_logs_not_kept = 0;
  // Keeps `line` while fewer than kErrorLogsKeptMax are kept, else counts it.
  void record_error_log(LogLine line);
};

// How far apart the runner's observers look at the nodes (virtual time; sim/scenario/runner.cc):
// a route, take or commit is recorded at most this long after it happened.
inline constexpr Duration kObserveEvery = std::chrono::milliseconds(250);

// Milliseconds since the simulation's epoch, for messages.
std::int64_t ms_of(MonoTime t);

}  // namespace ferry::sim
