// What a push consumer's application code implements: a concurrent or an orderly listener
// (RocketMQ's MessageListenerConcurrently / MessageListenerOrderly) and their contexts.
//
// Listeners are std::function so that application threads can supply them; they run off the
// event loop in production (Runtime::offload) and inline in simulation. A listener must not call
// back into the consumer's coroutine API (it is not on the loop); it may block. An exception
// thrown by a listener counts as RECONSUME_LATER / SUSPEND_CURRENT_QUEUE_A_MOMENT.
#pragma once

#include <climits>
#include <cstdint>
#include <functional>
#include <vector>

#include "common/message.h"
#include "common/message_queue.h"
#include "runtime/time.h"

namespace ferry::client {

enum class ConsumeConcurrentlyStatus : std::uint8_t { CONSUME_SUCCESS, RECONSUME_LATER };

struct ConsumeConcurrentlyContext {
  MessageQueue queue;
  // 0: the broker picks (3 + reconsumeTimes); > 0: this level; < 0: straight to the DLQ.
  std::int32_t delay_level_when_next_consume = 0;
  // With CONSUME_SUCCESS, messages after this index are sent back as if RECONSUME_LATER.
  std::int32_t ack_index = INT32_MAX;
};

enum class ConsumeOrderlyStatus : std::uint8_t { SUCCESS, SUSPEND_CURRENT_QUEUE_A_MOMENT };

struct ConsumeOrderlyContext {
  MessageQueue queue;
  bool auto_commit = true;  // Ferry commits after every SUCCESS (RocketMQ's default)
  // How long the queue is suspended after SUSPEND_CURRENT_QUEUE_A_MOMENT; < 0: the consumer's
  // suspend_current_queue_time.
  Duration suspend_current_queue_time = Duration(-1);
};

// `msgs` holds at most consume_message_batch_max_size messages of one queue, in queue order.
// Messages of the %RETRY% topic show their original topic (RETRY_TOPIC property).
using ConcurrentListener =
    std::function<ConsumeConcurrentlyStatus(const std::vector<MessageExt>& msgs, ConsumeConcurrentlyContext& ctx)>;
using OrderlyListener =
    std::function<ConsumeOrderlyStatus(const std::vector<MessageExt>& msgs, ConsumeOrderlyContext& ctx)>;

}  // namespace ferry::client
