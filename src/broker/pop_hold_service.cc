#include "broker/pop_hold_service.h"

namespace ferry::broker {

Task<PopHoldService::Wake> PopHoldService::wait(std::vector<std::string> topics, std::string group, Duration timeout) {
  if (stopped_) co_return Wake::stopped;
  FERRY_ASSERT(!topics.empty(), "a POP waits on no topic");
  const std::pair<std::string, std::string> key{topics.front(), group};
  auto g = per_group_.find(key);
  if (waiters_.size() >= config_.max_pop_polling_size || (g != per_group_.end() && g->second >= config_.pop_polling_size)) {
    co_return Wake::full;
  }
  const std::uint64_t seq = ++next_seq_;
  Completion<Wake> done(rt_.executor());
  const TimerId timer = rt_.timers().schedule(timeout, [this, seq] { release(seq, Wake::timed_out); });
  for (const std::string& t : topics) by_topic_[t].insert(seq);
  ++per_group_[key];
  waiters_.emplace(seq, Waiter{std::move(topics), std::move(group), done, timer});
  done.on_abandon([this, seq] {
    release(seq, Wake::stopped);  // cancels the timer; completes nobody: the frame is gone
  });
  co_return co_await done.wait();
}

void PopHoldService::release(std::uint64_t seq, Wake why) {
  auto it = waiters_.find(seq);
  if (it == waiters_.end()) return;
  Waiter w = std::move(it->second);
  waiters_.erase(it);
  for (const std::string& t : w.topics) {
    auto b = by_topic_.find(t);
    if (b == by_topic_.end()) continue;
    b->second.erase(seq);
    if (b->second.empty()) by_topic_.erase(b);
  }
  auto g = per_group_.find({w.topics.front(), w.group});
  if (g != per_group_.end() && --g->second == 0) per_group_.erase(g);
  if (why != Wake::timed_out) rt_.timers().cancel(w.timer);
  w.done.complete(why);
}

void PopHoldService::on_arrival(const std::string& topic) {
  auto b = by_topic_.find(topic);
  if (b == by_topic_.end()) return;
  const std::vector<std::uint64_t> ready(b->second.begin(), b->second.end());
  for (const std::uint64_t seq : ready) release(seq, Wake::arrived);
}

void PopHoldService::notify(const std::string& topic, const std::string& group) {
  auto b = by_topic_.find(topic);
  if (b == by_topic_.end()) return;
  std::vector<std::uint64_t> ready;
  for (const std::uint64_t seq : b->second) {
    if (waiters_.at(seq).group == group) ready.push_back(seq);
  }
  for (const std::uint64_t seq : ready) release(seq, Wake::arrived);
}

void PopHoldService::stop() {
  stopped_ = true;
  std::vector<std::uint64_t> all;
  for (const auto& [seq, w] : waiters_) all.push_back(seq);
  for (const std::uint64_t seq : all) release(seq, Wake::stopped);
}

}  // namespace ferry::broker
