// TraceDispatcher: the message trace of one producer or consumer with enable_msg_trace (RocketMQ
// 4.9's AsyncTraceDispatcher with its send, consume and end-transaction hooks). The records'
// format is common/message_trace.h; docs/compatibility.md, "Message trace", says what differs.
//
//   Pub             a send stored by a broker that answered a region and TRACE_ON=true (not
//                   oneway sends: they have no result), one per successful attempt
//   SubBefore       each message handed to a push consumer's listener (not those whose TRACE_ON
//                   property is "false"), one request id per listener call
//   SubAfter        the same messages after the call: success, cost per message, and the
//                   ConsumeReturnType's ordinal as context code
//   EndTransaction  each verdict a transaction producer sends, also answers to broker checks
//
// append() encodes a context at once into the open batch. A batch is sent as one message to the
// trace topic (RMQ_SYS_TRACE_TOPIC unless configured) by an inner producer of group
// "_INNER_TRACE_PRODUCER-{group}-{PRODUCE|CONSUME}" on the same client instance (5 s send
// timeout, the usual retries, never traced itself) when it reaches kBatchBytes, or kBatchWait
// after its first context. The message's KEYS are the traced messages' msgIds and keys (sorted,
// space-separated), so that a query by msgId — `mqadmin queryMsgTraceById` — finds it.
//
// Bounded: at most kContextsMax contexts wait in the batch or in sends not yet answered; past
// that append() drops the context and counts it (RocketMQ: "buffer full"). A failed trace send is
// logged and counted, never retried beyond the producer's retries, and never fails the traced
// send or consumption.
//
// shutdown() sends the open batch and waits up to kFlushWait for the sends in flight, then
// unregisters the inner producer. Lifetime: loop thread only; the instance outlives it.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <string>

#include "client/client_instance.h"
#include "client/owned_tasks.h"
#include "common/message_trace.h"
#include "runtime/log_limiter.h"
#include "runtime/time.h"

namespace ferry::client {

class Producer;

enum class TraceRole : std::uint8_t { produce, consume };

// RocketMQ's ConsumeReturnType, whose ordinal is a SubAfter's context code.
enum class ConsumeReturnType : std::int32_t { success = 0, time_out = 1, exception = 2, return_null = 3, failed = 4 };

struct TraceStats {
  std::uint64_t appended = 0;     // contexts taken into a batch
  std::uint64_t dropped = 0;      // contexts refused: kContextsMax were waiting
  std::uint64_t sends = 0;        // trace messages sent
  std::uint64_t sent_contexts = 0;  // contexts in trace messages the broker stored
  std::uint64_t failed_sends = 0;
};

class TraceDispatcher {
 public:
  static constexpr std::size_t kContextsMax = 1024;
  // RocketMQ: maxMsgSize 128000 less 10000 of headroom.
  static constexpr std::size_t kBatchBytes = 118'000;
  static constexpr Duration kBatchWait = std::chrono::milliseconds(500);
  static constexpr Duration kFlushWait = std::chrono::seconds(1);
  static constexpr Duration kSendTimeout = std::chrono::seconds(5);

  // `group`: the traced producer's or consumer's group; `topic` empty = RMQ_SYS_TRACE_TOPIC.
  TraceDispatcher(ClientInstance& ci, std::string group, TraceRole role, std::string topic);
  ~TraceDispatcher();
  TraceDispatcher(const TraceDispatcher&) = delete;
  TraceDispatcher& operator=(const TraceDispatcher&) = delete;

  // Registers the inner producer. Errors: as Producer::start().
  Status start();
  Task<void> shutdown();

  // Takes `ctx` into the open batch; false when it was dropped (full, or shut down).
  bool append(const TraceContext& ctx);
  // A new SubBefore request id (a unique message id, as RocketMQ's).
  std::string new_request_id();

  const std::string& topic() const { return topic_; }
  const std::string& group() const { return group_; }
  const TraceStats& stats() const { return stats_; }

 private:
  void send_batch();
  static Task<void> flush_later(TraceDispatcher* self, std::uint64_t batch);

  ClientInstance& ci_;
  const std::string group_;
  const std::string topic_;
  std::unique_ptr<Producer> producer_;
  std::string batch_;
  std::set<std::string> batch_keys_;
  std::size_t batch_contexts_ = 0;
  std::uint64_t batch_number_ = 0;  // of the open batch (its flush timer compares)
  std::size_t waiting_ = 0;         // contexts in the open batch and in unanswered sends
  bool running_ = false;
  TraceStats stats_;
  LogLimiter drop_log_;        // contexts dropped (0 buffer full, 1 shut down)
  LogLimiter send_error_log_;  // batches not sent, by Errc
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  OwnedTasks tasks_;  // last: dies first
};

// The dispatcher of a producer or consumer with enable_msg_trace, started; nullptr (and a warning
// naming `owner`) when its inner group cannot register — only a group named like the inner one can
// be in the way, and the owner then runs untraced.
std::unique_ptr<TraceDispatcher> start_trace(ClientInstance& ci, const std::string& group, TraceRole role,
                                             const std::string& topic, std::string_view owner);

// What the hooks build (pure: tested without a broker).
// The message type's ordinal of a trace bean: 1 half (TRAN_MSG=true), 3 delayed (DELAY > 0), else 0.
std::int32_t trace_msg_type(const Message& msg);
// SubBefore for one message of a listener call; nullopt when its TRACE_ON property is "false".
std::optional<TraceContext> sub_before_context(const MessageExt& msg, const std::string& group,
                                               const std::string& request_id, WallMs now_ms);
// The SubAfter that answers `before`.
TraceContext sub_after_context(const TraceContext& before, bool success, ConsumeReturnType code,
                               std::int32_t cost_ms_per_message, WallMs now_ms);

}  // namespace ferry::client
