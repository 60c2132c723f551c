#include "broker/filter_cache.h"

#include "runtime/assert.h"

namespace ferry::broker {

FilterCache::FilterCache(std::size_t capacity) : capacity_(capacity) {
  FERRY_ASSERT(capacity_ > 0, "a filter cache of capacity {}", capacity_);
}

const Result<SubscriptionFilter>& FilterCache::get(ExpressionType type, std::string_view expression) {
  Key key{type, std::string(expression)};
  auto it = entries_.find(key);
  if (it != entries_.end()) {
    by_use_.erase(it->second.used);
    it->second.used = ++clock_;
    by_use_.emplace(it->second.used, key);
    return it->second.filter;
  }
  if (entries_.size() >= capacity_ && !by_use_.empty()) {
    const auto oldest = by_use_.begin();
    entries_.erase(oldest->second);
    by_use_.erase(oldest);
  }
  Entry e{SubscriptionFilter::compile(type, expression), ++clock_};
  by_use_.emplace(e.used, key);
  auto [added, inserted] = entries_.emplace(std::move(key), std::move(e));
  FERRY_ASSERT(inserted, "filter cache: the expression was both absent and present");
  FERRY_ASSERT(entries_.size() <= capacity_, "filter cache holds {} of {}", entries_.size(), capacity_);
  return added->second.filter;
}

}  // namespace ferry::broker
