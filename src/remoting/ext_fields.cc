#include "remoting/ext_fields.h"

namespace ferry::remoting {

ExtFields::ExtFields(std::initializer_list<Entry> entries) {
  for (const auto& [k, v] : entries) set(k, v);
}

void ExtFields::set(std::string key, std::string value) {
  for (auto& e : entries_) {
    if (e.first == key) {
      e.second = std::move(value);
      return;
    }
  }
  entries_.emplace_back(std::move(key), std::move(value));
}

const std::string* ExtFields::find(std::string_view key) const {
  for (const auto& e : entries_) {
    if (e.first == key) return &e.second;
  }
  return nullptr;
}

bool ExtFields::erase(std::string_view key) {
  for (auto it = entries_.begin(); it != entries_.end(); ++it) {
    if (it->first == key) {
      entries_.erase(it);
      return true;
    }
  }
  return false;
}

bool ExtFields::same_entries(const ExtFields& other) const {
  if (size() != other.size()) return false;
  for (const auto& [k, v] : entries_) {
    const std::string* o = other.find(k);
    if (o == nullptr || *o != v) return false;
  }
  return true;
}

}  // namespace ferry::remoting
