// Workloads for simulated clusters: producer and consumer apps that run on client nodes (built by
// Cluster::add_client factories, so they die and come back with their node), a History of what
// they did kept outside every node, and the convergence requirements of the liveness phase.
//
// Messages are self-validating: the body names the producer, its sequence number, the key and a
// checksum of all of it ("p=prod-1;s=17;k=key-3;c=0a1b2c3d;xxxx..."), so a consumer can tell an
// intact message from a corrupted one without asking anyone.
//
// Sends are recorded with their outcome: ok (SEND_OK: the broker stored it and, under
// SYNC_FLUSH, synced it), failed (an error reply: not stored), unknown (a timeout or a broken
// connection: it may or may not have been stored), or stored-not-durable (FLUSH_DISK_TIMEOUT and
// the other "stored, but" statuses). Checkers judge the History (sim/check/checkers.h). Each
// app's (re)start is recorded as an Event (it explains a consumer's redeliveries).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "client/client_instance.h"
#include "client/lite_pull_consumer.h"
#include "client/producer.h"
#include "client/push_consumer.h"
#include "sim/cluster/cluster.h"
#include "sim/history/history.h"

namespace ferry::sim::cluster {

// ---- message bodies ------------------------------------------------------------------------

struct BodyFields {
  std::string producer;
  std::uint64_t seq = 0;
  std::string key;
};
// The body for `f`, padded to at least `size_bytes` (bounded by the store's message size).
std::string make_body(const BodyFields& f, std::size_t size_bytes);
// The fields of an intact body; nullopt for anything else (corrupted, truncated, foreign).
std::optional<BodyFields> parse_body(std::string_view body);

// ---- history -------------------------------------------------------------------------------

// The History and its records live in sim/history/history.h (the checkers and `mqsim check` read
// them without a cluster); the apps below fill them.
using sim::ConsumeRecord;
using sim::Event;
using sim::EventKind;
using sim::History;
using sim::outcome_name;
using sim::RequestOutcome;
using sim::RequestRecord;
using sim::SendOutcome;
using sim::SendRecord;
using sim::TxFate;

// ---- apps ----------------------------------------------------------------------------------

// Every workload app's component: it owns its node's ClientInstance, which observers read (the
// route a client holds: sim/scenario/route_observer.h).
class ClientApp : public NodeProcess {
 public:
  virtual const client::ClientInstance& client_instance() const = 0;
};
// The ClientInstance of a workload app node, nullptr while the node is down (or not an app).
const client::ClientInstance* client_instance_of(Cluster& c, NodeId node);

struct ProducerSpec {
  std::string group = "workload-producers";
  std::string topic;
  std::uint64_t messages = 100;       // in all, over every life of the node
  Duration interval = std::chrono::milliseconds(20);  // between sends
  std::size_t body_bytes = 200;
  std::vector<std::string> keys = {"key-0", "key-1", "key-2", "key-3"};  // drawn per message
  // Each message carries the property n = seq % 10 (sim/history/selection.h), for SQL92
  // subscriptions to select on; a scenario sets it when a consumer has `sql`.
  bool selector_properties = false;
  bool ordered = false;               // select the queue by key hash
  // How an ordered producer picks its queue: by the key's hash (what per-key order needs), or
  // `rotate`: the next queue for each send whatever its key — a selector that ignores the key,
  // which breaks the order it is asked for (the proof that the key-order check can fail).
  enum class Selector : std::uint8_t { by_key_hash, rotate };
  Selector selector = Selector::by_key_hash;
  client::ProducerConfig config;      // group is set from `group`

  // A transaction producer (client::TransactionProducer, docs/transactions.md) instead: each
  // message is a half message, then the local transaction's verdict after `local_time`. The local
  // transaction draws its fate when the half message is acknowledged SEND_OK — rollback with
  // rollback_percent, else commit — and keeps it in its "database" (the History, which outlives
  // every producer); its verdict is that fate, or UNKNOW with unknown_percent (the broker's check
  // then decides). Any producer of the group answers a check from the database: the fate of an
  // acknowledged half, rollback for one the producer saw fail (its local transaction never ran),
  // UNKNOW while its send is still in flight. A producer killed during `local_time` sends no verdict:
  // the check decides that one too.
  struct Transactions {
    std::int32_t rollback_percent = 20;
    std::int32_t unknown_percent = 20;
    Duration local_time{};
    // How checks are answered: from the database, or (proof that the `transactions` checker can
    // fail) COMMIT whatever the database says: a check listener that ignores the local state.
    enum class CheckAnswers : std::uint8_t { database, always_commit };
    CheckAnswers check_answers = CheckAnswers::database;
  };
  std::optional<Transactions> transactions;

  // A requesting producer (request-reply, docs/request_reply.md) instead: each message is a
  // request (Producer::request_async) that waits up to `timeout` for its reply, recorded as a
  // RequestRecord (and as a SendRecord of unknown outcome: request() does not say how the send
  // ended). The producer keeps its rate: requests overlap.
  struct Requests {
    Duration timeout = std::chrono::seconds(3);
  };
  std::optional<Requests> requests;

  // Timer messages (RocketMQ 5, docs/store.md "Timer messages"): each message asks, with
  // TIMER_DELAY_MS, to be delivered after a delay drawn uniformly from [min, max] (whole ms),
  // recorded in its SendRecord (checker timer-delivery).
  struct Timers {
    Duration min{};
    Duration max{};
    // The share of the drawn delay the producer asks the broker for, while the SendRecord keeps
    // the whole: below 100 the messages arrive early (proof that timer_delivery can fail).
    std::int32_t asked_percent = 100;
  };
  std::optional<Timers> timers;
};

struct ConsumerSpec {
  std::string group = "workload-consumers";
  std::string topic;
  std::string expression = "*";
  // An SQL92 subscription instead of the tag expression (empty: none); it may read the
  // properties n and KEYS only (sim/history/selection.h).
  std::string sql;
  client::PushConsumerConfig config;  // group is set from `group`
  // Lite pull consumers only: every this often, the app seeks the queue it just read back by a
  // few offsets without telling anyone — an application that rewinds silently, which breaks the
  // per-queue order a group's deliveries promise (the proof that the queue-offsets check can
  // fail). Unset: never.
  std::optional<Duration> rewind_every;
  // A replying consumer (push, concurrently): for each request it consumes it sends a reply
  // (create_reply_message, through a producer of group "{group}-replies" on its node) whose body
  // is the request's. `previous` instead answers with the body of the request it consumed before
  // (under the new request's correlation id): a server that mixes up its answers, which hands
  // requesters someone else's reply (the proof that the request-reply check can fail).
  struct Replies {
    enum class Body : std::uint8_t { echo, previous };
    Body body = Body::echo;
  };
  std::optional<Replies> replies;
  // A POP consumer (RocketMQ 5; kind = "pop" in a scenario file): receives with POP_MESSAGE from
  // every queue of the topic, sharing them with the group's other members, and acknowledges each
  // message with probability ack_percent (drawn from the node's randomness); one it leaves
  // unacknowledged comes back after `invisible_time` (checker pop-delivery).
  struct Pop {
    Duration invisible_time = std::chrono::seconds(10);
    std::int32_t batch = 16;       // max messages per POP, 1..32
    std::int32_t ack_percent = 100;
    // FIFO (order=true; a scenario's mode = "orderly", which the runner turns into this): the broker hands out one batch of a queue
    // at a time, and the app acknowledges a batch's messages of each queue in order, stopping at
    // the first it leaves (an ordered application does not go on past a message it failed).
    bool fifo = false;
    // False: a FIFO consumer that does not ask the broker for order (order=false) but behaves and
    // records as one (proof that pop-fifo can fail).
    bool ask_order = true;
  };
  std::optional<Pop> pop;
};

// A factory for Cluster::add_client: a ClientInstance and a producer that sends spec.messages
// messages (shared count: a restarted node continues), recording each send in `history`.
ClientFactory producer_app(ProducerSpec spec, std::shared_ptr<History> history);
// Factories for Cluster::add_client: a ClientInstance and a consumer recording every delivery in
// `history` (sim/cluster/consumer_apps.h), clustering or broadcasting per
// spec.config.message_model. consumer_app: a push consumer with a concurrent listener;
// orderly_consumer_app: a push consumer with an orderly listener (broker locks per queue);
// lite_pull_consumer_app: a lite pull consumer subscribed to spec.topic (its rebalance picks the
// queues), polling in a loop, auto commit (the push-specific knobs of spec.config do not apply).
ClientFactory consumer_app(ConsumerSpec spec, std::shared_ptr<History> history);
ClientFactory orderly_consumer_app(ConsumerSpec spec, std::shared_ptr<History> history);
ClientFactory lite_pull_consumer_app(ConsumerSpec spec, std::shared_ptr<History> history);
// A PopConsumer (spec.pop set) receiving in a loop, recording each delivery with its invisible
// time and each acknowledgement (History::pop_acks). It holds no queue.
ClientFactory pop_consumer_app(ConsumerSpec spec, std::shared_ptr<History> history);

// The push consumer of a consumer_app / orderly_consumer_app node, nullptr while the node is down
// (or for another kind of node).
client::PushConsumer* push_consumer_of(Cluster& c, NodeId node);
// The lite pull consumer of a lite_pull_consumer_app node, nullptr while the node is down.
client::LitePullConsumer* lite_pull_consumer_of(Cluster& c, NodeId node);
// The queues a consumer node of any kind holds now (orderly: those it holds the broker lock of);
// nullopt while it is down or for a node that is not a consumer app.
std::optional<std::vector<MessageQueue>> held_queues_of(Cluster& c, NodeId node);
// True once a producer_app node has sent all its messages (and they all completed).
bool producer_done(Cluster& c, NodeId node);

// ---- liveness requirements -----------------------------------------------------------------

// Every message acknowledged (SEND_OK) by then, of the topics `group` subscribed to, was consumed,
// intact, by (clustering) `group`.
Convergence all_acked_consumed(std::shared_ptr<History> history, std::string group);
// Every acknowledged message broadcast consumer `consumer` should have (sim::acked_not_consumed_by:
// sent after its first start, at or after where it started reading) was consumed by it.
Convergence all_acked_consumed_by(std::shared_ptr<History> history, std::string consumer);
// A POP group: every message it was handed has its latest delivery acknowledged (or went out at
// the DLQ threshold): what its consumers left unacknowledged came back (sim/history/pop_progress.h).
Convergence pop_deliveries_settled(std::shared_ptr<History> history, std::string group);
// Clustering: every queue of `topic` on every broker group is held by exactly one of `consumers`
// (orderly: with its broker lock). Broadcast: every one of `consumers` that is up holds every
// queue. At least one must be up.
Convergence consumers_assigned(Cluster& c, std::string topic, std::vector<NodeId> consumers, bool broadcast = false);
// What consumers_assigned asks of a snapshot of the members' queues (a member that is down has
// none): nullopt when it holds, else what is missing. Shared with the real runner (sim/real).
struct HeldQueues {
  std::string name;
  std::optional<std::vector<MessageQueue>> held;  // nullopt: down
};
std::optional<std::string> assignment_gap(const ClusterSpec& spec, const std::string& topic, const std::vector<HeldQueues>& consumers,
                                          bool broadcast);
// The requirement's name ("queues of T assigned").
std::string assignment_name(const std::string& topic, bool broadcast);
// Every producer node finished its sends.
Convergence producers_done(Cluster& c, std::vector<NodeId> producers);

}  // namespace ferry::sim::cluster
