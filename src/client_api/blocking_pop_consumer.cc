#include "client_api/blocking_pop_consumer.h"

#include "client_api/loop_call.h"

namespace ferry::client_api {

namespace {
Task<Status> ready(Status s) { co_return s; }

// The messages live in these frames: the loop_call lambda that made the task is gone by the
// time it runs.
Task<Status> acked(client::PopConsumer* c, MessageExt m) {
  Task<Status> t = c->ack(m);
  co_return co_await std::move(t);
}

Task<Status> all_acked(client::PopConsumer* c, std::vector<MessageExt> messages) {
  Task<Status> t = c->ack_all(messages);
  co_return co_await std::move(t);
}

Task<Result<MessageExt>> changed(client::PopConsumer* c, MessageExt m, Duration invisible_time) {
  Task<Status> change = c->change_invisible_time(m, invisible_time);
  Status s = co_await std::move(change);
  if (!s.ok()) co_return s.error();
  co_return m;
}
}  // namespace

std::future<Status> BlockingPopConsumer::subscribe(std::string topic, client::MessageSelector selector) {
  client::PopConsumer* c = &consumer_;
  return call_on_loop(rt_, [c, topic = std::move(topic), selector = std::move(selector)] {
    return ready(c->subscribe(topic, selector));
  });
}

std::future<Result<client::PopResult>> BlockingPopConsumer::receive(std::string topic) {
  client::PopConsumer* c = &consumer_;
  return call_on_loop(rt_, [c, topic = std::move(topic)] { return c->receive(topic); });
}

std::future<Result<client::PopResult>> BlockingPopConsumer::receive(std::string topic, std::int32_t max_messages,
                                                                    Duration invisible_time) {
  client::PopConsumer* c = &consumer_;
  return call_on_loop(rt_, [c, topic = std::move(topic), max_messages, invisible_time] {
    return c->receive(topic, max_messages, invisible_time);
  });
}

std::future<Status> BlockingPopConsumer::ack(MessageExt m) {
  client::PopConsumer* c = &consumer_;
  return call_on_loop(rt_, [c, m = std::move(m)]() mutable { return acked(c, std::move(m)); });
}

std::future<Status> BlockingPopConsumer::ack_all(std::vector<MessageExt> messages) {
  client::PopConsumer* c = &consumer_;
  return call_on_loop(rt_, [c, messages = std::move(messages)]() mutable { return all_acked(c, std::move(messages)); });
}

std::future<Result<MessageExt>> BlockingPopConsumer::change_invisible_time(MessageExt m, Duration invisible_time) {
  client::PopConsumer* c = &consumer_;
  return call_on_loop(rt_, [c, m = std::move(m), invisible_time]() mutable {
    return changed(c, std::move(m), invisible_time);
  });
}

}  // namespace ferry::client_api
