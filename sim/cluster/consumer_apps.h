// The consumer apps behind consumer_app / orderly_consumer_app / lite_pull_consumer_app /
// pop_consumer_app (workload.h): one node's component each, recording every delivery into the History as a
// ConsumeRecord (group, consumer, queue, offset, time, the parsed self-checking body) and
// describing itself in History::consumers (group, topic, broadcast or not) at start.
//
//  * PushConsumerApp: a PushConsumer with a concurrent or an orderly listener (always
//    CONSUME_SUCCESS / SUCCESS). A batch from another ProcessQueue than the queue's last one means
//    the queue was dropped and taken again on this client: recorded as a rebalance Event.
//  * LitePullConsumerApp: a LitePullConsumer subscribed to the topic (the rebalance picks its
//    queues), auto commit as configured, polling in a loop on the node's runtime. A queue that
//    comes back into its assignment is recorded as a rebalance Event.
//  * PopConsumerApp: a PopConsumer receiving in four loops at once; each delivery carries its
//    invisible time and each acknowledgement is a PopAckRecord.
// Internal to sim/cluster: other code goes through workload.h.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "client/client_instance.h"
#include "client/lite_pull_consumer.h"
#include "client/pop_consumer.h"
#include "client/producer.h"
#include "client/push_consumer.h"
#include "sim/cluster/workload.h"
#include "sim/history/history.h"
#include "sim/node.h"

namespace ferry::sim::cluster {

// Appends one consumer node's deliveries to the History.
class DeliveryLog {
 public:
  DeliveryLog(Runtime& rt, std::shared_ptr<sim::History> history, std::string consumer, std::string group);
  // `pulled_from`: the broker id that served the batch (ConsumeRecord::pulled_from), -1 unknown;
  // `lock_at`: an orderly clustering consumer's last lock confirmation (ConsumeRecord::lock_at).
  void record(const std::vector<MessageExt>& msgs, const MessageQueue& queue, std::int64_t pulled_from = -1,
              std::optional<MonoTime> lock_at = std::nullopt);
  // A POP consumer's delivery of `m` from `queue` at `offset` (ConsumeRecord::pop: `pop`); returns
  // its index in History::consumes (for its PopAckRecord).
  std::uint64_t record_pop(const MessageExt& m, const MessageQueue& queue, QueueOffset offset, sim::PopDelivery pop);
  // An ack of POP delivery `consume` sent now: recorded before its answer (a consumer that dies
  // waiting still tried; the broker may have taken it), unanswered until finish_pop_ack.
  std::uint64_t begin_pop_ack(std::uint64_t consume);
  void finish_pop_ack(std::uint64_t ack, const Status& answer);
  // Push consumers: a rebalance Event when `now` is not the ProcessQueue `queue` had last time.
  void note_process_queue(const MessageQueue& queue, const std::shared_ptr<const client::ProcessQueue>& now);
  // Lite pull consumers: a rebalance Event for each queue held again after it was given up.
  void note_assignment(const std::vector<MessageQueue>& held);

 private:
  void retaken(const MessageQueue& queue);
  sim::ConsumeRecord delivery(const MessageExt& m, const MessageQueue& queue) const;

  Runtime& rt_;
  std::shared_ptr<sim::History> history_;
  std::string consumer_;
  std::string group_;
  std::map<MessageQueue, std::weak_ptr<const client::ProcessQueue>> process_queues_;
  std::set<MessageQueue> held_;      // the assignment at the last look
  std::set<MessageQueue> ever_held_;
};

// What the liveness requirements and tests ask of every consumer node.
class ConsumerNode : public ClientApp {
 public:
  // The queues this consumer holds now, sorted (orderly: only those it holds the broker lock of).
  virtual std::vector<MessageQueue> held_queues() const = 0;
  virtual client::PushConsumer* push() { return nullptr; }
  virtual client::LitePullConsumer* lite_pull() { return nullptr; }
};

class PushConsumerApp final : public ConsumerNode {
 public:
  PushConsumerApp(Runtime& rt, const client::ClientConfig& cc, const ConsumerSpec& spec, bool orderly,
                  std::shared_ptr<sim::History> history);
  ~PushConsumerApp() override;
  std::vector<MessageQueue> held_queues() const override;
  client::PushConsumer* push() override { return consumer_.get(); }
  const client::ClientInstance& client_instance() const override { return *instance_; }

 private:
  // A replying consumer (ConsumerSpec::replies): what its listener hands to the loop.
  struct Replier {
    Runtime& rt;
    ConsumerSpec::Replies::Body body;
    std::unique_ptr<client::Producer> producer;
    std::vector<std::uint8_t> previous;  // the body of the request answered last (Body::previous)
    bool alive = true;                   // false once the app is going: posted replies are dropped
  };
  // Sends a reply to each of `requests` (on the loop).
  static void reply(const std::shared_ptr<Replier>& r, const std::vector<MessageExt>& requests);

  std::shared_ptr<DeliveryLog> log_;
  std::unique_ptr<client::ClientInstance> instance_;
  std::unique_ptr<client::PushConsumer> consumer_;
  std::shared_ptr<Replier> replier_;
};

class LitePullConsumerApp final : public ConsumerNode {
 public:
  // How long one poll waits for messages: short, so that the assignment is looked at often.
  static constexpr Duration kPollTimeout = std::chrono::milliseconds(200);

  LitePullConsumerApp(Runtime& rt, const client::ClientConfig& cc, const ConsumerSpec& spec, std::shared_ptr<sim::History> history);
  ~LitePullConsumerApp() override;
  std::vector<MessageQueue> held_queues() const override { return consumer_->assignment(); }
  client::LitePullConsumer* lite_pull() override { return consumer_.get(); }
  const client::ClientInstance& client_instance() const override { return *instance_; }

 private:
  static Task<void> run(LitePullConsumerApp* self);

  Runtime& rt_;
  std::optional<Duration> rewind_every_;  // ConsumerSpec::rewind_every
  MonoTime last_rewind_{};
  std::shared_ptr<DeliveryLog> log_;
  std::unique_ptr<client::ClientInstance> instance_;
  std::unique_ptr<client::LitePullConsumer> consumer_;
};

// A PopConsumer (ConsumerSpec::pop) receiving from its topic in kReceivers loops. Each message is recorded
// with its invisible time, then acknowledged with probability ack_percent (the ack recorded as a
// PopAckRecord) or left to come back. No queue is its own: held_queues() is empty and the
// liveness phase asks no assignment of its group.
class PopConsumerApp final : public ConsumerNode {
 public:
  // After an error or a full long-polling queue, the next POP waits this long.
  static constexpr Duration kRetryWait = std::chrono::milliseconds(500);
  // Receive loops at once (an application's threads): the receives go round the topic's brokers,
  // and one long-polling a broker with nothing does not hold up the others.
  static constexpr int kReceivers = 4;

  PopConsumerApp(Runtime& rt, const client::ClientConfig& cc, const ConsumerSpec& spec, std::shared_ptr<sim::History> history);
  ~PopConsumerApp() override;
  std::vector<MessageQueue> held_queues() const override { return {}; }
  const client::ClientInstance& client_instance() const override { return *instance_; }

 private:
  static Task<void> run(PopConsumerApp* self);
  // The queue a received message is in, by its receipt handle (the POP retry topic's for a retry).
  MessageQueue queue_of(const ReceiptHandle& h) const;

  Runtime& rt_;
  std::string group_;
  std::string topic_;
  ConsumerSpec::Pop pop_;
  std::shared_ptr<DeliveryLog> log_;
  std::unique_ptr<client::ClientInstance> instance_;
  std::unique_ptr<client::PopConsumer> consumer_;
};

}  // namespace ferry::sim::cluster
