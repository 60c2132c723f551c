// FilterCache: compiled subscription filters by (expression type, text), for pulls that carry
// their subscription (the pull sysFlag's subscription bit, which RocketMQ's pull and lite pull
// consumers set on every pull): compiling the same SQL92 text on every pull would cost more than
// the pull. RocketMQ's SelectorParser keeps a cache of 100 parses; so does this, failures
// included (an expression that does not compile is refused again without parsing it again).
//
// Bounded: at most `capacity` entries; the least recently used goes first. Deterministic (no
// hash order reaches a decision). Threading: the node's loop.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "common/subscription_filter.h"

namespace ferry::broker {

class FilterCache {
 public:
  explicit FilterCache(std::size_t capacity = 100);

  // The compiled filter, or the compiler's error, for `expression` of `type`.
  const Result<SubscriptionFilter>& get(ExpressionType type, std::string_view expression);

  std::size_t size() const { return entries_.size(); }

 private:
  struct Entry {
    Result<SubscriptionFilter> filter;
    std::uint64_t used = 0;
  };
  using Key = std::pair<ExpressionType, std::string>;

  std::size_t capacity_;
  std::uint64_t clock_ = 0;
  std::map<Key, Entry, std::less<>> entries_;
  std::map<std::uint64_t, Key> by_use_;  // least recently used first
};

}  // namespace ferry::broker
