// BlockingPushConsumer: the PushConsumer for application threads. Configure with subscribe() and
// set_listener() before start(); every call may come from any thread and is handed to the
// client's loop (Executor::post). Listeners are plain std::function and run off the loop
// (Runtime::offload: the offload pool in production, inline in simulation), so they may block.
//
//   AsioRuntime rt(...);  ClientInstance ci(rt, cfg);  PushConsumer c(ci, pcfg);   // on the loop
//   BlockingPushConsumer bc(rt, c);
//   bc.subscribe("T", "TagA || TagB").get();
//   bc.set_listener([](const std::vector<MessageExt>& msgs, ConsumeConcurrentlyContext&) {
//     return ConsumeConcurrentlyStatus::CONSUME_SUCCESS; });
//   bc.start().get();  ...  bc.shutdown().get();
//
// The PushConsumer (and its ClientInstance) must outlive every call in flight.
#pragma once

#include <future>
#include <string>

#include "client/push_consumer.h"

namespace ferry::client_api {

class BlockingPushConsumer {
 public:
  BlockingPushConsumer(Runtime& rt, client::PushConsumer& consumer) : rt_(rt), consumer_(consumer) {}

  std::future<Status> subscribe(std::string topic, std::string expression);
  // SQL92 or tags (client/message_selector.h).
  std::future<Status> subscribe(std::string topic, client::MessageSelector selector);
  std::future<void> set_listener(client::ConcurrentListener listener);
  std::future<void> set_listener(client::OrderlyListener listener);
  std::future<Status> start();
  std::future<void> shutdown();

 private:
  Runtime& rt_;
  client::PushConsumer& consumer_;
};

}  // namespace ferry::client_api
