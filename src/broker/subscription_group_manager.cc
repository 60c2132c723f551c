#include "broker/subscription_group_manager.h"

#include <fmt/format.h>

#include "common/names.h"
#include "remoting/body/body_json.h"
#include "remoting/json/json_reader.h"
#include "remoting/json/json_text.h"

namespace ferry::broker {

namespace json = remoting::json;
using remoting::body::DataVersion;

SubscriptionGroupManager::SubscriptionGroupManager(Runtime& rt, const BrokerConfig& config)
    : rt_(rt), config_(config), file_(rt, fmt::format("{}/{}", config.config_dir, kSubscriptionGroupFileName)) {
  data_version_.timestamp = rt_.wall_ms();
}

Status SubscriptionGroupManager::load() {
  SubscriptionGroupTable loaded;
  DataVersion version;
  auto r = file_.load([&](std::string_view text) -> Status {
    SubscriptionGroupTable t;
    DataVersion v;
    FERRY_TRY(decode(text, t, v));
    loaded = std::move(t);
    version = v;
    return Status();
  });
  if (!r) return std::move(r).error();
  if (r->has_value()) {
    table_ = std::move(loaded);
    data_version_ = version;
    rt_.log().info("subscription groups: loaded {} from {}{}", table_.size(), file_.path(),
                   (*r)->from_backup ? " (backup)" : "");
  }
  return Status();
}

const SubscriptionGroupConfig* SubscriptionGroupManager::find(std::string_view group) const {
  auto it = table_.find(group);
  return it == table_.end() ? nullptr : &it->second;
}

const SubscriptionGroupConfig* SubscriptionGroupManager::find_or_create(std::string_view group) {
  if (const SubscriptionGroupConfig* c = find(group)) return c;
  if (!config_.auto_create_subscription_group) return nullptr;
  if (!validate_group(group).ok()) return nullptr;
  if (table_.size() >= config_.subscription_groups_max) {
    rt_.log().warn("subscription groups: not creating {}: {} groups is the cap", group, table_.size());
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
  table_.insert_or_assign(std::move(name), std::move(config));
  changed();
}

bool SubscriptionGroupManager::remove(std::string_view group) {
  auto it = table_.find(group);
  if (it == table_.end()) return false;
  table_.erase(it);
  changed();
  return true;
}

void SubscriptionGroupManager::changed() {
  ++data_version_.counter;
  data_version_.timestamp = rt_.wall_ms();
  rt_.spawn(persist_in_background(this), "persist-subscription-groups");
}

Task<void> SubscriptionGroupManager::persist_in_background(SubscriptionGroupManager* self) {
  Task<Status> persist = self->persist();
  Status s = co_await std::move(persist);
  if (!s) self->rt_.log().error("subscription groups: persisting {} failed: {}", self->file_.path(), s.error().to_string());
}

Task<Status> SubscriptionGroupManager::persist() {
  Task<Status> w = file_.write(encode(table_, data_version_));
  co_return co_await std::move(w);
}

std::string SubscriptionGroupManager::encode(const SubscriptionGroupTable& table, const DataVersion& version) {
  std::vector<std::uint8_t> bytes = remoting::body::write_body([&](json::Writer& w) {
    w.StartObject();
    json::write_key(w, "dataVersion");
    w.StartObject();
    w.Key("counter");
    w.Int64(version.counter);
    w.Key("timestamp");
    w.Int64(version.timestamp);
    w.EndObject();
    json::write_key(w, "subscriptionGroupTable");
    w.StartObject();
    for (const auto& [name, c] : table) {
      json::write_key(w, name);
      c.write(w);
    }
    w.EndObject();
    w.EndObject();
  });
  return std::string(bytes.begin(), bytes.end());
}

Status SubscriptionGroupManager::decode(std::string_view text, SubscriptionGroupTable& table, DataVersion& version) {
  auto doc = json::parse(text, json::Numbers::typed, kSubscriptionGroupFileName);
  if (!doc) return std::move(doc).error();
  json::JsonErrors errors;
  json::ObjectReader r(*doc, std::string(kSubscriptionGroupFileName), errors);
  if (const rapidjson::Value* dv = r.optional_object("dataVersion")) {
    json::ObjectReader d(*dv, r.path_of("dataVersion"), errors);
    version.counter = d.int64_or("counter", 0);
    version.timestamp = d.int64_or("timestamp", 0);
  }
  if (const rapidjson::Value* t = r.object("subscriptionGroupTable")) {
    const std::string path = r.path_of("subscriptionGroupTable");
    for (auto it = t->MemberBegin(); it != t->MemberEnd() && !errors.failed(); ++it) {
      std::string name(it->name.GetString(), it->name.GetStringLength());
      SubscriptionGroupConfig c = SubscriptionGroupConfig::read(it->value, fmt::format("{}[\"{}\"]", path, name), errors);
      if (!errors.failed() && c.group_name != name) {
        errors.fail(fmt::format("{}[\"{}\"].groupName is \"{}\"", path, name, c.group_name));
      }
      table.insert_or_assign(std::move(name), std::move(c));
    }
  }
  if (errors.failed()) return errors.take();
  return Status();
}

}  // namespace ferry::broker
