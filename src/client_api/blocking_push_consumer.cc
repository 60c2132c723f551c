#include "client_api/blocking_push_consumer.h"

#include "client_api/loop_call.h"

namespace ferry::client_api {

namespace {
// Plain values as Tasks, for call_on_loop.
Task<Status> ready(Status s) { co_return s; }
Task<void> done() { co_return; }
}  // namespace

std::future<Status> BlockingPushConsumer::subscribe(std::string topic, std::string expression) {
  client::PushConsumer* c = &consumer_;
  return call_on_loop(rt_, [c, topic = std::move(topic), expression = std::move(expression)] {
    return ready(c->subscribe(topic, expression));
  });
}

std::future<Status> BlockingPushConsumer::subscribe(std::string topic, client::MessageSelector selector) {
  client::PushConsumer* c = &consumer_;
  return call_on_loop(rt_, [c, topic = std::move(topic), selector = std::move(selector)] {
    return ready(c->subscribe(topic, selector));
  });
}

std::future<void> BlockingPushConsumer::set_listener(client::ConcurrentListener listener) {
  client::PushConsumer* c = &consumer_;
  return call_on_loop(rt_, [c, listener = std::move(listener)]() mutable {
    c->set_listener(std::move(listener));
    return done();
  });
}

std::future<void> BlockingPushConsumer::set_listener(client::OrderlyListener listener) {
  client::PushConsumer* c = &consumer_;
  return call_on_loop(rt_, [c, listener = std::move(listener)]() mutable {
    c->set_listener(std::move(listener));
    return done();
  });
}

std::future<Status> BlockingPushConsumer::start() {
  client::PushConsumer* c = &consumer_;
  return call_on_loop(rt_, [c] { return ready(c->start()); });
}

std::future<void> BlockingPushConsumer::shutdown() {
  client::PushConsumer* c = &consumer_;
  return call_on_loop(rt_, [c] { return c->shutdown(); });
}

}  // namespace ferry::client_api
