// BlockingLitePullConsumer: the LitePullConsumer for application threads. Each call is handed
// to the client's loop and returns a future; poll_for() blocks the calling thread for at most
// about `timeout` (never call it on the loop thread: it would wait for itself).
//
//   BlockingLitePullConsumer bl(rt, lite);
//   bl.subscribe("T", "*").get();  bl.start().get();
//   std::vector<MessageExt> batch = bl.poll_for(std::chrono::seconds(5));
//   bl.commit().get();
//
// One poll at a time (the LitePullConsumer's rule). The LitePullConsumer and its ClientInstance
// must outlive every call in flight.
#pragma once

#include <future>
#include <optional>
#include <string>
#include <vector>

#include "client/lite_pull_consumer.h"

namespace ferry::client_api {

class BlockingLitePullConsumer {
 public:
  BlockingLitePullConsumer(Runtime& rt, client::LitePullConsumer& consumer) : rt_(rt), consumer_(consumer) {}

  std::future<Status> subscribe(std::string topic, std::string expression);
  // SQL92 or tags (client/message_selector.h).
  std::future<Status> subscribe(std::string topic, client::MessageSelector selector);
  std::future<Status> assign(std::vector<MessageQueue> mqs);
  std::future<Status> start();
  std::future<void> shutdown();
  std::future<std::vector<MessageExt>> poll(Duration timeout);
  // poll(timeout).get(): blocks this application thread.
  std::vector<MessageExt> poll_for(Duration timeout) { return poll(timeout).get(); }
  std::future<void> commit();
  std::future<Status> seek(MessageQueue mq, QueueOffset offset);
  std::future<Status> seek_to_begin(MessageQueue mq);
  std::future<Status> seek_to_end(MessageQueue mq);
  std::future<Result<std::optional<QueueOffset>>> committed(MessageQueue mq);
  std::future<void> pause(std::vector<MessageQueue> mqs);
  std::future<void> resume(std::vector<MessageQueue> mqs);

 private:
  Runtime& rt_;
  client::LitePullConsumer& consumer_;
};

}  // namespace ferry::client_api
