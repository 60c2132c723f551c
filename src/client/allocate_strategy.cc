#include "client/allocate_strategy.h"

namespace ferry::client {

std::string_view name(AllocateStrategy s) {
  switch (s) {
    case AllocateStrategy::averagely: return "AVG";
    case AllocateStrategy::by_circle: return "AVG_BY_CIRCLE";
    case AllocateStrategy::consistent_hash: return "CONSISTENT_HASH";
  }
  return "?";
}

std::vector<MessageQueue> allocate(AllocateStrategy s, std::span<const MessageQueue> queues,
                                   std::span<const std::string> clients, std::string_view current) {
  switch (s) {
    case AllocateStrategy::averagely: return allocate_averagely(queues, clients, current);
    case AllocateStrategy::by_circle: return allocate_by_circle(queues, clients, current);
    case AllocateStrategy::consistent_hash: return allocate_consistent_hash(queues, clients, current);
  }
  return {};
}

}  // namespace ferry::client
