// The role an operator's promotion gave a broker, kept in {config_dir}/ha_role.json so that it
// survives a restart: a promoted slave that came back as a SLAVE (what its broker.conf still says)
// would leave its group without a master. At start the file wins over broker.conf's brokerRole
// and brokerId, and the broker logs that it does; an operator who has updated broker.conf deletes
// the file.
//
//   {"brokerRole":"SYNC_MASTER","brokerId":0,"promotedAtMs":1767225600000}
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "broker/broker_config.h"
#include "runtime/result.h"
#include "runtime/runtime.h"

namespace ferry::broker {

std::string_view role_name(BrokerRole r);  // "ASYNC_MASTER", "SYNC_MASTER", "SLAVE"
std::optional<BrokerRole> parse_role(std::string_view text);

struct RoleOverride {
  BrokerRole role = BrokerRole::async_master;
  std::int64_t broker_id = 0;
  WallMs promoted_at_ms = 0;
};

std::string role_override_path(const std::string& config_dir);
// nullopt when there is no file. Errors: corrupt (naming the file and what is wrong).
Result<std::optional<RoleOverride>> load_role_override(Runtime& rt, const std::string& config_dir);
// Writes the file atomically (config_file.h). Errors: io_error, no_space.
Task<Status> save_role_override(Runtime& rt, std::string config_dir, RoleOverride o);

}  // namespace ferry::broker
