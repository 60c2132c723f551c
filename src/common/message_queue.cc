#include "common/message_queue.h"

#include <fmt/format.h>

namespace ferry {

std::string MessageQueue::to_string() const {
  return fmt::format("MessageQueue [topic={}, brokerName={}, queueId={}]", topic, broker_name,
                     queue_id.value());
}

}  // namespace ferry
