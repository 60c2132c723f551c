// REGISTER_BROKER (103) request and reply headers, UNREGISTER_BROKER (104) request header.
// The registration body is RegisterBrokerBody (body/register_broker_body.h).
//
// Each struct names its extFields once, in fields(), which from_fields() and to_fields() both
// walk (remoting/header/field_codec.h says what required / optional / only_if_true mean).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "remoting/ext_fields.h"
#include "remoting/header/field_codec.h"
#include "runtime/result.h"

namespace ferry::remoting {

struct RegisterBrokerRequestHeader {
  std::string broker_name;
  std::string broker_addr;  // "ip:port"
  std::string cluster_name;
  std::string ha_server_addr;
  std::int64_t broker_id = 0;  // 0 = master
  // a compressed body (not supported by Ferry); optional for older brokers
  bool compressed = false;
  // CRC32 of the body & 0x7FFFFFFF; 0 = unchecked; optional for older brokers
  std::int32_t body_crc32 = 0;

  static constexpr auto fields() {
    using H = RegisterBrokerRequestHeader;
    return header_table("RegisterBrokerRequestHeader",
                        required("brokerName", &H::broker_name),
                        required("brokerAddr", &H::broker_addr),
                        required("clusterName", &H::cluster_name),
                        required("haServerAddr", &H::ha_server_addr),
                        required("brokerId", &H::broker_id),
                        optional("compressed", &H::compressed),
                        optional("bodyCrc32", &H::body_crc32));
  }
  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<RegisterBrokerRequestHeader> from_fields(const ExtFields& f) {
    return fields().decode(f);
  }
  ExtFields to_fields() const { return fields().encode(*this); }

  bool operator==(const RegisterBrokerRequestHeader&) const = default;
};

struct RegisterBrokerResponseHeader {
  std::optional<std::string> ha_server_addr;  // the master's HA address, for a slave
  std::optional<std::string> master_addr;

  static constexpr auto fields() {
    using H = RegisterBrokerResponseHeader;
    return header_table("RegisterBrokerResponseHeader",
                        optional("haServerAddr", &H::ha_server_addr),
                        optional("masterAddr", &H::master_addr));
  }
  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<RegisterBrokerResponseHeader> from_fields(const ExtFields& f) {
    return fields().decode(f);
  }
  ExtFields to_fields() const { return fields().encode(*this); }

  bool operator==(const RegisterBrokerResponseHeader&) const = default;
};

struct UnregisterBrokerRequestHeader {
  std::string broker_name;
  std::string broker_addr;
  std::string cluster_name;
  std::int64_t broker_id = 0;

  static constexpr auto fields() {
    using H = UnregisterBrokerRequestHeader;
    return header_table("UnregisterBrokerRequestHeader",
                        required("brokerName", &H::broker_name),
                        required("brokerAddr", &H::broker_addr),
                        required("clusterName", &H::cluster_name),
                        required("brokerId", &H::broker_id));
  }
  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<UnregisterBrokerRequestHeader> from_fields(const ExtFields& f) {
    return fields().decode(f);
  }
  ExtFields to_fields() const { return fields().encode(*this); }

  bool operator==(const UnregisterBrokerRequestHeader&) const = default;
};

}  // namespace ferry::remoting
