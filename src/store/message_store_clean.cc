// MessageStore::clean_expired_queues (CLEAN_EXPIRED_CONSUMEQUEUE): destroying ConsumeQueues whose
// messages the CommitLog no longer holds. The contract and the crash analysis are in
// message_store.h.
#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "runtime/assert.h"
#include "store/file_names.h"
#include "store/message_store.h"

namespace ferry::store {

Result<bool> MessageStore::queue_expired(const ConsumeQueue& q, PhysicalOffset log_min) const {
  // A message put but not indexed yet (SYNC_FLUSH waits for its sync) took a queue offset past the
  // queue's end: forgetting the queue would give that offset again.
  const auto next = next_queue_offset_.find(QueueKeyView(q.topic(), q.queue_id().value()));
  const QueueOffset next_offset = next == next_queue_offset_.end() ? QueueOffset(0) : next->second;
  FERRY_ASSERT(next_offset >= q.max_offset(), "{}:{} next queue offset {} below its end {}", q.topic(),
               q.queue_id().value(), next_offset.value(), q.max_offset().value());
  if (next_offset != q.max_offset()) return false;
  auto last = q.last_message_end();
  if (!last.ok()) return std::move(last).error();
  if (!last->has_value()) return q.max_offset() == QueueOffset(0);  // no file at all: a crash's leftover
  return **last <= log_min;
}

Result<MessageStore::ExpiredQueuesReport> MessageStore::clean_expired_queues(
    const std::vector<std::string>& kept_topics) {
  if (!opened_ || stopped_) return Error(Errc::closed, "cleanExpiredCQ: the store is not open");
  ExpiredQueuesReport report;
  report.log_min = log_.min_offset();
  for (auto it = queues_.begin(); it != queues_.end();) {
    ConsumeQueue& q = *it->second;
    if (std::find(kept_topics.begin(), kept_topics.end(), q.topic()) != kept_topics.end()) {
      ++it;
      continue;
    }
    auto expired = queue_expired(q, report.log_min);
    if (!expired.ok()) return std::move(expired).error();
    if (!*expired) {
      ++it;
      continue;
    }
    const QueueOffset max = q.max_offset();
    FERRY_TRY(q.remove_all());
    FERRY_ASSERT(q.files().empty(), "{}:{} keeps {} file(s) after remove_all", q.topic(), q.queue_id().value(),
                 q.files().file_count());
    rt_.log().info("store: cleanExpiredCQ: {}:{} destroyed ({} unit(s), all below the CommitLog's start {})", q.topic(),
                   q.queue_id().value(), max.value(), report.log_min.value());
    next_queue_offset_.erase(it->first);
    report.removed.push_back(it->first);
    if (queue_flushes_ > 0) retired_queues_.push_back(std::move(it->second));
    it = queues_.erase(it);
  }
  auto dirs = remove_empty_topic_dirs();
  if (!dirs.ok()) return std::move(dirs).error();
  report.topic_dirs_removed = *dirs;
  return report;
}

Result<std::size_t> MessageStore::remove_empty_topic_dirs() {
  const std::string root = join_path(config_.root, "consumequeue");
  auto topics = rt_.fs().list(root);
  if (!topics.ok()) {
    if (topics.error().is(Errc::not_found)) return std::size_t{0};
    return std::move(topics).error();
  }
  std::size_t removed = 0;
  for (const std::string& topic : *topics) {
    const auto first = queues_.lower_bound(QueueKeyView(topic, std::numeric_limits<std::int32_t>::min()));
    if (first != queues_.end() && first->first.first == topic) continue;  // in use
    const std::string dir = join_path(root, topic);
    auto entries = rt_.fs().list(dir);
    if (!entries.ok()) return std::move(entries).error();
    if (!entries->empty()) continue;  // not ours to judge: load() would have opened its queues
    FERRY_TRY(rt_.fs().remove(dir));
    rt_.log().info("store: cleanExpiredCQ: topic directory {} removed (no queue left)", dir);
    ++removed;
  }
  return removed;
}

}  // namespace ferry::store
