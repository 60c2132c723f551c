#include "client_api/blocking_producer.h"

#include <memory>

#include "client_api/loop_call.h"

namespace ferry::client_api {

namespace {

Task<void> run_callback(Runtime* rt, std::function<void(Result<client::SendResult>)> cb, Result<client::SendResult> r) {
  auto shared = std::make_shared<Result<client::SendResult>>(std::move(r));
  // Named locals, not temporaries in the co_await expression (GCC 12 pitfall, docs/runtime.md).
  std::function<void()> call = [cb, shared] { cb(std::move(*shared)); };
  Task<void> work = rt->offload(std::move(call));
  co_await std::move(work);
}

}  // namespace

std::future<Result<client::SendResult>> BlockingProducer::send(Message msg) {
  client::Producer* p = &producer_;
  return call_on_loop(rt_, [p, msg = std::move(msg)]() mutable { return p->send(std::move(msg)); });
}

std::future<Result<client::SendResult>> BlockingProducer::send(Message msg, client::QueueSelector selector) {
  client::Producer* p = &producer_;
  return call_on_loop(rt_, [p, msg = std::move(msg), selector = std::move(selector)]() mutable {
    return p->send(std::move(msg), std::move(selector));
  });
}

std::future<Status> BlockingProducer::send_oneway(Message msg) {
  client::Producer* p = &producer_;
  return call_on_loop(rt_, [p, msg = std::move(msg)]() mutable { return p->send_oneway(std::move(msg)); });
}

std::future<Result<client::SendResult>> BlockingProducer::send_batch(std::vector<Message> msgs) {
  client::Producer* p = &producer_;
  return call_on_loop(rt_, [p, msgs = std::move(msgs)]() mutable { return p->send_batch(std::move(msgs)); });
}

std::future<Result<MessageExt>> BlockingProducer::request(Message msg, Duration timeout) {
  client::Producer* p = &producer_;
  return call_on_loop(rt_, [p, msg = std::move(msg), timeout]() mutable { return p->request(std::move(msg), timeout); });
}

void BlockingProducer::send_async(Message msg, std::function<void(Result<client::SendResult>)> cb) {
  client::Producer* p = &producer_;
  Runtime* rt = &rt_;
  rt_.executor().post([p, rt, msg = std::move(msg), cb = std::move(cb)]() mutable {
    p->send_async(std::move(msg), [rt, cb = std::move(cb)](Result<client::SendResult> r) {
      rt->spawn(run_callback(rt, cb, std::move(r)), "client-api-callback");
    });
  });
}

}  // namespace ferry::client_api
