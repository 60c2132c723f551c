#include "common/allocate.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>

#include "common/md5.h"
#include "runtime/assert.h"

namespace ferry {
namespace {

template <typename T>
void assert_sorted_unique(std::span<const T> items, const char* what) {
  for (std::size_t i = 1; i < items.size(); ++i) {
    FERRY_ASSERT(items[i - 1] < items[i], "{} not sorted and unique at position {} of {}", what, i,
                 items.size());
  }
}

// This client's position in `clients`, or nullopt.
std::optional<std::size_t> index_of(std::span<const std::string> clients,
                                    std::string_view current) {
  auto it = std::find(clients.begin(), clients.end(), current);
  if (it == clients.end()) return std::nullopt;
  return static_cast<std::size_t>(it - clients.begin());
}

}  // namespace

std::vector<std::size_t> allocate_averagely_indices(std::size_t queue_count,
                                                    std::size_t client_count,
                                                    std::size_t client_index) {
  FERRY_ASSERT(client_count > 0, "allocate with no clients");
  FERRY_ASSERT(client_index < client_count, "client index {} of {}", client_index, client_count);
  const std::size_t nq = queue_count;
  const std::size_t nc = client_count;
  const std::size_t i = client_index;
  const std::size_t mod = nq % nc;
  const bool extra = mod > 0 && i < mod;
  const std::size_t avg = nq <= nc ? 1 : nq / nc + (extra ? 1 : 0);
  const std::size_t start = extra ? i * avg : i * avg + mod;
  std::vector<std::size_t> out;
  if (start >= nq) return out;
  const std::size_t take = std::min(avg, nq - start);
  for (std::size_t k = 0; k < take; ++k) out.push_back(start + k);
  FERRY_ASSERT_LE(start + take, nq);
  return out;
}

std::vector<MessageQueue> allocate_averagely(std::span<const MessageQueue> queues,
                                             std::span<const std::string> clients,
                                             std::string_view current) {
  assert_sorted_unique(queues, "queues");
  assert_sorted_unique(clients, "clients");
  std::vector<MessageQueue> out;
  auto index = index_of(clients, current);
  if (!index || queues.empty()) return out;
  for (std::size_t k : allocate_averagely_indices(queues.size(), clients.size(), *index)) {
    out.push_back(queues[k]);
  }
  return out;
}

std::vector<MessageQueue> allocate_by_circle(std::span<const MessageQueue> queues,
                                             std::span<const std::string> clients,
                                             std::string_view current) {
  assert_sorted_unique(queues, "queues");
  assert_sorted_unique(clients, "clients");
  std::vector<MessageQueue> out;
  auto index = index_of(clients, current);
  if (!index) return out;
  for (std::size_t k = *index; k < queues.size(); k += clients.size()) out.push_back(queues[k]);
  return out;
}

std::uint32_t consistent_hash_point(std::string_view key) {
  auto digest = md5(as_bytes(key));
  return load_be32(digest.data());
}

std::vector<MessageQueue> allocate_consistent_hash(std::span<const MessageQueue> queues,
                                                   std::span<const std::string> clients,
                                                   std::string_view current, int virtual_nodes) {
  FERRY_ASSERT(virtual_nodes > 0 && virtual_nodes <= 1024, "virtual_nodes {}", virtual_nodes);
  std::vector<MessageQueue> out;
  if (!index_of(clients, current)) return out;
  // point -> client position; a later client overwrites a colliding point.
  std::map<std::uint32_t, std::size_t> ring;
  for (std::size_t c = 0; c < clients.size(); ++c) {
    for (int r = 0; r < virtual_nodes; ++r) {
      ring[consistent_hash_point(fmt::format("{}-{}", clients[c], r))] = c;
    }
  }
  for (const MessageQueue& q : queues) {
    auto it = ring.lower_bound(consistent_hash_point(q.to_string()));
    if (it == ring.end()) it = ring.begin();
    if (clients[it->second] == current) out.push_back(q);
  }
  return out;
}

}  // namespace ferry
