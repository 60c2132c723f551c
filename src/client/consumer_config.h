// Knobs of the push consumer (RocketMQ's DefaultMQPushConsumer) and the lite pull consumer
// (DefaultLitePullConsumer), with RocketMQ 4.9's defaults. Units are in the names. Plain data;
// the consumers check it in their constructors (check()).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "client/allocate_strategy.h"
#include "remoting/body/consumer_enums.h"
#include "runtime/time.h"

namespace ferry::client {

using remoting::body::ConsumeFromWhere;
using remoting::body::MessageModel;

struct PushConsumerConfig {
  std::string group = "DEFAULT_CONSUMER";
  MessageModel message_model = MessageModel::CLUSTERING;
  // Where a queue without a committed offset starts (LAST: the queue's max offset, but see the
  // broker's QUERY_CONSUMER_OFFSET rule: 0 when the first message is still "in memory").
  ConsumeFromWhere consume_from_where = ConsumeFromWhere::CONSUME_FROM_LAST_OFFSET;
  // CONSUME_FROM_TIMESTAMP: the store time to start at (ms since the epoch); nullopt = 30 minutes
  // before start() (RocketMQ's consumeTimestamp default; RocketMQ takes "yyyyMMddHHmmss").
  std::optional<WallMs> consume_timestamp_ms;
  AllocateStrategy allocate_strategy = AllocateStrategy::averagely;

  std::int32_t pull_batch_size = 32;                                 // pullBatchSize
  std::int32_t consume_message_batch_max_size = 1;                   // consumeMessageBatchMaxSize
  std::int32_t pull_threshold_for_queue = 1000;                      // cached messages per queue
  std::int64_t pull_threshold_size_for_queue_bytes = 100LL << 20;    // cached body bytes per queue
  std::int64_t consume_concurrently_max_span = 2000;                 // max - min cached offset
  Duration pull_interval = Duration::zero();                         // between pulls of a queue
  Duration broker_suspend_max = std::chrono::seconds(15);            // BROKER_SUSPEND_MAX_TIME_MILLIS
  Duration pull_timeout_when_suspend = std::chrono::seconds(30);     // CONSUMER_TIMEOUT_MILLIS_WHEN_SUSPEND
  Duration pull_delay_when_flow_control = std::chrono::milliseconds(50);
  Duration pull_delay_when_exception = std::chrono::seconds(3);
  Duration pull_delay_when_offset_illegal = std::chrono::seconds(10);
  // Listener calls running at once (consumeThreadMax; orderly: one per queue at most).
  std::int32_t consume_threads = 20;
  // maxReconsumeTimes: how often a message is consumed again before it goes to %DLQ%{group}
  // (a message is delivered at most 1 + max_reconsume_times times). -1 = 16 (concurrent) /
  // unlimited (orderly), as RocketMQ.
  std::int32_t max_reconsume_times = -1;
  // consumeTimeout (RocketMQ: 15 minutes): a message whose listener call started longer ago is
  // sent back and dropped from the cache (concurrent clustering only); checked every
  // consume_timeout.
  Duration consume_timeout = std::chrono::minutes(15);
  Duration send_back_timeout = std::chrono::seconds(5);
  Duration local_retry_delay = std::chrono::seconds(5);              // send-back failed: retry here
  Duration suspend_current_queue_time = std::chrono::seconds(1);     // orderly suspend
  Duration orderly_consume_round_max = std::chrono::seconds(60);     // MAX_TIME_CONSUME_CONTINUOUSLY
  Duration lock_max_live_time = std::chrono::seconds(30);            // a local queue lock is valid
  Duration lock_renew_interval = std::chrono::seconds(20);           // LOCK_BATCH_MQ of all queues
  // LocalFileOffsetStore (broadcasting): offsets of this client and group live under
  // "{offset_store_dir}/{clientId}/{group}/offsets.json" in the node's FileSystem.
  std::string offset_store_dir = ".rocketmq_offsets";
  // enableMsgTrace: SubBefore and SubAfter trace records around each listener call
  // (trace_dispatcher.h), to trace_topic (customizedTraceTopic; empty = RMQ_SYS_TRACE_TOPIC).
  bool enable_msg_trace = false;
  std::string trace_topic;

  void check() const;
};

struct LitePullConsumerConfig {
  std::string group = "DEFAULT_CONSUMER";
  MessageModel message_model = MessageModel::CLUSTERING;
  ConsumeFromWhere consume_from_where = ConsumeFromWhere::CONSUME_FROM_LAST_OFFSET;
  std::optional<WallMs> consume_timestamp_ms;
  AllocateStrategy allocate_strategy = AllocateStrategy::averagely;

  std::int32_t pull_batch_size = 10;                               // pullBatchSize
  std::int32_t pull_threshold_for_all = 10000;                     // cached messages, all queues
  std::int32_t pull_threshold_for_queue = 1000;                    // cached messages per queue
  Duration broker_suspend_max = std::chrono::seconds(20);
  Duration pull_timeout_when_suspend = std::chrono::seconds(30);
  Duration pull_delay_when_flow_control = std::chrono::milliseconds(50);
  Duration pull_delay_when_exception = std::chrono::seconds(1);
  Duration pull_delay_when_pause = std::chrono::seconds(1);  // PULL_TIME_DELAY_MILLS_WHEN_PAUSE
  bool auto_commit = true;
  Duration auto_commit_interval = std::chrono::seconds(5);
  std::string offset_store_dir = ".rocketmq_offsets";
  // enableMsgTrace: a SubBefore and a successful SubAfter for each message a pull brings (as
  // RocketMQ's lite pull consumer traces them), to trace_topic (empty = RMQ_SYS_TRACE_TOPIC).
  bool enable_msg_trace = false;
  std::string trace_topic;

  void check() const;
};

}  // namespace ferry::client
