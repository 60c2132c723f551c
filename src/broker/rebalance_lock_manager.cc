#include "broker/rebalance_lock_manager.h"

#include <algorithm>

namespace ferry::broker {

std::vector<MessageQueue> RebalanceLockManager::try_lock_batch(std::string_view group,
                                                               const std::vector<MessageQueue>& mqs,
                                                               std::string_view client_id) {
  const MonoTime now = rt_.now();
  if (now < hold_off_until_) {
    if (!hold_off_logged_) {
      rt_.log().info("lock {}: no queue lock granted for {} ms more (a restarted broker or a new master waits out "
                     "the locks its clients may still trust)", group, to_ms(hold_off_until_ - now));
      hold_off_logged_ = true;
    }
    return {};
  }
  std::vector<MessageQueue> wanted = mqs;
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  std::vector<MessageQueue> locked;
  auto g = table_.find(group);
  for (const MessageQueue& mq : wanted) {
    if (g != table_.end()) {
      auto e = g->second.find(mq);
      if (e != g->second.end()) {
        if (e->second.client_id == client_id || expired(e->second, now)) {
          if (e->second.client_id != client_id) {
            if (auto held = taken_log_.admit(now)) {
              rt_.log().info("lock {} {}:{}:{}: expired lock of {} taken by {}{}", group, mq.topic, mq.broker_name,
                             mq.queue_id, e->second.client_id, client_id, held_back_note(*held));
            }
          }
          e->second = Entry{std::string(client_id), now};
          locked.push_back(mq);
        } else {
          if (auto held = refused_log_.admit(now)) {
            rt_.log().info("lock {} {}:{}:{}: held by {}, refused to {}{}", group, mq.topic, mq.broker_name,
                           mq.queue_id, e->second.client_id, client_id, held_back_note(*held));
          }
        }
        continue;
      }
    }
    if (count_ >= config_.queue_locks_max) purge_expired(now);
    if (count_ >= config_.queue_locks_max) {
      if (auto held = cap_log_.admit(now)) {
        rt_.log().warn("lock {} {}:{}: {} locks is the cap; refused{}", group, mq.topic, mq.queue_id, count_,
                       held_back_note(*held));
      }
      continue;
    }
    if (g == table_.end()) g = table_.emplace(std::string(group), std::map<MessageQueue, Entry>{}).first;
    g->second.emplace(mq, Entry{std::string(client_id), now});
    ++count_;
    locked.push_back(mq);
  }
  return locked;
}

void RebalanceLockManager::unlock_batch(std::string_view group, const std::vector<MessageQueue>& mqs,
                                        std::string_view client_id) {
  auto g = table_.find(group);
  if (g == table_.end()) return;
  for (const MessageQueue& mq : mqs) {
    auto e = g->second.find(mq);
    if (e == g->second.end()) continue;
    if (e->second.client_id != client_id) {
      if (auto held = unlock_log_.admit(rt_.now())) {
        rt_.log().info("unlock {} {}:{}: held by {}, not by {}{}", group, mq.topic, mq.queue_id, e->second.client_id,
                       client_id, held_back_note(*held));
      }
      continue;
    }
    g->second.erase(e);
    --count_;
  }
  if (g->second.empty()) table_.erase(g);
}

bool RebalanceLockManager::is_locked(std::string_view group, const MessageQueue& mq, std::string_view client_id) const {
  auto g = table_.find(group);
  if (g == table_.end()) return false;
  auto e = g->second.find(mq);
  return e != g->second.end() && e->second.client_id == client_id && !expired(e->second, rt_.now());
}

void RebalanceLockManager::purge_expired(MonoTime now) {
  for (auto g = table_.begin(); g != table_.end();) {
    for (auto e = g->second.begin(); e != g->second.end();) {
      if (expired(e->second, now)) {
        e = g->second.erase(e);
        --count_;
      } else {
        ++e;
      }
    }
    g = g->second.empty() ? table_.erase(g) : std::next(g);
  }
}

void RebalanceLockManager::hold_off_for(Duration d) {
  hold_off_until_ = rt_.now() + d;
  hold_off_logged_ = false;
  table_.clear();
  count_ = 0;
}

}  // namespace ferry::broker
