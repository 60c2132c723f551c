#include "client/message_checks.h"

#include <fmt/format.h>

#include "common/names.h"

namespace ferry::client {

Status check_message(const Message& msg, std::size_t max_body_bytes) {
  FERRY_TRY(validate_topic(msg.topic));
  // The trace topic takes the trace records of clients with message trace on (as the broker does).
  if (is_system_topic(msg.topic) && msg.topic != kTraceTopic) {
    return Error(Errc::invalid_argument, fmt::format("the topic '{}' is a system topic; clients may not send to it", msg.topic));
  }
  if (msg.body.empty()) return Error(Errc::invalid_argument, fmt::format("a message to '{}' has an empty body", msg.topic));
  if (msg.body.size() > max_body_bytes) {
    return Error(Errc::invalid_argument, fmt::format("a message to '{}' has a body of {} bytes; the most is {}", msg.topic,
                                                     msg.body.size(), max_body_bytes));
  }
  return {};
}

Status check_batch(std::span<const Message> msgs, std::size_t max_body_bytes) {
  if (msgs.empty()) return Error(Errc::invalid_argument, "an empty batch");
  const Message& first = msgs.front();
  for (std::size_t i = 0; i < msgs.size(); ++i) {
    const Message& m = msgs[i];
    FERRY_TRY(check_message(m, max_body_bytes));
    Result<std::int32_t> delay = m.delay_level();
    if (!delay.ok() || *delay > 0) return Error(Errc::invalid_argument, fmt::format("batch message {}: delayed messages cannot be batched", i));
    if (is_retry_topic(m.topic)) return Error(Errc::invalid_argument, fmt::format("batch message {}: retry topics cannot be batched", i));
    if (m.topic != first.topic) {
      return Error(Errc::invalid_argument, fmt::format("batch message {}: topic '{}' differs from the batch's '{}'", i, m.topic, first.topic));
    }
    if (m.wait_store_ok() != first.wait_store_ok()) {
      return Error(Errc::invalid_argument, fmt::format("batch message {}: WAIT differs from the first message's", i));
    }
  }
  return {};
}

}  // namespace ferry::client
