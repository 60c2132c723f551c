// Which queue allocation strategy a clustering consumer uses (common/allocate.h), and the
// dispatch to it. Every consumer of a group must use the same strategy.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/allocate.h"

namespace ferry::client {

enum class AllocateStrategy : std::uint8_t {
  averagely,        // AllocateMessageQueueAveragely (RocketMQ's default)
  by_circle,        // AllocateMessageQueueAveragelyByCircle
  consistent_hash,  // AllocateMessageQueueConsistentHash (10 virtual nodes)
};

std::string_view name(AllocateStrategy s);

// `queues` and `clients` sorted and unique (the caller sorts); the share of `current`.
std::vector<MessageQueue> allocate(AllocateStrategy s, std::span<const MessageQueue> queues,
                                   std::span<const std::string> clients, std::string_view current);

}  // namespace ferry::client
