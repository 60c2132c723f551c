#include "client/queue_selector.h"

#include "common/java_hash.h"

namespace ferry::client {

QueueSelector select_by_hash(std::string key) {
  const std::int32_t h = java_string_hash(key);
  return [h](std::span<const MessageQueue> queues, const Message&, Random&) -> std::size_t {
    const auto n = static_cast<std::int64_t>(queues.size());
    std::int64_t v = static_cast<std::int64_t>(h) % n;  // Java's % keeps the dividend's sign
    return static_cast<std::size_t>(v < 0 ? -v : v);
  };
}

QueueSelector select_random() {
  return [](std::span<const MessageQueue> queues, const Message&, Random& random) -> std::size_t {
    return static_cast<std::size_t>(random.below(queues.size()));
  };
}

}  // namespace ferry::client
