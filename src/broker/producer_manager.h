// ProducerManager: producer groups and the channels of their members (RocketMQ's
// ProducerManager), from HEART_BEAT's producerDataSet. Used for bookkeeping (and later for
// transaction checks); nothing is sent to producers yet.
//
// A registration is dropped by unregister(), by the close of its channel, or by scan_expired()
// once silent for channel_expired_timeout (120 s). Threading: the node's loop.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "broker/broker_config.h"
#include "broker/client_channel.h"
#include "runtime/log_limiter.h"
#include "runtime/runtime.h"

namespace ferry::broker {

class ProducerManager {
 public:
  ProducerManager(Runtime& rt, const BrokerConfig& config) : rt_(rt), config_(config) {}

  // Registers or refreshes. Returns false (nothing registered) when `registrations_max` is
  // reached by a new registration.
  bool register_producer(std::string_view group, ClientChannel client, std::size_t registrations_max);
  // `key`: the registration's client_key().
  void unregister_producer(std::string_view group, std::uint64_t key);
  void channel_closed(std::uint64_t key);
  // Drops (and closes) registrations silent for channel_expired_timeout; returns how many.
  std::size_t scan_expired();

  std::size_t registrations() const;
  // The client ids of a group, sorted (empty when unknown).
  std::vector<std::string> client_ids(std::string_view group) const;
  // The members of a group by client_key(), or nullptr when the group has none online.
  const std::map<std::uint64_t, ClientChannel>* find_group(std::string_view group) const;
  // The connection of the producer client `client_id` (any group; the first by group name and
  // channel), nullopt when none heartbeats here (request-reply's push, reply_push.h).
  std::optional<ClientChannel> find_channel(std::string_view client_id) const;
  // Every group with members online, by name.
  const std::map<std::string, std::map<std::uint64_t, ClientChannel>, std::less<>>& groups() const { return groups_; }

 private:
  Runtime& rt_;
  const BrokerConfig& config_;
  std::map<std::string, std::map<std::uint64_t, ClientChannel>, std::less<>> groups_;
  LogLimiter expired_log_;  // producers dropped for silence (clients can go silent at will)
};

}  // namespace ferry::broker
