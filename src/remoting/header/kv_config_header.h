// NameServer KV config headers: PUT_KV_CONFIG (100), GET_KV_CONFIG (101) and its reply,
// DELETE_KV_CONFIG (102).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "remoting/ext_fields.h"
#include "runtime/result.h"

namespace ferry::remoting {

struct PutKvConfigRequestHeader {
  std::string name_space;
  std::string key;
  std::string value;

  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<PutKvConfigRequestHeader> from_fields(const ExtFields& f);
  ExtFields to_fields() const;

  bool operator==(const PutKvConfigRequestHeader&) const = default;
};

struct GetKvConfigRequestHeader {
  std::string name_space;
  std::string key;

  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<GetKvConfigRequestHeader> from_fields(const ExtFields& f);
  ExtFields to_fields() const;

  bool operator==(const GetKvConfigRequestHeader&) const = default;
};

struct GetKvConfigResponseHeader {
  std::optional<std::string> value;

  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<GetKvConfigResponseHeader> from_fields(const ExtFields& f);
  ExtFields to_fields() const;

  bool operator==(const GetKvConfigResponseHeader&) const = default;
};

struct DeleteKvConfigRequestHeader {
  std::string name_space;
  std::string key;

  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<DeleteKvConfigRequestHeader> from_fields(const ExtFields& f);
  ExtFields to_fields() const;

  bool operator==(const DeleteKvConfigRequestHeader&) const = default;
};

}  // namespace ferry::remoting
