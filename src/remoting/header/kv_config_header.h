// NameServer KV config headers: PUT_KV_CONFIG (100), GET_KV_CONFIG (101) and its reply,
// DELETE_KV_CONFIG (102), GET_KVLIST_BY_NAMESPACE (219).
//
// Each struct names its extFields once, in fields(), which from_fields() and to_fields() both
// walk (remoting/header/field_codec.h says what required / optional / only_if_true mean).
#pragma once

#include <optional>
#include <string>

#include "remoting/ext_fields.h"
#include "remoting/header/field_codec.h"
#include "runtime/result.h"

namespace ferry::remoting {

struct PutKvConfigRequestHeader {
  std::string name_space;
  std::string key;
  std::string value;

  static constexpr auto fields() {
    using H = PutKvConfigRequestHeader;
    return header_table("PutKvConfigRequestHeader",
                        required("namespace", &H::name_space),
                        required("key", &H::key),
                        required("value", &H::value));
  }
  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<PutKvConfigRequestHeader> from_fields(const ExtFields& f) {
    return fields().decode(f);
  }
  ExtFields to_fields() const { return fields().encode(*this); }

  bool operator==(const PutKvConfigRequestHeader&) const = default;
};

struct GetKvConfigRequestHeader {
  std::string name_space;
  std::string key;

  static constexpr auto fields() {
    using H = GetKvConfigRequestHeader;
    return header_table("GetKvConfigRequestHeader",
                        required("namespace", &H::name_space),
                        required("key", &H::key));
  }
  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<GetKvConfigRequestHeader> from_fields(const ExtFields& f) {
    return fields().decode(f);
  }
  ExtFields to_fields() const { return fields().encode(*this); }

  bool operator==(const GetKvConfigRequestHeader&) const = default;
};

struct GetKvConfigResponseHeader {
  std::optional<std::string> value;

  static constexpr auto fields() {
    using H = GetKvConfigResponseHeader;
    return header_table("GetKvConfigResponseHeader", optional("value", &H::value));
  }
  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<GetKvConfigResponseHeader> from_fields(const ExtFields& f) {
    return fields().decode(f);
  }
  ExtFields to_fields() const { return fields().encode(*this); }

  bool operator==(const GetKvConfigResponseHeader&) const = default;
};

struct DeleteKvConfigRequestHeader {
  std::string name_space;
  std::string key;

  static constexpr auto fields() {
    using H = DeleteKvConfigRequestHeader;
    return header_table("DeleteKvConfigRequestHeader",
                        required("namespace", &H::name_space),
                        required("key", &H::key));
  }
  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<DeleteKvConfigRequestHeader> from_fields(const ExtFields& f) {
    return fields().decode(f);
  }
  ExtFields to_fields() const { return fields().encode(*this); }

  bool operator==(const DeleteKvConfigRequestHeader&) const = default;
};

struct GetKvListByNamespaceRequestHeader {
  std::string name_space;

  static constexpr auto fields() {
    using H = GetKvListByNamespaceRequestHeader;
    return header_table("GetKVListByNamespaceRequestHeader", required("namespace", &H::name_space));
  }
  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<GetKvListByNamespaceRequestHeader> from_fields(const ExtFields& f) {
    return fields().decode(f);
  }
  ExtFields to_fields() const { return fields().encode(*this); }

  bool operator==(const GetKvListByNamespaceRequestHeader&) const = default;
};

}  // namespace ferry::remoting
