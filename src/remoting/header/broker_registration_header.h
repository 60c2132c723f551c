// REGISTER_BROKER (103) request and reply headers, UNREGISTER_BROKER (104) request header.
// The registration body is RegisterBrokerBody (body/register_broker_body.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "remoting/ext_fields.h"
#include "runtime/result.h"

namespace ferry::remoting {

struct RegisterBrokerRequestHeader {
  std::string broker_name;
  std::string broker_addr;  // "ip:port"
  std::string cluster_name;
  std::string ha_server_addr;
  std::int64_t broker_id = 0;  // 0 = master
  // a compressed body (not supported by Ferry)
  bool compressed = false;
  // CRC32 of the body & 0x7FFFFFFF; 0 = unchecked
  std::int32_t body_crc32 = 0;

  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<RegisterBrokerRequestHeader> from_fields(const ExtFields& f);
  ExtFields to_fields() const;

  bool operator==(const RegisterBrokerRequestHeader&) const = default;
};

struct RegisterBrokerResponseHeader {
  std::optional<std::string> ha_server_addr;  // the master's HA address, for a slave
  std::optional<std::string> master_addr;

  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<RegisterBrokerResponseHeader> from_fields(const ExtFields& f);
  ExtFields to_fields() const;

  bool operator==(const RegisterBrokerResponseHeader&) const = default;
};

struct UnregisterBrokerRequestHeader {
  std::string broker_name;
  std::string broker_addr;
  std::string cluster_name;
  std::int64_t broker_id = 0;

  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<UnregisterBrokerRequestHeader> from_fields(const ExtFields& f);
  ExtFields to_fields() const;

  bool operator==(const UnregisterBrokerRequestHeader&) const = default;
};

}  // namespace ferry::remoting
