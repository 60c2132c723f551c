#include "broker/producer_manager.h"

#include <algorithm>

namespace ferry::broker {

bool ProducerManager::register_producer(std::string_view group, ClientChannel client, std::size_t registrations_max) {
  FERRY_ASSERT(client.channel != nullptr, "producer {} of {} registered without a channel", client.client_id, group);
  auto it = groups_.find(group);
  const std::uint64_t id = client.key;
  const bool known = it != groups_.end() && it->second.contains(id);
  if (!known && registrations() >= registrations_max) return false;
  if (it == groups_.end()) it = groups_.emplace(std::string(group), std::map<std::uint64_t, ClientChannel>{}).first;
  it->second.insert_or_assign(id, std::move(client));
  return true;
}

void ProducerManager::unregister_producer(std::string_view group, std::uint64_t channel_id) {
  auto it = groups_.find(group);
  if (it == groups_.end()) return;
  it->second.erase(channel_id);
  if (it->second.empty()) groups_.erase(it);
}

void ProducerManager::channel_closed(std::uint64_t channel_id) {
  for (auto it = groups_.begin(); it != groups_.end();) {
    it->second.erase(channel_id);
    it = it->second.empty() ? groups_.erase(it) : std::next(it);
  }
}

std::size_t ProducerManager::scan_expired() {
  const MonoTime now = rt_.now();
  std::vector<std::shared_ptr<remoting::Channel>> to_close;
  for (auto g = groups_.begin(); g != groups_.end();) {
    for (auto c = g->second.begin(); c != g->second.end();) {
      if (now - c->second.last_update > config_.channel_expired_timeout) {
        if (auto held = expired_log_.admit(now)) {
          rt_.log().warn("producer {} of {} silent for over {} s: dropped{}", c->second.client_id, g->first,
                         to_ms(config_.channel_expired_timeout) / 1000, held_back_note(*held));
        }
        to_close.push_back(c->second.channel);
        c = g->second.erase(c);
      } else {
        ++c;
      }
    }
    g = g->second.empty() ? groups_.erase(g) : std::next(g);
  }
  // Closed after the walk: a close calls back into channel_closed().
  for (const auto& ch : to_close) {
    if (ch) ch->close("client heartbeat expired");
  }
  return to_close.size();
}

std::size_t ProducerManager::registrations() const {
  std::size_t n = 0;
  for (const auto& [group, clients] : groups_) n += clients.size();
  return n;
}

std::vector<std::string> ProducerManager::client_ids(std::string_view group) const {
  std::vector<std::string> out;
  auto it = groups_.find(group);
  if (it == groups_.end()) return out;
  for (const auto& [id, c] : it->second) out.push_back(c.client_id);
  std::sort(out.begin(), out.end());
  return out;
}

const std::map<std::uint64_t, ClientChannel>* ProducerManager::find_group(std::string_view group) const {
  auto it = groups_.find(group);
  if (it == groups_.end() || it->second.empty()) return nullptr;
  return &it->second;
}

std::optional<ClientChannel> ProducerManager::find_channel(std::string_view client_id) const {
  for (const auto& [group, channels] : groups_) {
    for (const auto& [key, c] : channels) {
      if (c.client_id == client_id) return c;
    }
  }
  return std::nullopt;
}

}  // namespace ferry::broker
