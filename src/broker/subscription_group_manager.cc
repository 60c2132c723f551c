#include "broker/subscription_group_manager.h"

#include <fmt/format.h>

#include "common/names.h"

namespace ferry::broker {

using remoting::body::DataVersion;

namespace {
constexpr VersionedTableKeys kSubscriptionGroupsJson{kSubscriptionGroupFileName, "subscriptionGroupTable", "groupName"};
}  // namespace

SubscriptionGroupManager::SubscriptionGroupManager(Runtime& rt, const BrokerConfig& config)
    : rt_(rt),
      config_(config),
      file_(rt, fmt::format("{}/{}", config.config_dir, kSubscriptionGroupFileName), "subscription groups", state_,
            versioned_table_codec(kSubscriptionGroupsJson, &SubscriptionGroupConfig::group_name)) {
  state_.version.timestamp = rt_.wall_ms();
}

Status SubscriptionGroupManager::load() {
  auto r = file_.load();
  if (!r) return std::move(r).error();
  if (r->has_value()) {
    state_ = std::move((*r)->state);
    rt_.log().info("subscription groups: loaded {} from {}{}", state_.table.size(), file_.path(),
                   (*r)->from_backup ? " (backup)" : "");
  }
  return Status();
}

const SubscriptionGroupConfig* SubscriptionGroupManager::find(std::string_view group) const {
  auto it = state_.table.find(group);
  return it == state_.table.end() ? nullptr : &it->second;
}

const SubscriptionGroupConfig* SubscriptionGroupManager::find_or_create(std::string_view group) {
  if (const SubscriptionGroupConfig* c = find(group)) return c;
  if (!config_.auto_create_subscription_group) return nullptr;
  if (!validate_group(group).ok()) return nullptr;
  if (state_.table.size() >= config_.subscription_groups_max) {
    if (auto held = cap_log_.admit(rt_.now())) {
      rt_.log().warn("subscription groups: not creating {}: {} groups is the cap{}", group, state_.table.size(),
                     held_back_note(*held));
    }
    return nullptr;
  }
  SubscriptionGroupConfig c;
  c.group_name = std::string(group);
  rt_.log().info("subscription groups: auto-created {}", group);
  put(std::move(c));
  return find(group);
}

void SubscriptionGroupManager::put(SubscriptionGroupConfig config) {
  FERRY_ASSERT(!config.group_name.empty(), "put of a subscription group without a name");
  std::string name = config.group_name;
  state_.table.insert_or_assign(std::move(name), std::move(config));
  changed();
}

bool SubscriptionGroupManager::remove(std::string_view group) {
  auto it = state_.table.find(group);
  if (it == state_.table.end()) return false;
  state_.table.erase(it);
  changed();
  return true;
}

Status SubscriptionGroupManager::replace_all(SubscriptionGroupTable table, DataVersion version) {
  if (table.size() > config_.subscription_groups_max) {
    return Error(Errc::busy, fmt::format("{} subscription groups is more than subscription_groups_max ({}); the "
                                         "table is kept", table.size(), config_.subscription_groups_max));
  }
  state_.table = std::move(table);
  state_.version = version;
  file_.changed();
  file_.persist_soon();
  return {};
}

void SubscriptionGroupManager::changed() {
  ++state_.version.counter;
  state_.version.timestamp = rt_.wall_ms();
  file_.changed();
  file_.persist_soon();
}

Task<Status> SubscriptionGroupManager::persist() { return file_.persist(); }

std::string SubscriptionGroupManager::encode(const SubscriptionGroupTable& table, const DataVersion& version) {
  return encode_versioned_table(table, version, kSubscriptionGroupsJson);
}

Status SubscriptionGroupManager::decode(std::string_view text, SubscriptionGroupTable& table, DataVersion& version) {
  return decode_versioned_table(text, kSubscriptionGroupsJson, &SubscriptionGroupConfig::group_name, table, version);
}

}  // namespace ferry::broker
