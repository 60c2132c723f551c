// CONSUME_MESSAGE_DIRECTLY (309) on the client: one message handed to a push consumer's listener
// outside its queues (RocketMQ's ConsumeMessage{Concurrently,Orderly}Service.consumeMessageDirectly).
// Nothing else happens: no offset moves, no send-back, no retry. A retried message shows its
// original topic, as in normal consumption.
//
// Result (ConsumeMessageDirectlyResult): order = the listener is orderly; consumeResult
// CR_SUCCESS for CONSUME_SUCCESS / SUCCESS, CR_LATER for RECONSUME_LATER /
// SUSPEND_CURRENT_QUEUE_A_MOMENT, CR_THROW_EXCEPTION (remark: what it threw) when the listener
// threw; spentTimeMills on the node's monotonic clock. The listener runs through
// Runtime::offload like every listener call, on a copy of the message it shares with the call,
// so the Task keeps no reference to the consumer.
#pragma once

#include <memory>
#include <string>

#include "client/consumer_listener.h"
#include "common/message.h"
#include "remoting/body/consumer_running_info.h"
#include "runtime/runtime.h"

namespace ferry::client {

// Exactly one listener is set.
Task<remoting::body::ConsumeMessageDirectlyResult> consume_directly(Runtime& rt,
                                                                   std::shared_ptr<const ConcurrentListener> concurrent,
                                                                   std::shared_ptr<const OrderlyListener> orderly,
                                                                   MessageExt msg, std::string broker_name);

}  // namespace ferry::client
