#include "broker/ha_role.h"

#include <fmt/format.h>
#include <rapidjson/document.h>

#include "common/config_file.h"
#include "remoting/json/json_reader.h"

namespace ferry::broker {

std::string_view role_name(BrokerRole r) {
  switch (r) {
    case BrokerRole::async_master: return "ASYNC_MASTER";
    case BrokerRole::sync_master: return "SYNC_MASTER";
    case BrokerRole::slave: return "SLAVE";
  }
  return "UNKNOWN";
}

std::optional<BrokerRole> parse_role(std::string_view text) {
  if (text == "ASYNC_MASTER") return BrokerRole::async_master;
  if (text == "SYNC_MASTER") return BrokerRole::sync_master;
  if (text == "SLAVE") return BrokerRole::slave;
  return std::nullopt;
}

std::string role_override_path(const std::string& config_dir) { return config_dir + "/ha_role.json"; }

Result<std::optional<RoleOverride>> load_role_override(Runtime& rt, const std::string& config_dir) {
  ConfigFile file(rt, role_override_path(config_dir));
  RoleOverride out;
  auto loaded = file.load([&](std::string_view text) -> Status {
    rapidjson::Document doc;
    doc.Parse(text.data(), text.size());
    if (doc.HasParseError()) return Error(Errc::corrupt, "not JSON");
    remoting::json::JsonErrors errors;
    remoting::json::ObjectReader r(doc, "ha_role", errors);
    const std::string role = r.string("brokerRole");
    const std::int64_t id = r.int64("brokerId");
    const std::int64_t at = r.int64_or("promotedAtMs", 0);
    if (errors.failed()) return errors.take();
    const auto parsed = parse_role(role);
    if (!parsed || *parsed == BrokerRole::slave || id != 0) {
      return Error(Errc::corrupt, fmt::format("brokerRole {} / brokerId {}: a promotion makes a master with brokerId 0", role, id));
    }
    out = RoleOverride{*parsed, id, at};
    return {};
  });
  if (!loaded.ok()) return std::move(loaded).error();
  if (!loaded->has_value()) return std::optional<RoleOverride>();
  return std::optional<RoleOverride>(out);
}

Task<Status> save_role_override(Runtime& rt, std::string config_dir, RoleOverride o) {
  ConfigFile file(rt, role_override_path(config_dir));
  const std::string text = fmt::format(R"({{"brokerRole":"{}","brokerId":{},"promotedAtMs":{}}})", role_name(o.role),
                                       o.broker_id, o.promoted_at_ms);
  co_return co_await file.write(text);
}

}  // namespace ferry::broker
