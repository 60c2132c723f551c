// ExtFields: a command's string→string header fields, kept in insertion order so that encoding
// is deterministic and a decoded command re-encodes its fields in the order they arrived.
//
// Lookups scan linearly: real headers carry fewer than 20 fields, and the decoders refuse more
// than kExtFieldsMax, which keeps set() (which replaces a present key) cheap enough.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ferry::remoting {

// The most extFields a decoded header may carry; more is reported as a bad header.
inline constexpr std::size_t kExtFieldsMax = 1024;

class ExtFields {
 public:
  using Entry = std::pair<std::string, std::string>;

  ExtFields() = default;
  ExtFields(std::initializer_list<Entry> entries);

  // Sets `key` to `value`: replaces the value in place when the key is present (its position is
  // kept, like a Java HashMap put of a present key), otherwise appends.
  void set(std::string key, std::string value);
  // The value of `key`, or nullptr. The pointer is valid until the next mutation.
  const std::string* find(std::string_view key) const;
  bool contains(std::string_view key) const { return find(key) != nullptr; }
  // Removes `key`; returns whether it was present.
  bool erase(std::string_view key);
  void clear() { entries_.clear(); }

  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  auto begin() const { return entries_.begin(); }
  auto end() const { return entries_.end(); }

  // Equal when the same entries appear in the same order.
  bool operator==(const ExtFields&) const = default;
  // Equal when the same keys map to the same values, in any order.
  bool same_entries(const ExtFields& other) const;

 private:
  std::vector<Entry> entries_;
};

}  // namespace ferry::remoting
