// Replication admin headers: FERRY_PROMOTE_SLAVE (10001, Ferry's own request).
//
// Each struct names its extFields once, in fields() (remoting/header/field_codec.h).
#pragma once

#include <string>

#include "remoting/ext_fields.h"
#include "remoting/header/field_codec.h"
#include "runtime/result.h"

namespace ferry::remoting {

struct PromoteSlaveRequestHeader {
  std::string broker_role;  // "SYNC_MASTER" or "ASYNC_MASTER": the role the slave takes

  static constexpr auto fields() {
    using H = PromoteSlaveRequestHeader;
    return header_table("PromoteSlaveRequestHeader", required("brokerRole", &H::broker_role));
  }
  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<PromoteSlaveRequestHeader> from_fields(const ExtFields& f) { return fields().decode(f); }
  ExtFields to_fields() const { return fields().encode(*this); }

  bool operator==(const PromoteSlaveRequestHeader&) const = default;
};

}  // namespace ferry::remoting
