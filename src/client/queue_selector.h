// Queue selectors for sends that choose their queue (RocketMQ's MessageQueueSelector): ordered
// messages go to the queue a key hashes to, so one key's messages stay in order.
//
// A selector returns an index into `queues` (the topic's writable queues, in route order, never
// empty). An index out of range fails the send with invalid_argument. Sends with a selector are
// not retried on another queue (that would break the order they exist for).
#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <string>

#include "common/message.h"
#include "common/message_queue.h"
#include "runtime/random.h"

namespace ferry::client {

using QueueSelector = std::function<std::size_t(std::span<const MessageQueue> queues, const Message& msg, Random& random)>;

// SelectMessageQueueByHash: abs(java_string_hash(key) % n) — the same queue as a Java producer
// selecting by that String argument.
QueueSelector select_by_hash(std::string key);
// SelectMessageQueueByRandom, drawing from the node's Random.
QueueSelector select_random();

}  // namespace ferry::client
