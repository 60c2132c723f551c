// How a push consumer hands back a message it did not consume (RocketMQ's
// DefaultMQPushConsumerImpl.sendMessageBack):
//
//  1. CONSUMER_SEND_MSG_BACK to the broker the message was pulled from (consumer_calls.h): the
//     broker stores a delayed retry copy on %RETRY%{group}, or a DLQ copy.
//  2. When that fails (no reply, a refusal, no address), the message is re-sent to
//     %RETRY%{group} by the instance's inner producer (ClientInstance::inner_producer(), group
//     CLIENT_INNER_PRODUCER) as retry_topic_message() builds it; the broker delays it by its
//     DELAY level, and a copy past MAX_RECONSUME_TIMES goes to %DLQ%{group} instead.
//
// Only when both fail is the caller left to consume the message again itself.
#pragma once

#include <cstdint>
#include <string>

#include "client/client_instance.h"
#include "client/consumer_calls.h"
#include "common/message.h"
#include "runtime/log_limiter.h"

namespace ferry::client {

enum class SendBackPath : std::uint8_t {
  broker,       // CONSUMER_SEND_MSG_BACK was accepted
  retry_topic,  // the inner producer stored the copy on %RETRY%{group}
};

// Success: which step stored the copy. Errors: the re-send's error, its detail also naming the
// send-back's error. The line saying step 1 failed goes through `fallback_log` (the caller's,
// shared by its calls: a broker that is away fails every send-back). `ci` and `fallback_log`
// must outlive the Task.
Task<Result<SendBackPath>> send_back_with_fallback(ClientInstance& ci, SendBackRequest req, MessageExt msg,
                                                   LogLimiter& fallback_log);

// The message of step 2 (RocketMQ builds the same): topic %RETRY%{group}; `msg`'s body, flag and
// properties; RETRY_TOPIC = msg.topic (the original topic: listeners see retried messages under
// it); ORIGIN_MESSAGE_ID kept when set, else msg.msg_id(); RECONSUME_TIME = reconsume_times + 1;
// MAX_RECONSUME_TIMES = `max_reconsume_times`; DELAY = 3 + reconsume_times; TRAN_MSG removed.
Message retry_topic_message(const MessageExt& msg, const std::string& group, std::int32_t max_reconsume_times);

}  // namespace ferry::client
