#include "common/ordered_string_map.h"

#include <cstring>

#include "runtime/assert.h"

namespace ferry {
namespace {

// Key equality, cheapest test first: most compared keys differ in length or in their first
// byte (binary headers name their fields with one letter), which settles it without memcmp.
bool same_key(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  if (a.empty()) return true;
  if (a.front() != b.front()) return false;
  return a.size() == 1 || std::memcmp(a.data() + 1, b.data() + 1, a.size() - 1) == 0;
}

}  // namespace

OrderedStringMap::OrderedStringMap(std::initializer_list<Entry> entries) {
  for (const auto& [k, v] : entries) set(k, v);
}

OrderedStringMap::Entry* OrderedStringMap::find_entry(std::string_view key) {
  for (Entry& e : entries_) {
    if (same_key(e.first, key)) return &e;
  }
  return nullptr;
}

const std::string* OrderedStringMap::find(std::string_view key) const {
  for (const Entry& e : entries_) {
    if (same_key(e.first, key)) return &e.second;
  }
  return nullptr;
}

const std::string* OrderedStringMap::find_from(std::string_view key, std::size_t& cursor) const {
  const std::size_t n = entries_.size();
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t i = (cursor + k) % n;
    if (same_key(entries_[i].first, key)) {
      cursor = i + 1;
      return &entries_[i].second;
    }
  }
  return nullptr;
}

std::optional<std::string_view> OrderedStringMap::get(std::string_view key) const {
  const std::string* v = find(key);
  if (v == nullptr) return std::nullopt;
  return std::string_view(*v);
}

bool OrderedStringMap::erase(std::string_view key) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (same_key(it->first, key)) {
      entries_.erase(it);
      return true;
    }
  }
  return false;
}

bool OrderedStringMap::same_entries(const OrderedStringMap& other) const {
  if (size() != other.size()) return false;
  for (const auto& [k, v] : entries_) {
    const std::string* o = other.find(k);
    if (o == nullptr || *o != v) return false;
  }
  return true;
}

void OrderedStringMapBuilder::set(std::string_view key, std::string_view value) {
  std::vector<OrderedStringMap::Entry>& entries = map_.entries_;
  if (index_.empty() && entries.size() < kIndexAfterEntries) {
    map_.set(key, value);
    return;
  }
  if (index_.empty()) {  // the map just reached kIndexAfterEntries: index what it holds
    for (std::size_t i = 0; i < entries.size(); ++i) index_.emplace(entries[i].first, i);
  }
  if (auto it = index_.find(key); it != index_.end()) {
    FERRY_ASSERT(it->second < entries.size(), "index says key at {} of {} entries", it->second,
                 entries.size());
    entries[it->second].second.assign(value);
    return;
  }
  index_.emplace(std::string(key), entries.size());
  entries.emplace_back(std::string(key), std::string(value));
  FERRY_ASSERT_EQ(index_.size(), entries.size());
}

}  // namespace ferry
