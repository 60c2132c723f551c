#include "client_api/blocking_lite_pull_consumer.h"

#include "client_api/loop_call.h"

namespace ferry::client_api {

namespace {
Task<Status> ready(Status s) { co_return s; }
Task<void> done() { co_return; }
}  // namespace

std::future<Status> BlockingLitePullConsumer::subscribe(std::string topic, std::string expression) {
  client::LitePullConsumer* c = &consumer_;
  return call_on_loop(rt_, [c, topic = std::move(topic), expression = std::move(expression)] {
    return ready(c->subscribe(topic, expression));
  });
}

std::future<Status> BlockingLitePullConsumer::subscribe(std::string topic, client::MessageSelector selector) {
  client::LitePullConsumer* c = &consumer_;
  return call_on_loop(rt_, [c, topic = std::move(topic), selector = std::move(selector)] {
    return ready(c->subscribe(topic, selector));
  });
}

std::future<Status> BlockingLitePullConsumer::assign(std::vector<MessageQueue> mqs) {
  client::LitePullConsumer* c = &consumer_;
  return call_on_loop(rt_, [c, mqs = std::move(mqs)]() mutable { return ready(c->assign(std::move(mqs))); });
}

std::future<Status> BlockingLitePullConsumer::start() {
  client::LitePullConsumer* c = &consumer_;
  return call_on_loop(rt_, [c] { return ready(c->start()); });
}

std::future<void> BlockingLitePullConsumer::shutdown() {
  client::LitePullConsumer* c = &consumer_;
  return call_on_loop(rt_, [c] { return c->shutdown(); });
}

std::future<std::vector<MessageExt>> BlockingLitePullConsumer::poll(Duration timeout) {
  client::LitePullConsumer* c = &consumer_;
  return call_on_loop(rt_, [c, timeout] { return c->poll(timeout); });
}

std::future<void> BlockingLitePullConsumer::commit() {
  client::LitePullConsumer* c = &consumer_;
  return call_on_loop(rt_, [c] { return c->commit(); });
}

std::future<Status> BlockingLitePullConsumer::seek(MessageQueue mq, QueueOffset offset) {
  client::LitePullConsumer* c = &consumer_;
  return call_on_loop(rt_, [c, mq = std::move(mq), offset] { return c->seek(mq, offset); });
}

std::future<Status> BlockingLitePullConsumer::seek_to_begin(MessageQueue mq) {
  client::LitePullConsumer* c = &consumer_;
  return call_on_loop(rt_, [c, mq = std::move(mq)] { return c->seek_to_begin(mq); });
}

std::future<Status> BlockingLitePullConsumer::seek_to_end(MessageQueue mq) {
  client::LitePullConsumer* c = &consumer_;
  return call_on_loop(rt_, [c, mq = std::move(mq)] { return c->seek_to_end(mq); });
}

std::future<Result<std::optional<QueueOffset>>> BlockingLitePullConsumer::committed(MessageQueue mq) {
  client::LitePullConsumer* c = &consumer_;
  return call_on_loop(rt_, [c, mq = std::move(mq)] { return c->committed(mq); });
}

std::future<void> BlockingLitePullConsumer::pause(std::vector<MessageQueue> mqs) {
  client::LitePullConsumer* c = &consumer_;
  return call_on_loop(rt_, [c, mqs = std::move(mqs)] {
    c->pause(mqs);
    return done();
  });
}

std::future<void> BlockingLitePullConsumer::resume(std::vector<MessageQueue> mqs) {
  client::LitePullConsumer* c = &consumer_;
  return call_on_loop(rt_, [c, mqs = std::move(mqs)] {
    c->resume(mqs);
    return done();
  });
}

}  // namespace ferry::client_api
