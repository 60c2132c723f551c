// Typed header fields in extFields, each named once.
//
// A header struct lists its fields in one table, fields(), and from_fields() and to_fields()
// both walk it, in its order:
//
//   struct GetMaxOffsetRequestHeader {
//     std::string topic;
//     std::int32_t queue_id = 0;
//     static constexpr auto fields() {
//       using H = GetMaxOffsetRequestHeader;
//       return header_table("GetMaxOffsetRequestHeader",  // the name errors give
//                           required("topic", &H::topic),
//                           required("queueId", &H::queue_id));
//     }
//     static Result<GetMaxOffsetRequestHeader> from_fields(const ExtFields& f) {
//       return fields().decode(f);
//     }
//     ExtFields to_fields() const { return fields().encode(*this); }
//   };
//
// Kinds of field:
//   required(name, member)      decode: a missing field is an error. encode: always written.
//   optional(name, member)      decode: a missing field leaves the member at the struct's default
//                               (nullopt for a std::optional). encode: written unless nullopt.
//   only_if_true(name, member)  a bool read as optional and written only when true.
//
// Member types (FieldText below): std::string, std::int32_t, std::int64_t, bool, and the typed
// numbers of common/offsets.h — QueueId as an int32, QueueOffset and PhysicalOffset as int64 —
// each also inside a std::optional. Values are text the way Java peers write them: integers in
// decimal, booleans "true"/"false" (any case when read).
//
// The same table reads and writes the binary header's extFields bytes directly
// (decode_binary / encode_binary, for RemotingCommand::raw_ext_fields: no map on a hot path),
// with the same results as the map forms.
//
// Decoding reads every field in table order, records the first problem only and returns it
// (Errc::invalid_argument), naming the header and the field:
//   "PullMessageRequestHeader: missing field queueId"
//   "PullMessageRequestHeader: field queueId = \"x1\" is not an int32"
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "common/offsets.h"
#include "remoting/decimal_text.h"
#include "remoting/ext_fields.h"
#include "remoting/header_binary.h"
#include "runtime/assert.h"
#include "runtime/result.h"

namespace ferry::remoting {

// How one member type reads from and writes to its extFields text. kType names it in errors.
template <typename T>
struct FieldText;

// Any text is a string: FieldErrors::parse assigns it in place, so strings have no parse().
template <>
struct FieldText<std::string> {
  static constexpr std::string_view kType = "a string";
  static std::string format(const std::string& v) { return v; }
};
template <>
struct FieldText<std::int32_t> {
  static constexpr std::string_view kType = "an int32";
  static std::optional<std::int32_t> parse(std::string_view text) { return parse_int32(text); }
  static std::string format(std::int32_t v) { return std::to_string(v); }
};
template <>
struct FieldText<std::int64_t> {
  static constexpr std::string_view kType = "an int64";
  static std::optional<std::int64_t> parse(std::string_view text) { return parse_int64(text); }
  static std::string format(std::int64_t v) { return std::to_string(v); }
};
template <>
struct FieldText<bool> {
  static constexpr std::string_view kType = "a boolean";
  static std::optional<bool> parse(std::string_view text) { return parse_bool(text); }
  static std::string format(bool v) { return v ? "true" : "false"; }
};
// QueueId, QueueOffset, PhysicalOffset: the text of their raw number.
template <typename Tag, typename Rep, bool Arith>
struct FieldText<ferry::detail::Tagged<Tag, Rep, Arith>> {
  using Typed = ferry::detail::Tagged<Tag, Rep, Arith>;
  static constexpr std::string_view kType = FieldText<Rep>::kType;
  static std::optional<Typed> parse(std::string_view text) {
    const std::optional<Rep> raw = FieldText<Rep>::parse(text);
    if (!raw) return std::nullopt;
    return Typed(*raw);
  }
  static std::string format(Typed v) { return FieldText<Rep>::format(v.value()); }
};

enum class FieldPresence : std::uint8_t { required, optional, only_if_true };

// One row of a header table: the extFields name, the member it fills, and its kind.
template <typename Header, typename T>
struct Field {
  std::string_view name;
  T Header::*member;
  FieldPresence presence;
};

template <typename Header, typename T>
constexpr Field<Header, T> required(std::string_view name, T Header::*member) {
  return {name, member, FieldPresence::required};
}
template <typename Header, typename T>
constexpr Field<Header, T> optional(std::string_view name, T Header::*member) {
  return {name, member, FieldPresence::optional};
}
template <typename Header>
constexpr Field<Header, bool> only_if_true(std::string_view name, bool Header::*member) {
  return {name, member, FieldPresence::only_if_true};
}

// The value type of a member: T itself, or the T inside a std::optional<T>.
template <typename T>
struct FieldValue {
  using type = T;
  static constexpr bool kOptional = false;
};
template <typename T>
struct FieldValue<std::optional<T>> {
  using type = T;
  static constexpr bool kOptional = true;
};

// The first error of one header's decode: a missing or malformed field, named with the header.
class FieldErrors {
 public:
  explicit FieldErrors(std::string_view header_name) : header_name_(header_name) {}

  // Sets `out` from `text`, or records that it is not a `T` (later calls still run and leave
  // their members at the defaults they had).
  template <typename T>
  void parse(std::string_view name, std::string_view text, T& out) {
    if constexpr (std::is_same_v<T, std::string>) {  // any text is a string: no temporary
      out.assign(text);
    } else if constexpr (std::is_same_v<T, std::optional<std::string>>) {
      out.emplace(text);
    } else {
      using Value = typename FieldValue<T>::type;
      std::optional<Value> v = FieldText<Value>::parse(text);
      if (!v) {
        bad(name, text, FieldText<Value>::kType);
        return;
      }
      out = std::move(*v);
    }
  }
  void missing(std::string_view name);
  void bad(std::string_view name, std::string_view value, std::string_view type);

  // OK, or the first error met.
  Status status() const;

 private:
  std::string_view header_name_;
  std::optional<Error> error_;
};

// Reads fields of one header from the map, keeping the first error met.
class FieldReader {
 public:
  FieldReader(const ExtFields& fields, std::string_view header_name)
      : fields_(fields), errors_(header_name) {}
  // A reader that moves string values out of `fields` into the header instead of copying them:
  // for a caller that gives the fields up (a processor decoding the request it owns).
  struct MoveStrings {};
  FieldReader(ExtFields& fields, std::string_view header_name, MoveStrings)
      : fields_(fields), movable_(&fields), errors_(header_name) {}

  // Sets `out` from field `name` when it is present and well-formed; see the kinds above.
  template <typename T>
  void read(std::string_view name, FieldPresence presence, T& out) {
    using Value = typename FieldValue<T>::type;
    std::string* movable = movable_ != nullptr ? movable_->find_from(name, cursor_) : nullptr;
    const std::string* text = movable_ != nullptr ? movable : fields_.find_from(name, cursor_);
    if (text == nullptr) {
      if (presence == FieldPresence::required) errors_.missing(name);
      return;
    }
    if constexpr (std::is_same_v<Value, std::string>) {
      if (movable != nullptr) {
        out = std::move(*movable);
        return;
      }
    }
    errors_.parse(name, *text, out);
  }

  // OK, or the first error met.
  Status status() const { return errors_.status(); }

 private:
  const ExtFields& fields_;
  ExtFields* movable_ = nullptr;  // fields_ itself, when strings may move out of it
  FieldErrors errors_;
  std::size_t cursor_ = 0;  // where the next field is most likely (ExtFields::find_from)
};

// Writes `value` as field `name` unless its kind says to leave it out (a nullopt optional, a
// false only_if_true). `name` must not be in `f` yet (a table's names are distinct: HeaderTable::encode).
template <typename T>
void put_field(ExtFields& f, std::string_view name, FieldPresence presence, const T& value) {
  if constexpr (FieldValue<T>::kOptional) {
    if (value) f.append_absent(name, FieldText<typename FieldValue<T>::type>::format(*value));
  } else {
    if constexpr (std::is_same_v<T, bool>) {
      if (presence == FieldPresence::only_if_true && !value) return;
    }
    f.append_absent(name, FieldText<T>::format(value));
  }
}

// put_field() of a member the header gives up: a string (or a present optional string) moves
// into the fields instead of being copied; other kinds are formatted as put_field() does.
template <typename T>
void take_field(ExtFields& f, std::string_view name, FieldPresence presence, T& value) {
  if constexpr (std::is_same_v<T, std::string>) {
    f.append_absent(name, std::move(value));
  } else if constexpr (std::is_same_v<T, std::optional<std::string>>) {
    if (value) f.append_absent(name, std::move(*value));
  } else {
    put_field(f, name, presence, value);
  }
}

// put_field() into the binary header's entry form (append_binary_ext_field): a string is written
// from the member itself, never copied into a map first.
template <typename T>
void put_binary_field(std::vector<std::uint8_t>& out, std::string_view name, FieldPresence presence, const T& value) {
  if constexpr (FieldValue<T>::kOptional) {
    if (value) put_binary_field(out, name, FieldPresence::optional, *value);
  } else if constexpr (std::is_same_v<T, std::string>) {
    append_binary_ext_field(out, name, value);
  } else {
    if constexpr (std::is_same_v<T, bool>) {
      if (presence == FieldPresence::only_if_true && !value) return;
    }
    append_binary_ext_field(out, name, FieldText<T>::format(value));
  }
}

// A header's fields in wire order, and the header's name for errors.
template <typename Header, typename... Fields>
class HeaderTable {
 public:
  constexpr HeaderTable(std::string_view header_name, Fields... fields)
      : name_(header_name), fields_(fields...) {}

  // The header, or the first missing or malformed field's error.
  [[nodiscard]] Result<Header> decode(const ExtFields& f) const {
    FieldReader r(f, name_);
    return read_all(r);
  }
  // The same from fields the caller gives up: string values move into the header (the fields
  // keep their keys, and empty strings in those places).
  [[nodiscard]] Result<Header> decode(ExtFields&& f) const {
    FieldReader r(f, name_, FieldReader::MoveStrings{});
    return read_all(r);
  }

  // The header from a binary header's extFields entries (RemotingCommand::raw_ext_fields),
  // without the map: the same header, or the same first error, as decode() of the map those
  // entries make (a key met twice counts with its last value; keys of no row are skipped).
  // Malformed entries: Errc::corrupt, as read_binary_header() reports them.
  [[nodiscard]] Result<Header> decode_binary(Bytes entries) const {
    constexpr std::size_t kRows = sizeof...(Fields);
    const std::array<std::string_view, kRows> names = row_names();
    std::array<std::optional<std::string_view>, kRows> found{};
    std::size_t expect = 0;  // the row the next entry most likely fills: writers go in table order
    std::size_t entries_seen = 0;
    BinaryExtFieldsReader r(entries);
    BinaryExtFieldsReader::Entry e;
    while (r.next(e)) {
      if (++entries_seen > kExtFieldsMax) {  // the map's bound counts distinct keys: let it judge
        Result<ExtFields> map = read_binary_ext_fields(entries);
        if (!map) return std::move(map).error();
        return decode(std::move(*map));
      }
      std::size_t row = expect < kRows && same_key(names[expect], e.key) ? expect : kRows;
      for (std::size_t i = 0; row == kRows && i < kRows; ++i) {
        if (same_key(names[i], e.key)) row = i;
      }
      if (row == kRows) continue;
      found[row] = e.value;
      expect = row + 1;
    }
    if (r.failed()) return r.error();
    Header h;
    FieldErrors errors(name_);
    std::size_t row = 0;
    std::apply(
        [&](const auto&... field) {
          (
              [&] {
                const std::optional<std::string_view>& text = found[row++];
                if (text) {
                  errors.parse(field.name, *text, h.*field.member);
                } else if (field.presence == FieldPresence::required) {
                  errors.missing(field.name);
                }
              }(),
              ...);
        },
        fields_);
    FERRY_TRY(errors.status());
    return h;
  }

  // Appends the fields, in table order, to `out` in the binary header's entry form (for
  // RemotingCommand::raw_ext_fields): what encode() gives, without the map.
  void encode_binary(const Header& h, std::vector<std::uint8_t>& out) const {
#ifndef NDEBUG
    FERRY_ASSERT(names_distinct(), "header table {} names a field twice", name_);
#endif
    std::apply([&](const auto&... field) { (put_binary_field(out, field.name, field.presence, h.*field.member), ...); },
               fields_);
  }

  // The fields in table order.
  [[nodiscard]] ExtFields encode(const Header& h) const { return write_all<false>(h); }
  // The same fields from a header the caller gives up: its strings move into them.
  [[nodiscard]] ExtFields encode(Header&& h) const { return write_all<true>(h); }

 private:
  Result<Header> read_all(FieldReader& r) const {
    Header h;
    std::apply(
        [&](const auto&... field) { (r.read(field.name, field.presence, h.*field.member), ...); },
        fields_);
    FERRY_TRY(r.status());
    return h;
  }

  // put_field() (kMove: take_field()) of every row, into fields reserved for all of them.
  template <bool kMove, typename H>
  ExtFields write_all(H& h) const {
    // put_field appends without looking for the name: it relies on the names being distinct,
    // which debug builds (the sanitizer build's tests) check on every encode.
#ifndef NDEBUG
    FERRY_ASSERT(names_distinct(), "header table {} names a field twice", name_);
#endif
    ExtFields f;
    f.reserve(sizeof...(Fields));
    std::apply(
        [&](const auto&... field) {
          if constexpr (kMove) {
            (take_field(f, field.name, field.presence, h.*field.member), ...);
          } else {
            (put_field(f, field.name, field.presence, h.*field.member), ...);
          }
        },
        fields_);
    return f;
  }

  // Names compared by length and first byte before the rest: V2 names are one letter.
  static bool same_key(std::string_view a, std::string_view b) {
    return a.size() == b.size() && (a.empty() || (a[0] == b[0] && a.substr(1) == b.substr(1)));
  }

  std::array<std::string_view, sizeof...(Fields)> row_names() const {
    return std::apply([](const auto&... field) { return std::array<std::string_view, sizeof...(Fields)>{field.name...}; }, fields_);
  }

  bool names_distinct() const {
    const std::array<std::string_view, sizeof...(Fields)> names = row_names();
    for (std::size_t i = 0; i < names.size(); ++i) {
      for (std::size_t j = i + 1; j < names.size(); ++j) {
        if (names[i] == names[j]) return false;
      }
    }
    return true;
  }

  std::string_view name_;
  std::tuple<Fields...> fields_;
};

// Every row must belong to the same Header (a row of another header does not compile).
template <typename Header, typename... Ts>
constexpr HeaderTable<Header, Field<Header, Ts>...> header_table(std::string_view header_name,
                                                                  Field<Header, Ts>... fields) {
  return HeaderTable<Header, Field<Header, Ts>...>(header_name, fields...);
}

}  // namespace ferry::remoting
