#include "broker/consumer_manager.h"

#include <algorithm>

namespace ferry::broker {

using remoting::body::ConsumerData;
using remoting::body::SubscriptionData;

std::vector<std::string> ConsumerGroupInfo::client_ids() const {
  std::vector<std::string> out;
  out.reserve(channels.size());
  for (const auto& [id, c] : channels) out.push_back(c.client_id);
  std::sort(out.begin(), out.end());
  return out;
}

bool ConsumerManager::register_consumer(const ConsumerData& data, ClientChannel client, bool notify_enabled) {
  FERRY_ASSERT(client.channel != nullptr, "consumer {} of {} registered without a channel", client.client_id,
               data.group_name);
  const std::uint64_t id = client.key;
  auto it = groups_.find(data.group_name);
  const bool known = it != groups_.end() && it->second.channels.contains(id);
  if (!known && registrations() >= config_.client_channels_max) return false;
  if (it == groups_.end()) {
    ConsumerGroupInfo g;
    g.group_name = data.group_name;
    it = groups_.emplace(data.group_name, std::move(g)).first;
  }
  ConsumerGroupInfo& g = it->second;
  g.consume_type = data.consume_type;
  g.message_model = data.message_model;
  g.consume_from_where = data.consume_from_where;
  g.notify_enabled = notify_enabled;
  bool changed = false;
  auto c = g.channels.find(id);
  if (c == g.channels.end()) {
    if (auto held = joined_log_.admit(rt_.now())) {
      rt_.log().info("consumer {} joined {} (channel {}){}", client.client_id, g.group_name, client.channel->peer_text(),
                     held_back_note(*held));
    }
    g.channels.emplace(id, std::move(client));
    changed = true;
  } else {
    if (c->second.client_id != client.client_id) {
      if (auto held = client_id_log_.admit(rt_.now())) {
        rt_.log().warn("consumer channel {} of {} changed its clientID {} -> {}{}", client.channel->peer_text(),
                       g.group_name, c->second.client_id, client.client_id, held_back_note(*held));
      }
    }
    c->second = std::move(client);
  }
  if (update_subscriptions(g, data.subscription_data_set)) changed = true;
  if (changed) notify(g);
  return true;
}

bool ConsumerManager::update_subscriptions(ConsumerGroupInfo& g, const std::vector<SubscriptionData>& subs) {
  bool changed = false;
  std::map<std::string, bool, std::less<>> seen;
  for (const SubscriptionData& s : subs) {
    seen[s.topic] = true;
    auto it = g.subscriptions.find(s.topic);
    if (it != g.subscriptions.end() && s.sub_version <= it->second.data.sub_version) continue;
    ConsumerSubscription cs;
    cs.data = s;
    auto type = parse_expression_type(s.expression_type);
    auto f = type.ok() ? SubscriptionFilter::compile(*type, s.sub_string) : Result<SubscriptionFilter>(type.error());
    if (f.ok()) {
      cs.filter = std::move(*f);
    } else {
      cs.problem = f.error().detail;
      if (auto held = bad_filter_log_.admit(rt_.now())) {
        rt_.log().warn("consumer group {}: subscription to {} ({} \"{}\") does not compile: {}{}", g.group_name, s.topic,
                       s.expression_type, s.sub_string.substr(0, 200), cs.problem, held_back_note(*held));
      }
    }
    if (it == g.subscriptions.end()) {
      g.subscriptions.emplace(s.topic, std::move(cs));
      changed = true;
    } else {
      it->second = std::move(cs);
    }
  }
  for (auto it = g.subscriptions.begin(); it != g.subscriptions.end();) {
    if (seen.contains(it->first)) {
      ++it;
    } else {
      it = g.subscriptions.erase(it);
      changed = true;
    }
  }
  return changed;
}

void ConsumerManager::unregister_consumer(std::string_view group, std::uint64_t channel_id) {
  auto it = groups_.find(group);
  if (it == groups_.end() || !it->second.channels.contains(channel_id)) return;
  remove_member(it, channel_id, "unregistered");
}

void ConsumerManager::channel_closed(std::uint64_t channel_id) {
  for (auto it = groups_.begin(); it != groups_.end();) {
    auto next = std::next(it);
    if (it->second.channels.contains(channel_id)) remove_member(it, channel_id, "its connection closed");
    it = next;
  }
}

std::size_t ConsumerManager::scan_expired() {
  const MonoTime now = rt_.now();
  std::vector<std::shared_ptr<remoting::Channel>> to_close;
  for (auto it = groups_.begin(); it != groups_.end();) {
    auto next = std::next(it);
    std::vector<std::uint64_t> expired;
    for (const auto& [id, c] : it->second.channels) {
      if (now - c.last_update > config_.channel_expired_timeout) {
        expired.push_back(id);
        to_close.push_back(c.channel);
      }
    }
    // remove_member may erase the group: walk ids of a copy, re-finding the group each time.
    const std::string name = it->first;
    for (std::uint64_t id : expired) {
      auto g = groups_.find(name);
      if (g != groups_.end()) remove_member(g, id, "silent past the channel expiry");
    }
    it = next;
  }
  // Closed after the walk: a close calls back into channel_closed() (which finds nothing now).
  for (const auto& ch : to_close) {
    if (ch) ch->close("client heartbeat expired");
  }
  return to_close.size();
}

void ConsumerManager::remove_member(std::map<std::string, ConsumerGroupInfo, std::less<>>::iterator g,
                                    std::uint64_t channel_id, std::string_view why) {
  auto c = g->second.channels.find(channel_id);
  FERRY_ASSERT(c != g->second.channels.end(), "removing channel {} not in group {}", channel_id, g->first);
  if (auto held = left_log_.admit(rt_.now())) {
    rt_.log().info("consumer {} left {}: {}{}", c->second.client_id, g->first, why, held_back_note(*held));
  }
  g->second.channels.erase(c);
  if (g->second.channels.empty()) {
    if (auto held = forgotten_log_.admit(rt_.now())) {
      rt_.log().info("consumer group {} has no member left: forgotten{}", g->first, held_back_note(*held));
    }
    groups_.erase(g);
    return;
  }
  notify(g->second);
}

void ConsumerManager::notify(const ConsumerGroupInfo& g) {
  if (!notifier_ || !g.notify_enabled) return;
  std::vector<std::shared_ptr<remoting::Channel>> channels;
  channels.reserve(g.channels.size());
  for (const auto& [id, c] : g.channels) channels.push_back(c.channel);
  notifier_(g.group_name, std::move(channels));
}

const ConsumerGroupInfo* ConsumerManager::find_group(std::string_view group) const {
  auto it = groups_.find(group);
  return it == groups_.end() ? nullptr : &it->second;
}

std::size_t ConsumerManager::registrations() const {
  std::size_t n = 0;
  for (const auto& [name, g] : groups_) n += g.channels.size();
  return n;
}

std::optional<GroupSubscription> ConsumerManager::find(std::string_view group, std::string_view topic) const {
  const ConsumerGroupInfo* g = find_group(group);
  if (g == nullptr) return std::nullopt;
  auto it = g->subscriptions.find(topic);
  if (it == g->subscriptions.end()) return std::nullopt;
  const ConsumerSubscription& cs = it->second;
  return GroupSubscription{cs.filter, cs.data.expression_type, cs.problem, cs.data.sub_version};
}

}  // namespace ferry::broker
