// Producer: sends messages through a ClientInstance (RocketMQ's DefaultMQProducer /
// DefaultMQProducerImpl). Coroutine API for component code and simulation; application threads
// use client_api/blocking_producer.h.
//
//   Producer p(instance, ProducerConfig{.group = "PG"});
//   FERRY_TRY(p.start());                           // registers the group, starts the instance
//   Result<SendResult> r = co_await p.send(msg);    // sync: up to 1 + 2 attempts, another broker each
//   p.send_async(msg, [](Result<SendResult> r) {...});
//   Status s = co_await p.send_oneway(msg);
//   Result<SendResult> b = co_await p.send_batch(msgs);
//   Result<SendResult> o = co_await p.send(msg, select_by_hash(order_id));   // ordered
//   co_await p.shutdown();                          // UNREGISTER_CLIENT for the group
//
// Every send first sets UNIQ_KEY when the message has none (the SendResult's msg_id), checks the
// message (check_message: topic, system topics, body size → invalid_argument), finds the topic's
// publish info (routes from the NameServer; an unknown topic gets TBW102's route, capped at
// default_topic_queue_nums queues, and the broker creates it on the first send), compresses a
// body of compress_body_over_bytes or more, and sends SEND_MESSAGE_V2 (batches:
// SEND_BATCH_MESSAGE, never compressed) to the master of the chosen queue's broker.
//
// Retries (sync and async sends without a selector): an attempt that gets no reply, or a reply
// TOPIC_NOT_EXIST / SERVICE_NOT_AVAILABLE / SYSTEM_ERROR / NO_PERMISSION, is retried on a queue
// of another broker while the send timeout (3 s, all attempts together) lasts; other broker
// errors end the send. A stored-but-not-flushed status is returned as a result unless
// retry_another_broker_when_not_store_ok. Each attempt's latency goes to the fault strategy
// (latency_fault_tolerance.h), which avoids slow or failed brokers when enabled.
//
// Errors: invalid_argument (the message), not_found (no route for the topic, naming the topic
// and the NameServer error), timed_out (the send timeout passed before an attempt could start, or
// the last attempt timed out), closed (the producer or instance was shut down), busy (too many
// async sends in flight), or the last attempt's error; the detail names the topic, the attempts
// and the brokers tried, and a broker's error its name, address and reply code.
//
// With enable_msg_trace each stored send (sync or async; oneway sends have no result) leaves a Pub
// trace record (trace_dispatcher.h); trace() is the dispatcher.
//
// Lifetime: loop thread only. The ClientInstance must outlive the producer; the producer must
// outlive every Task it returned. Async sends in flight are owned by the producer: destroying it
// drops them without calling their callbacks.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "client/client_instance.h"
#include "client/latency_fault_tolerance.h"
#include "client/owned_tasks.h"
#include "client/producer_config.h"
#include "client/queue_selector.h"
#include "client/send_request.h"
#include "client/send_result.h"
#include "common/message.h"
#include "runtime/log_limiter.h"

namespace ferry::client {

class TraceDispatcher;

class Producer {
 public:
  Producer(ClientInstance& instance, ProducerConfig config);
  ~Producer();
  Producer(const Producer&) = delete;
  Producer& operator=(const Producer&) = delete;

  // Registers the group with the instance and starts the instance. Errors: invalid_argument
  // (bad or duplicate group name).
  Status start();
  // Unregisters the group (UNREGISTER_CLIENT to every broker). Sends afterwards fail (closed).
  Task<void> shutdown();

  Task<Result<SendResult>> send(Message msg);
  // To the queue `selector` picks among the topic's writable queues; no retry.
  Task<Result<SendResult>> send(Message msg, QueueSelector selector);
  // To exactly `mq`; no retry.
  Task<Result<SendResult>> send_to(Message msg, MessageQueue mq);
  // Like send(), with retry_times_when_send_async_failed retries; `cb` runs on the loop, never
  // inside this call.
  void send_async(Message msg, SendCallback cb);
  // One attempt, no reply awaited. Errors: as send() up to the hand-off to the connection.
  Task<Status> send_oneway(Message msg);
  // One SEND_BATCH_MESSAGE with every message of `msgs` (check_batch rules); msg_id lists the
  // messages' UNIQ_KEYs comma-joined.
  Task<Result<SendResult>> send_batch(std::vector<Message> msgs);

  // Request-reply (RocketMQ 4.6+, docs/request_reply.md): sends `msg` with CORRELATION_ID (a new
  // UUID), REPLY_TO_CLIENT (this instance's client id) and TTL (`timeout` in ms), then waits for
  // the reply a consumer sends back (reply_message.h), which the broker pushes to this instance.
  // The reply's wait and the send share `timeout`. Errors: the send's ("send request message to T
  // fail: ..."); timed_out when the send succeeded but no reply came ("send request message to T
  // OK, but wait reply message timeout, N ms."); busy past kRepliesAwaitedMax requests waiting.
  Task<Result<MessageExt>> request(Message msg, Duration timeout);
  // The same; `cb` runs on the loop with the reply or the error, never inside this call.
  using RequestCallback = std::function<void(Result<MessageExt>)>;
  void request_async(Message msg, RequestCallback cb, Duration timeout);

  const ProducerConfig& config() const { return config_; }
  const FaultStrategy& fault_strategy() const { return fault_; }
  std::size_t async_in_flight() const { return async_in_flight_; }
  // Send attempts made (each retry counts), and those that failed.
  std::uint64_t attempts() const { return attempts_; }
  std::uint64_t failed_attempts() const { return failed_attempts_; }
  // The message trace (enable_msg_trace), else nullptr.
  TraceDispatcher* trace() { return trace_.get(); }

 private:
  enum class Mode : std::uint8_t { sync, async, oneway };
  struct [[nodiscard]] Outcome {  // of one attempt
    Result<SendResult> result;
    bool retryable = false;
  };

  // Sets UNIQ_KEY, checks and prepares the message.
  // Sets a missing UNIQ_KEY on `msg` and prepares it; with take_body, the body moves out of
  // `msg` (callers that do not read it again).
  Result<PreparedMessage> prepare(Message& msg, bool batch, bool take_body);
  Task<Result<TopicPublishInfo*>> find_publish_info(std::string topic);
  Task<Result<SendResult>> send_default(PreparedMessage m, Mode mode);
  Task<Outcome> attempt(const PreparedMessage& m, MessageQueue mq, Mode mode, Duration timeout);
  Task<Outcome> attempt_once(const PreparedMessage& m, MessageQueue mq, Mode mode, Duration timeout);
  Task<Result<SendResult>> send_selected(Message msg, QueueSelector selector, std::optional<MessageQueue> fixed);
  static Task<void> run_async(Producer* self, Message msg, SendCallback cb);
  static Task<void> run_request(Producer* self, Message msg, RequestCallback cb, Duration timeout);
  Status check_running() const;
  void trace_pub(const PreparedMessage& m, const SendResult& r, const std::string& broker, WallMs began_ms);

  ClientInstance& ci_;
  Runtime& rt_;
  const ProducerConfig config_;
  FaultStrategy fault_;
  bool started_ = false;
  bool shut_down_ = false;
  std::size_t async_in_flight_ = 0;
  std::uint64_t attempts_ = 0;
  std::uint64_t failed_attempts_ = 0;
  LogLimiter attempt_error_log_;   // failed attempts (each send while a broker is away), by Errc
  LogLimiter callback_error_log_;  // async send callbacks that threw
  std::unique_ptr<TraceDispatcher> trace_;
  OwnedTasks tasks_;  // last: async sends die first
};

}  // namespace ferry::client
