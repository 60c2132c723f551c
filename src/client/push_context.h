// PushContext: what the three jobs of a PushConsumer share — its rebalance (push_rebalance.h),
// its pull loops (pull_service.h) and its consume service (consume_service.h) — and the counters
// they keep. Nothing here gives one job another's state: what a job needs from another is passed
// to it explicitly (see each job's constructor).
//
// Lifetime: the PushConsumer owns everything referred to here and builds the jobs in start();
// the jobs hold the context by value (references) until the consumer is destroyed. Every task a
// job spawns goes into `tasks`, which the consumer destroys before the jobs (shutdown() or its
// destructor), so no task outlives the job it refers to. Loop thread only.
#pragma once

#include <cstdint>

#include "client/client_instance.h"
#include "client/consume_rates.h"
#include "client/consumer_config.h"
#include "client/offset_store.h"
#include "client/owned_tasks.h"

namespace ferry::client {

class TraceDispatcher;

struct PushConsumerStats {
  std::uint64_t rebalances = 0;             // PushRebalance: rounds run
  std::uint64_t pulls = 0;                  // PullService: PULL_MESSAGE calls
  std::uint64_t pulled_messages = 0;
  std::uint64_t flow_controlled = 0;        // a pull delayed by flow control
  std::uint64_t listener_calls = 0;         // ConsumeService from here on
  std::uint64_t reconsume_later = 0;
  std::uint64_t sent_back = 0;              // CONSUMER_SEND_MSG_BACK accepted
  std::uint64_t resent_to_retry_topic = 0;  // send-back failed; the inner producer re-sent it
  std::uint64_t send_back_failed = 0;       // both failed: consumed again locally
  std::uint64_t expired = 0;                // consume_timeout passed: sent back, removed
  std::uint64_t lock_rounds = 0;            // PushRebalance: lock_all() rounds
  std::uint64_t offset_resets = 0;          // PushRebalance: queues restarted by RESET_CONSUMER_CLIENT_OFFSET
  std::uint64_t offsets_moved = 0;          // PullService: a pull answered OFFSET_ILLEGAL moved the offset
};

struct PushContext {
  ClientInstance& ci;
  Runtime& rt;
  const PushConsumerConfig& config;
  OffsetStore& offsets;
  OwnedTasks& tasks;
  PushConsumerStats& stats;
  bool orderly = false;  // the listener is orderly (fixed at start())
  ConsumeRates* rates = nullptr;  // pull and consume rates per topic (running info); owned by the consumer
  TraceDispatcher* trace = nullptr;  // enable_msg_trace: SubBefore / SubAfter records; owned by the consumer

  bool clustering() const { return config.message_model == MessageModel::CLUSTERING; }
  // Orderly clustering consumers consume a queue only while they hold its broker lock.
  bool needs_locks() const { return orderly && clustering(); }
};

}  // namespace ferry::client
