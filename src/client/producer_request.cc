// Producer::request and request_async: request-reply's requesting side (producer.h).
#include <fmt/format.h>

#include "client/client_instance.h"
#include "client/producer.h"
#include "client/reply_message.h"
#include "common/message_const.h"
#include "runtime/wake_signal.h"

namespace ferry::client {

namespace {

// What the instance's reply handler fills and the waiting request reads; shared, so that a reply
// arriving after the request gave up touches nothing freed.
struct AwaitedReply {
  explicit AwaitedReply(Runtime& rt) : arrived(rt) {}
  std::optional<MessageExt> reply;
  WakeSignal arrived;
};

// Forgets the awaited id however the request's frame ends (a reply, a timeout, a cancellation).
struct ForgetReply {
  ClientInstance& ci;
  std::string id;
  ~ForgetReply() { ci.forget_reply(id); }
};

}  // namespace

Task<Result<MessageExt>> Producer::request(Message msg, Duration timeout) {
  if (Status running = check_running(); !running.ok()) co_return std::move(running).error();
  const MonoTime deadline = rt_.now() + timeout;
  const std::string topic = msg.topic;
  const std::string id = make_correlation_id(rt_.random());
  msg.properties.set(std::string(prop::kCorrelationId), id);
  msg.properties.set(std::string(prop::kMessageReplyToClient), ci_.client_id());
  msg.properties.set(std::string(prop::kMessageTtl), std::to_string(to_ms(timeout)));
  auto awaited = std::make_shared<AwaitedReply>(rt_);
  Status awaiting = ci_.await_reply(id, [awaited](MessageExt reply) {
    awaited->reply = std::move(reply);
    awaited->arrived.wake();
  });
  if (!awaiting.ok()) co_return std::move(awaiting).error();
  const ForgetReply forget{ci_, id};
  // As RocketMQ's prepareSendRequest: a topic this instance has no route of yet may live on
  // brokers it never heartbeat to, which could not push the reply to it: route, then heartbeat.
  if (ci_.find_publish_info(topic) == nullptr) {
    Task<Result<TopicPublishInfo*>> finding = find_publish_info(topic);
    (void)co_await std::move(finding);  // a failure is the send's to report
    Task<std::size_t> beating = ci_.send_heartbeat_to_all();
    (void)co_await std::move(beating);
  }
  Task<Result<SendResult>> sending = send(std::move(msg));
  Result<SendResult> sent = co_await std::move(sending);
  if (!sent.ok()) {
    Error e = std::move(sent).error();
    e.detail = fmt::format("send request message to {} fail: {}", topic, e.detail);
    co_return e;
  }
  while (!awaited->reply && rt_.now() < deadline) {
    Task<bool> waiting = awaited->arrived.wait_for(deadline - rt_.now());
    (void)co_await std::move(waiting);
  }
  if (!awaited->reply) {
    co_return Error(Errc::timed_out,
                    fmt::format("send request message to {} OK, but wait reply message timeout, {} ms.", topic, to_ms(timeout)));
  }
  co_return *std::move(awaited->reply);
}

void Producer::request_async(Message msg, RequestCallback cb, Duration timeout) {
  FERRY_ASSERT(static_cast<bool>(cb), "request_async without a callback");
  tasks_.spawn(run_request(this, std::move(msg), std::move(cb), timeout), "producer-request");
}

Task<void> Producer::run_request(Producer* self, Message msg, RequestCallback cb, Duration timeout) {
  Task<Result<MessageExt>> requesting = self->request(std::move(msg), timeout);
  Result<MessageExt> r = co_await std::move(requesting);
  cb(std::move(r));
}

}  // namespace ferry::client
