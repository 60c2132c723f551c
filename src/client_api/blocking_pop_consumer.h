// BlockingPopConsumer: the PopConsumer (client/pop_consumer.h) for application threads. Each call
// is handed to the client's loop and returns a future; receive_for() blocks the calling thread
// for at most about the consumer's poll time (never call it on the loop thread: it would wait for
// itself).
//
//   BlockingPopConsumer bc(rt, pop);
//   bc.subscribe("T", MessageSelector::by_tag("*")).get();
//   Result<PopResult> r = bc.receive_for("T");
//   for (const MessageExt& m : r->messages) { ... bc.ack(m).get(); }
//
// Any number of threads may receive at once (POP shares queues). The PopConsumer and its
// ClientInstance must outlive every call in flight.
#pragma once

#include <future>
#include <string>
#include <vector>

#include "client/pop_consumer.h"

namespace ferry::client_api {

class BlockingPopConsumer {
 public:
  BlockingPopConsumer(Runtime& rt, client::PopConsumer& consumer) : rt_(rt), consumer_(consumer) {}

  std::future<Status> subscribe(std::string topic, client::MessageSelector selector);
  std::future<Result<client::PopResult>> receive(std::string topic);
  std::future<Result<client::PopResult>> receive(std::string topic, std::int32_t max_messages, Duration invisible_time);
  // receive(topic).get(): blocks this application thread.
  Result<client::PopResult> receive_for(std::string topic) { return receive(std::move(topic)).get(); }
  std::future<Status> ack(MessageExt m);
  std::future<Status> ack_all(std::vector<MessageExt> messages);
  // The future's message carries the new handle (POP_CK) when the change succeeded.
  std::future<Result<MessageExt>> change_invisible_time(MessageExt m, Duration invisible_time);

 private:
  Runtime& rt_;
  client::PopConsumer& consumer_;
};

}  // namespace ferry::client_api
