// ConsumerHandle: what a consumer (push, lite pull) registers with its ClientInstance. The
// instance asks it for its heartbeat entry, tells it when the readable queues of a subscribed
// topic change (the rebalance input), and drives its periodic rebalance and offset persistence.
// It also hands it what a broker asks of the group's clients (docs/client.md, "Broker-to-client
// requests"); a consumer that does not serve one of those keeps the default answer.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/message.h"
#include "common/message_queue.h"
#include "remoting/body/consumer_running_info.h"
#include "remoting/body/heartbeat_data.h"
#include "runtime/task.h"

namespace ferry::client {

class ConsumerHandle {
 public:
  virtual ~ConsumerHandle() = default;
  // This consumer's entry in HEART_BEAT: group, consume type, model, consumeFromWhere and its
  // subscriptions (the instance polls the routes of their topics). Called on the loop.
  virtual remoting::body::ConsumerData consumer_data() const = 0;
  // The readable queues of `topic` (sorted) changed after a route update. Called on the loop.
  virtual void on_subscribe_queues_changed(const std::string& topic, const std::vector<MessageQueue>& queues) {
    (void)topic;
    (void)queues;
  }
  // Run a rebalance soon, in the consumer's own tasks (the instance's 20 s timer and
  // NOTIFY_CONSUMER_IDS_CHANGED). Must not run consumer code inline beyond scheduling.
  virtual void rebalance_soon() {}
  // Persist the consumer's offsets soon, in its own tasks (the instance's 5 s timer).
  virtual void persist_offsets_soon() {}

  // ---- broker-to-client requests (called by the instance on the loop) ---------------------
  // RESET_CONSUMER_CLIENT_OFFSET (220): the held queues of `topic` named in `offsets` start again
  // from there (the default ignores it, as RocketMQ's non-push consumers do).
  virtual void reset_offsets(const std::string& topic, const std::map<MessageQueue, QueueOffset>& offsets) {
    (void)topic;
    (void)offsets;
  }
  // GET_CONSUMER_STATUS_FROM_CLIENT (221): the in-memory offsets of `topic`'s queues.
  virtual std::map<MessageQueue, QueueOffset> offsets_of(const std::string& topic) const {
    (void)topic;
    return {};
  }
  // GET_CONSUMER_RUNNING_INFO (307): this consumer's part of ConsumerRunningInfo (the instance adds
  // its own properties); nullopt when it has none to give.
  virtual std::optional<remoting::body::ConsumerRunningInfo> running_info() const { return std::nullopt; }
  // CONSUME_MESSAGE_DIRECTLY (309): `msg` handed to the listener once, outside the queues (no
  // offset moves, nothing is sent back); nullopt when this consumer has no listener to call.
  // The Task must not outlive the consumer's instance.
  virtual Task<std::optional<remoting::body::ConsumeMessageDirectlyResult>> consume_directly(MessageExt msg,
                                                                                            std::string broker_name) {
    (void)msg;
    (void)broker_name;
    co_return std::nullopt;
  }
};

}  // namespace ferry::client
