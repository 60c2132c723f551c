// ClientNode: Ferry's client library inside a daemon test, the way an application uses it: an
// AsioRuntime whose loop runs on a background thread, one ClientInstance, a producer driven through
// client_api::BlockingProducer and push consumers through client_api::BlockingPushConsumer, whose
// listeners run on the runtime's offload threads and record what they receive.
//
// Objects of the loop (producer, consumers, admin calls) are built, used and destroyed on the loop
// (client_api::call_on_loop); every method here blocks the calling test thread until that is
// done. Destruction shuts everything down (consumers, producer, instance), stops the loop and
// joins it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "client/client_instance.h"
#include "client/message_selector.h"
#include "client/producer.h"
#include "client/push_consumer.h"
#include "client_api/blocking_producer.h"
#include "client_api/blocking_push_consumer.h"
#include "client_api/blocking_transaction_producer.h"
#include "runtime/asio/asio_runtime.h"
#include "tests/support/received_messages.h"

namespace ferry::daemons_test {

// What one push consumer's listener received, in arrival order (thread-safe).
using Received = test_support::ReceivedMessages;

class ClientNode {
 public:
  // `data_dir`: the runtime's data root (created). `instance`: the client's instance name.
  // `heartbeat`: heartbeatBrokerInterval (RocketMQ's 30 s unless given).
  ClientNode(std::string data_dir, std::vector<std::string> namesrv, std::string instance,
             Duration heartbeat = std::chrono::seconds(30));
  ~ClientNode();
  ClientNode(const ClientNode&) = delete;
  ClientNode& operator=(const ClientNode&) = delete;

  // UPDATE_AND_CREATE_TOPIC on every master of `cluster` (AdminClient), then waits (10 s at most)
  // until the NameServer has a route for it.
  Status create_topic(const std::string& cluster, const std::string& topic, int queues);

  // Builds and starts the node's producer (once).
  Status start_producer(const std::string& group);
  Status start_producer(client::ProducerConfig config);
  // A blocking sync send (BlockingProducer::send(...).get()).
  Result<client::SendResult> send(Message msg);

  // Builds and starts the node's transaction producer (once); the listener runs on the runtime's
  // offload threads.
  Status start_transaction_producer(const std::string& group, client::TransactionListener listener);
  // A blocking send_in_transaction (BlockingTransactionProducer::send_in_transaction(...).get()).
  Result<client::TransactionSendResult> send_in_transaction(Message msg);

  // Builds a push consumer subscribed to `topic` / `expression` whose listener records into the
  // returned Received (CONSUME_SUCCESS always), and starts it. Consumers are numbered from 0.
  Result<std::shared_ptr<Received>> start_consumer(client::PushConsumerConfig config, const std::string& topic,
                                                   const std::string& expression);
  Result<std::shared_ptr<Received>> start_consumer(client::PushConsumerConfig config, const std::string& topic,
                                                   client::MessageSelector selector);
  // A push consumer of `topic` that answers each request it consumes (request-reply) with
  // create_reply_message and the body "pong:<request body>", sent through the node's producer
  // (start_producer first); it records what it consumed like start_consumer's.
  Result<std::shared_ptr<Received>> start_replier(client::PushConsumerConfig config, const std::string& topic);
  // A blocking request (BlockingProducer::request(...).get()): the reply, or the error.
  Result<MessageExt> request(Message msg, Duration timeout);
  // Shuts consumer `index` down (persists its offsets, unregisters) and destroys it.
  void stop_consumer(std::size_t index);

  AsioRuntime& rt() { return *rt_; }
  // For consumers built outside this class (a PopConsumer): calls on them go through the loop.
  client::ClientInstance& instance() { return *ci_; }

 private:
  // start_consumer with `also` called after recording each listener call's messages.
  Result<std::shared_ptr<Received>> start_with(client::PushConsumerConfig config, const std::string& topic,
                                               client::MessageSelector selector,
                                               std::function<void(const std::vector<MessageExt>&)> also);

  struct Consumer {
    std::unique_ptr<client::PushConsumer> consumer;
    std::unique_ptr<client_api::BlockingPushConsumer> blocking;
    std::shared_ptr<Received> received;
  };

  std::unique_ptr<AsioRuntime> rt_;
  std::unique_ptr<client::ClientInstance> ci_;
  std::unique_ptr<client::Producer> producer_;
  std::unique_ptr<client_api::BlockingProducer> blocking_producer_;
  std::unique_ptr<client::TransactionProducer> tx_producer_;
  std::unique_ptr<client_api::BlockingTransactionProducer> blocking_tx_producer_;
  std::vector<Consumer> consumers_;
  std::thread loop_;
};

}  // namespace ferry::daemons_test
