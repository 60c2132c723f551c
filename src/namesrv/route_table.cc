#include "namesrv/route_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "common/permission.h"
#include "runtime/assert.h"

namespace ferry::namesrv {

using remoting::body::BrokerData;
using remoting::body::QueueData;
using remoting::body::TopicConfig;
using remoting::body::TopicConfigSerializeWrapper;

namespace {

// A topic config's name; the table key when the config itself carries none.
const std::string& topic_name_of(const std::string& key, const TopicConfig& tc) {
  return tc.topic_name.empty() ? key : tc.topic_name;
}

std::string describe(const QueueData& q) {
  return fmt::format("{{broker {}, read {}, write {}, perm {}, sysFlag {}}}", q.broker_name,
                     q.read_queue_nums, q.write_queue_nums, q.perm, q.topic_sys_flag);
}

}  // namespace

RouteTable::RouteTable(RouteLimits limits, spdlog::logger& log) : limits_(limits), log_(log) {
  limits_.check();
}

// ---- registration ------------------------------------------------------------------------------

bool RouteTable::applies_topics(const BrokerRegistration& reg) const {
  if (reg.broker_id != kMasterId) return false;
  auto b = brokers_.find(reg.broker_name);
  if (b == brokers_.end() || b->second.broker_addrs.count(reg.broker_id) == 0) return true;  // first
  auto live = live_.find(reg.broker_addr);
  return live == live_.end() || !(live->second.data_version == reg.topic_config.data_version);
}

Status RouteTable::admit(const BrokerRegistration& reg) const {
  if (reg.filter_server_list.size() > limits_.filter_servers_per_broker_max) {
    return Error(Errc::invalid_argument,
                 fmt::format("filterServerList has {} entries, at most {} are allowed",
                             reg.filter_server_list.size(), limits_.filter_servers_per_broker_max));
  }
  if (clusters_.count(reg.cluster_name) == 0 && clusters_.size() >= limits_.clusters_max) {
    return Error(Errc::busy, fmt::format("name server full: clusterAddrTable holds {} clusters",
                                         clusters_.size()));
  }
  auto b = brokers_.find(reg.broker_name);
  if (b == brokers_.end()) {
    if (brokers_.size() >= limits_.broker_names_max) {
      return Error(Errc::busy, fmt::format("name server full: brokerAddrTable holds {} broker names",
                                           brokers_.size()));
    }
  } else {
    // Entries after this registration: same-address entries under other ids go, this id stays.
    const auto& addrs = b->second.broker_addrs;
    std::size_t after = addrs.count(reg.broker_id) == 0 ? 1 : 0;
    for (const auto& [id, addr] : addrs) {
      if (id == reg.broker_id || addr != reg.broker_addr) ++after;
    }
    if (after > limits_.broker_ids_per_name_max) {
      return Error(Errc::busy, fmt::format("name server full: broker {} already has {} addresses",
                                           reg.broker_name, addrs.size()));
    }
  }
  if (live_.count(reg.broker_addr) == 0 && live_.size() >= limits_.broker_addrs_max) {
    return Error(Errc::busy, fmt::format("name server full: brokerLiveTable holds {} brokers", live_.size()));
  }
  if (applies_topics(reg)) {
    std::size_t added = 0;
    for (const auto& [key, tc] : reg.topic_config.topic_config_table) {
      if (topics_.count(topic_name_of(key, tc)) == 0) ++added;
    }
    if (topics_.size() + added > limits_.topics_max) {
      return Error(Errc::busy, fmt::format("name server full: topicQueueTable holds {} topics, the "
                                           "registration adds {}, the limit is {}",
                                           topics_.size(), added, limits_.topics_max));
    }
  }
  return {};
}

std::optional<std::string> RouteTable::superseded(const BrokerRegistration& reg) const {
  auto b = brokers_.find(reg.broker_name);
  if (b == brokers_.end()) return std::nullopt;
  auto held = b->second.broker_addrs.find(reg.broker_id);
  if (held == b->second.broker_addrs.end() || held->second == reg.broker_addr) return std::nullopt;
  auto holder = live_.find(held->second);
  if (holder == live_.end()) return std::nullopt;
  const std::int64_t theirs = holder->second.data_version.state_version;
  const std::int64_t ours = reg.topic_config.data_version.state_version;
  if (theirs <= ours) return std::nullopt;
  return fmt::format("{} holds id {} of {} with state version {}, this registration has {}", held->second, reg.broker_id,
                     reg.broker_name, theirs, ours);
}

Result<RegisterOutcome> RouteTable::register_broker(BrokerRegistration reg, MonoTime now) {
  FERRY_TRY(admit(reg));
  RegisterOutcome out;
  if (std::optional<std::string> why = superseded(reg)) {
    // As RocketMQ 5's RouteInfoManager: ignored, and the address leaves the live table.
    live_.erase(reg.broker_addr);
    filter_servers_.erase(reg.broker_addr);
    out.ignored = std::move(why);
    return out;
  }
  const bool apply = applies_topics(reg);  // decided before the tables change

  clusters_[reg.cluster_name].insert(reg.broker_name);
  auto [b, new_name] = brokers_.try_emplace(reg.broker_name);
  BrokerData& broker = b->second;
  if (new_name) {
    broker.cluster = reg.cluster_name;
    broker.broker_name = reg.broker_name;
  }
  // One address, one id: a slave promoted to master loses its slave entry.
  std::erase_if(broker.broker_addrs, [&reg](const auto& e) {
    return e.second == reg.broker_addr && e.first != reg.broker_id;
  });
  auto old = broker.broker_addrs.find(reg.broker_id);
  if (old == broker.broker_addrs.end() || old->second != reg.broker_addr) {
    log_.info("cluster [{}] broker [{}] id {} address {} -> {}", broker.cluster, reg.broker_name,
              reg.broker_id, old == broker.broker_addrs.end() ? "(none)" : old->second, reg.broker_addr);
  }
  broker.broker_addrs[reg.broker_id] = reg.broker_addr;
  FERRY_ASSERT_LE(broker.broker_addrs.size(), limits_.broker_ids_per_name_max);

  if (apply) {
    apply_topics(reg.broker_name, reg.topic_config);
    out.routes_updated = true;
  }

  auto [live, new_addr] = live_.insert_or_assign(
      reg.broker_addr, BrokerLiveInfo{now, reg.topic_config.data_version, reg.channel, reg.ha_server_addr});
  if (new_addr) log_.info("new broker registered: {} (broker {}, id {}, HA {})", reg.broker_addr,
                          reg.broker_name, reg.broker_id, reg.ha_server_addr);
  FERRY_ASSERT_LE(live_.size(), limits_.broker_addrs_max);

  if (reg.filter_server_list.empty()) {
    filter_servers_.erase(reg.broker_addr);
  } else {
    filter_servers_[reg.broker_addr] = std::move(reg.filter_server_list);
  }

  if (reg.broker_id != kMasterId) {
    auto master = broker.broker_addrs.find(kMasterId);
    if (master != broker.broker_addrs.end()) {
      auto master_live = live_.find(master->second);
      if (master_live != live_.end()) {
        out.master_addr = master->second;
        out.ha_server_addr = master_live->second.ha_server_addr;
      }
    }
  }
  return out;
}

void RouteTable::apply_topics(const std::string& broker_name, const TopicConfigSerializeWrapper& wrapper) {
  for (const auto& [key, tc] : wrapper.topic_config_table) {
    const std::string& topic = topic_name_of(key, tc);
    QueueData q;
    q.broker_name = broker_name;
    q.read_queue_nums = tc.read_queue_nums;
    q.write_queue_nums = tc.write_queue_nums;
    q.perm = tc.perm;
    q.topic_sys_flag = tc.topic_sys_flag;
    auto [t, new_topic] = topics_.try_emplace(topic);
    QueueDatas& queues = t->second;
    auto old = queues.find(broker_name);
    if (new_topic) {
      log_.info("new topic registered: {} {}", topic, describe(q));
    } else if (old != queues.end() && !(old->second == q)) {
      log_.info("topic changed: {} from {} to {}", topic, describe(old->second), describe(q));
    }
    queues[broker_name] = std::move(q);
  }
  FERRY_ASSERT_LE(topics_.size(), limits_.topics_max);
}

// ---- removal -----------------------------------------------------------------------------------

void RouteTable::unregister_broker(const std::string& cluster_name, const std::string& broker_addr,
                                   const std::string& broker_name, std::int64_t broker_id) {
  const bool was_live = live_.erase(broker_addr) > 0;
  filter_servers_.erase(broker_addr);
  log_.info("unregister broker {} (broker {}, id {}, cluster {}): {}", broker_addr, broker_name, broker_id,
            cluster_name, was_live ? "was live" : "was not live");
  auto b = brokers_.find(broker_name);
  if (b == brokers_.end()) return;
  // By address, as RocketMQ 5: after a failover another broker may hold `broker_id` already (the
  // old master unregisters as id 0 after the new one registered as id 0), and it stays.
  std::erase_if(b->second.broker_addrs, [&broker_addr](const auto& e) { return e.second == broker_addr; });
  if (b->second.broker_addrs.empty()) drop_broker_name(broker_name);
}

void RouteTable::drop_broker_addr(const std::string& addr) {
  live_.erase(addr);
  filter_servers_.erase(addr);
  std::vector<std::string> emptied;
  for (auto& [name, broker] : brokers_) {
    const auto removed = std::erase_if(broker.broker_addrs, [&addr](const auto& e) { return e.second == addr; });
    if (removed > 0) {
      log_.info("removed broker address {} from broker {}", addr, name);
      if (broker.broker_addrs.empty()) emptied.push_back(name);
    }
  }
  for (const std::string& name : emptied) drop_broker_name(name);
}

void RouteTable::drop_broker_name(const std::string& name) {
  auto b = brokers_.find(name);
  FERRY_ASSERT(b != brokers_.end(), "dropping unknown broker name {}", name);
  FERRY_ASSERT(b->second.broker_addrs.empty(), "dropping broker name {} that still has {} addresses", name,
               b->second.broker_addrs.size());
  brokers_.erase(b);
  log_.info("removed broker {}: no address left", name);
  for (auto c = clusters_.begin(); c != clusters_.end();) {
    c->second.erase(name);
    if (c->second.empty()) log_.info("removed cluster {}: no broker left", c->first);
    c = c->second.empty() ? clusters_.erase(c) : std::next(c);
  }
  for (auto t = topics_.begin(); t != topics_.end();) {
    if (t->second.erase(name) > 0 && t->second.empty()) log_.info("removed topic {}: no broker left", t->first);
    t = t->second.empty() ? topics_.erase(t) : std::next(t);
  }
}

std::vector<ExpiredBroker> RouteTable::drop_expired(MonoTime now, Duration expiry) {
  std::vector<ExpiredBroker> expired;
  for (const auto& [addr, live] : live_) {
    if (live.last_update + expiry < now) expired.push_back(ExpiredBroker{addr, live.channel});
  }
  for (const ExpiredBroker& e : expired) {
    const BrokerLiveInfo& live = live_.at(e.broker_addr);
    log_.info("broker {} expired: not heard from for {} ms (limit {} ms)", e.broker_addr,
              to_ms(now - live.last_update), to_ms(expiry));
    drop_broker_addr(e.broker_addr);
  }
  return expired;
}

std::vector<std::string> RouteTable::drop_channel(ChannelId channel) {
  std::vector<std::string> dropped;
  if (channel == kNoChannel) return dropped;
  for (const auto& [addr, live] : live_) {
    if (live.channel == channel) dropped.push_back(addr);
  }
  for (const std::string& addr : dropped) {
    log_.info("broker {}: its connection closed, removing it at once", addr);
    drop_broker_addr(addr);
  }
  return dropped;
}

std::int32_t RouteTable::operate_write_perm(const std::string& broker_name, WritePerm op) {
  std::int32_t touched = 0;
  for (auto& [topic, queues] : topics_) {
    auto q = queues.find(broker_name);
    if (q == queues.end()) continue;
    q->second.perm = op == WritePerm::wipe ? (q->second.perm & ~perm::kWrite) : perm::kReadWrite;
    ++touched;
  }
  return touched;
}

bool RouteTable::delete_topic(const std::string& topic, const std::optional<std::string>& cluster) {
  auto t = topics_.find(topic);
  if (t == topics_.end()) return false;
  if (!cluster) {
    topics_.erase(t);
    log_.info("deleted topic {}", topic);
    return true;
  }
  auto c = clusters_.find(*cluster);
  if (c == clusters_.end()) return false;
  bool removed = false;
  for (const std::string& name : c->second) removed = t->second.erase(name) > 0 || removed;
  if (removed) log_.info("deleted topic {} from cluster {}", topic, *cluster);
  if (t->second.empty()) topics_.erase(t);
  return removed;
}

// ---- queries -----------------------------------------------------------------------------------

std::optional<remoting::body::TopicRouteData> RouteTable::route_of(const std::string& topic) const {
  auto t = topics_.find(topic);
  if (t == topics_.end()) return std::nullopt;
  remoting::body::TopicRouteData route;
  route.queue_datas.reserve(t->second.size());
  for (const auto& [name, queue] : t->second) {
    route.queue_datas.push_back(queue);
    auto b = brokers_.find(name);
    if (b == brokers_.end()) continue;
    route.broker_datas.push_back(b->second);
    for (const auto& [id, addr] : b->second.broker_addrs) {
      auto f = filter_servers_.find(addr);
      if (f != filter_servers_.end()) route.filter_server_table[addr] = f->second;
    }
  }
  if (route.broker_datas.empty()) return std::nullopt;
  return route;
}

remoting::body::BrokerLiveTable RouteTable::live_table(MonoTime now) const {
  remoting::body::BrokerLiveTable t;
  for (const auto& [addr, live] : live_) {
    const Duration age = now > live.last_update ? now - live.last_update : Duration{};
    t.brokers.emplace(addr, remoting::body::BrokerLiveEntry{to_ms(age), live.ha_server_addr});
  }
  return t;
}

remoting::body::ClusterInfo RouteTable::cluster_info() const {
  remoting::body::ClusterInfo info;
  info.broker_addr_table = brokers_;
  for (const auto& [cluster, names] : clusters_) {
    info.cluster_addr_table[cluster] = std::vector<std::string>(names.begin(), names.end());
  }
  return info;
}

remoting::body::TopicList RouteTable::all_topics() const {
  remoting::body::TopicList list;
  list.topic_list.reserve(topics_.size());
  for (const auto& [topic, queues] : topics_) list.topic_list.push_back(topic);
  return list;
}

remoting::body::TopicList RouteTable::topics_of_cluster(const std::string& cluster) const {
  remoting::body::TopicList list;
  auto c = clusters_.find(cluster);
  if (c == clusters_.end()) return list;
  for (const auto& [topic, queues] : topics_) {
    const bool on_cluster = std::any_of(queues.begin(), queues.end(),
                                        [&c](const auto& q) { return c->second.count(q.first) > 0; });
    if (on_cluster) list.topic_list.push_back(topic);
  }
  return list;
}

}  // namespace ferry::namesrv
