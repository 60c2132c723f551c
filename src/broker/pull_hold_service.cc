#include "broker/pull_hold_service.h"

#include <limits>
#include <vector>

namespace ferry::broker {

PullHoldService::PullHoldService(Runtime& rt, const BrokerConfig& config, store::MessageStore& store)
    : rt_(rt), config_(config), store_(store) {}

Task<PullHoldService::Wake> PullHoldService::wait(std::string topic, QueueId queue, QueueOffset offset,
                                                  Duration timeout) {
  if (stopped_) co_return Wake::stopped;
  if (parked_ >= config_.parked_pulls_max) co_return Wake::full;
  Key key{std::move(topic), queue.value()};
  const std::uint64_t seq = ++next_seq_;
  Completion<Wake> done(rt_.executor());
  const TimerId timer = rt_.timers().schedule(timeout, [this, key, seq] { release(key, seq, Wake::timed_out); });
  waiting_[key].emplace(seq, Parked{offset, done, timer});
  ++parked_;
  done.on_abandon([this, key, seq] {
    auto it = waiting_.find(key);
    if (it == waiting_.end()) return;
    auto p = it->second.find(seq);
    if (p == it->second.end()) return;
    rt_.timers().cancel(p->second.timer);
    it->second.erase(p);
    --parked_;
    if (it->second.empty()) waiting_.erase(it);
  });
  co_return co_await done.wait();
}

void PullHoldService::release(const Key& key, std::uint64_t seq, Wake why) {
  auto it = waiting_.find(key);
  if (it == waiting_.end()) return;
  auto p = it->second.find(seq);
  if (p == it->second.end()) return;
  Parked parked = std::move(p->second);
  it->second.erase(p);
  --parked_;
  if (it->second.empty()) waiting_.erase(it);
  if (why != Wake::timed_out) rt_.timers().cancel(parked.timer);
  parked.done.complete(why);
}

void PullHoldService::release_past(const Key& key, QueueOffset max_offset) {
  auto it = waiting_.find(key);
  if (it == waiting_.end()) return;
  std::vector<std::uint64_t> ready;
  for (const auto& [seq, p] : it->second) {
    if (max_offset > p.offset) ready.push_back(seq);
  }
  for (std::uint64_t seq : ready) release(key, seq, Wake::arrived);
}

void PullHoldService::on_arrival(const std::string& topic, QueueId queue, QueueOffset max_offset) {
  release_past(Key{topic, queue.value()}, max_offset);
}

Task<void> PullHoldService::run_check_loop() {
  while (!stopped_) {
    co_await rt_.sleep(config_.long_polling_check_interval);
    std::vector<Key> keys;
    for (const auto& [key, parked] : waiting_) keys.push_back(key);
    for (const Key& key : keys) {
      QueueOffset max_offset = store_.max_offset(key.first, QueueId(key.second));
      // buggify: a spurious wake: every pull parked on the queue wakes though nothing arrived
      // (the pull runs once more, finds nothing and replies PULL_NOT_FOUND early).
      if (FERRY_BUGGIFY(rt_)) max_offset = QueueOffset(std::numeric_limits<std::int64_t>::max());
      release_past(key, max_offset);
    }
  }
}

void PullHoldService::stop() {
  stopped_ = true;
  std::vector<std::pair<Key, std::uint64_t>> all;
  for (const auto& [key, parked] : waiting_) {
    for (const auto& [seq, p] : parked) all.emplace_back(key, seq);
  }
  for (const auto& [key, seq] : all) release(key, seq, Wake::stopped);
}

}  // namespace ferry::broker
