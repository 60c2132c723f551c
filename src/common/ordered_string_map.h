// OrderedStringMap: string keys to string values, kept in insertion order. The one ordered map
// under message properties (common/properties.h) and a remoting command's extFields
// (remoting/ext_fields.h).
//
// Order is part of the value: iteration, encoding and operator== follow insertion order, so a
// decoded map re-encodes its entries in the order they arrived, byte for byte. Keys are unique.
// Lookups scan the entries (real maps hold a few dozen at most); decoders that meet entries one
// at a time fill an OrderedStringMapBuilder, which stays linear in the number of entries however
// many repeat or arrive.
#pragma once

#include <concepts>
#include <cstddef>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ferry {

class OrderedStringMap {
 public:
  using Entry = std::pair<std::string, std::string>;

  OrderedStringMap() = default;
  // As set() of each entry in turn (a repeated key keeps its first position, its last value).
  OrderedStringMap(std::initializer_list<Entry> entries);

  // Sets `key` to `value`: replaces the value in place when the key is present (its position is
  // kept, like a Java HashMap put of a present key), otherwise appends. Takes anything a
  // std::string_view can view; a std::string passed as an rvalue is moved, not copied.
  template <typename K, typename V>
    requires std::convertible_to<const K&, std::string_view> &&
             std::convertible_to<const V&, std::string_view>
  void set(K&& key, V&& value) {
    if (Entry* e = find_entry(key)) {
      e->second = std::forward<V>(value);
      return;
    }
    entries_.emplace_back(std::string(std::forward<K>(key)), std::string(std::forward<V>(value)));
  }

  // The value of `key`, or nullptr / nullopt. The pointer or view is valid until the next
  // mutation of the map.
  const std::string* find(std::string_view key) const;
  std::optional<std::string_view> get(std::string_view key) const;
  bool contains(std::string_view key) const { return find(key) != nullptr; }
  // Removes `key` (the others keep their order); returns whether it was present.
  bool erase(std::string_view key);
  void clear() { entries_.clear(); }
  void reserve(std::size_t n) { entries_.reserve(n); }

  // Appends an entry whose key the caller knows is absent (a header table writing its distinct
  // field names): set() without the scan for the key. Appending a present key breaks the map's
  // invariant; only callers that guarantee absence may use it.
  template <typename K, typename V>
    requires std::convertible_to<const K&, std::string_view> &&
             std::convertible_to<const V&, std::string_view>
  void append_absent(K&& key, V&& value) {
    entries_.emplace_back(std::string(std::forward<K>(key)), std::string(std::forward<V>(value)));
  }

  // find() for a reader that asks for keys in about the order they were stored (a header table
  // decoding what a writer of the same table encoded): looks at entry `cursor` first, then at the
  // rest, and on a hit leaves `cursor` just past the entry found. Same result as find().
  const std::string* find_from(std::string_view key, std::size_t& cursor) const;
  // The same for a caller that may change (or move from) the value found.
  std::string* find_from(std::string_view key, std::size_t& cursor) {
    return const_cast<std::string*>(std::as_const(*this).find_from(key, cursor));
  }

  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  auto begin() const { return entries_.begin(); }
  auto end() const { return entries_.end(); }

  // Equal when the same entries appear in the same order.
  bool operator==(const OrderedStringMap&) const = default;
  // Equal when the same keys map to the same values, in any order.
  bool same_entries(const OrderedStringMap& other) const;

 private:
  friend class OrderedStringMapBuilder;

  Entry* find_entry(std::string_view key);
  std::vector<Entry> entries_;
};

// Fills an OrderedStringMap from entries met one at a time (a decoder's loop), in time linear in
// their number: set() means what OrderedStringMap::set() means. Up to kIndexAfterEntries keys
// are found by scanning, as the map does, with no allocation beyond the map's own; past that the
// builder also keeps a hash index of the keys. The index only says where a key is: the map's
// order is always insertion order, never the index's iteration order.
class OrderedStringMapBuilder {
 public:
  static constexpr std::size_t kIndexAfterEntries = 16;

  void set(std::string_view key, std::string_view value);
  // Room for `n` entries without reallocating (a decoder that knows about how many follow).
  void reserve(std::size_t n) { map_.reserve(n); }
  // Distinct keys so far.
  std::size_t size() const { return map_.size(); }
  // The map built; the builder is spent.
  [[nodiscard]] OrderedStringMap take() && { return std::move(map_); }

 private:
  struct KeyHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };

  OrderedStringMap map_;
  // key → position in map_; empty until map_ passes kIndexAfterEntries entries.
  std::unordered_map<std::string, std::size_t, KeyHash, std::equal_to<>> index_;
};

}  // namespace ferry
