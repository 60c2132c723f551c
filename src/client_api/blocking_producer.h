// BlockingProducer: the Producer for application threads. Every method may be called from any
// thread; it hands the call to the client's loop (Executor::post) and returns a future, or calls
// the callback off the loop (Runtime::offload: the offload pool in production, inline in
// simulation), so a slow callback never stalls the client.
//
//   AsioRuntime rt(...);  ClientInstance ci(rt, cfg);  Producer p(ci, pcfg);   // built on the loop
//   BlockingProducer bp(rt, p);
//   Result<SendResult> r = bp.send(msg).get();                   // any application thread
//   bp.send_async(msg, [](Result<SendResult> r) { ... });        // runs on an offload thread
//
// The Producer (and its ClientInstance) must outlive every call in flight; start and shut them
// down on the loop (or through call_on_loop).
#pragma once

#include <functional>
#include <future>
#include <vector>

#include "client/producer.h"

namespace ferry::client_api {

class BlockingProducer {
 public:
  BlockingProducer(Runtime& rt, client::Producer& producer) : rt_(rt), producer_(producer) {}

  std::future<Result<client::SendResult>> send(Message msg);
  std::future<Result<client::SendResult>> send(Message msg, client::QueueSelector selector);
  std::future<Status> send_oneway(Message msg);
  std::future<Result<client::SendResult>> send_batch(std::vector<Message> msgs);
  // `cb` runs once, off the loop.
  void send_async(Message msg, std::function<void(Result<client::SendResult>)> cb);
  // Request-reply (Producer::request): the reply, or why none came within `timeout`.
  std::future<Result<MessageExt>> request(Message msg, Duration timeout);

 private:
  Runtime& rt_;
  client::Producer& producer_;
};

}  // namespace ferry::client_api
