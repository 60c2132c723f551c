// Queue allocation strategies for consumer rebalance (clustering mode). Pure functions: every
// consumer of a group runs the same function over the same sorted lists and so takes a disjoint
// share of the queues without talking to the others.
//
// Inputs: `queues` all queues of the topic, sorted by MessageQueue order, unique; `clients` all
// client ids of the group, sorted, unique (both asserted where order matters); `current` this
// client's id. A current id that is not in `clients` gets nothing (RocketMQ logs and returns an
// empty list; the next rebalance fixes it). Results keep the order of `queues`.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/message_queue.h"

namespace ferry {

// AllocateMessageQueueAveragely: contiguous blocks, the first (nq % nc) clients one queue more.
// Exactly: mod = nq % nc; avg = nq <= nc ? 1 : nq / nc + (mod > 0 && i < mod ? 1 : 0);
// start = (mod > 0 && i < mod) ? i * avg : i * avg + mod; take min(avg, nq - start) queues.
std::vector<MessageQueue> allocate_averagely(std::span<const MessageQueue> queues,
                                             std::span<const std::string> clients,
                                             std::string_view current);
// The same over positions: the queue indices client `client_index` of `client_count` takes.
std::vector<std::size_t> allocate_averagely_indices(std::size_t queue_count,
                                                    std::size_t client_count,
                                                    std::size_t client_index);

// AllocateMessageQueueAveragelyByCircle: queue k goes to client k % nc.
std::vector<MessageQueue> allocate_by_circle(std::span<const MessageQueue> queues,
                                             std::span<const std::string> clients,
                                             std::string_view current);

// AllocateMessageQueueConsistentHash with RocketMQ's default ring, so Ferry and Java consumers in
// one group agree: each client is placed at `virtual_nodes` points, the point of virtual node r
// being hash(client + "-" + r); a queue goes to the first point at or after
// hash(queue.to_string()), wrapping around. hash(s) = the first 4 bytes of MD5(UTF-8 s) as an
// unsigned big-endian number. When two points collide the later client in `clients` order wins
// (Java's TreeMap.put). Lists need not be sorted.
inline constexpr int kDefaultVirtualNodes = 10;
std::vector<MessageQueue> allocate_consistent_hash(std::span<const MessageQueue> queues,
                                                   std::span<const std::string> clients,
                                                   std::string_view current,
                                                   int virtual_nodes = kDefaultVirtualNodes);

// The ring hash described above (exposed for tests and tools).
std::uint32_t consistent_hash_point(std::string_view key);

}  // namespace ferry
