#include "broker/topic_config_manager.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/names.h"
#include "common/permission.h"
#include "remoting/body/body_json.h"
#include "remoting/json/json_reader.h"
#include "remoting/json/json_text.h"
#include "remoting/json/json_writer.h"

namespace ferry::broker {

namespace json = remoting::json;

TopicConfigManager::TopicConfigManager(Runtime& rt, const BrokerConfig& config)
    : rt_(rt), config_(config), file_(rt, fmt::format("{}/{}", config.config_dir, kTopicsFileName)) {
  data_version_.timestamp = rt_.wall_ms();
}

Status TopicConfigManager::load() {
  TopicTable loaded;
  DataVersion version;
  auto r = file_.load([&](std::string_view text) -> Status {
    TopicTable t;
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
    rt_.log().info("topics: loaded {} topics from {}{} (dataVersion {})", table_.size(), file_.path(),
                   (*r)->from_backup ? " (backup)" : "", data_version_.counter);
  }
  add_system_topics();
  return Status();
}

void TopicConfigManager::add_if_missing(std::string name, std::int32_t queues, std::int32_t perm) {
  if (!validate_topic(name).ok() || table_.contains(name)) return;
  TopicConfig c;
  c.topic_name = name;
  c.read_queue_nums = queues;
  c.write_queue_nums = queues;
  c.perm = perm;
  table_.emplace(std::move(name), std::move(c));
}

void TopicConfigManager::add_system_topics() {
  add_if_missing(std::string(kSelfTestTopic), 1, perm::kReadWrite);
  if (config_.auto_create_topic_enable) {
    add_if_missing(std::string(kAutoCreateTopicKey), config_.default_topic_queue_nums,
                   perm::kInherit | perm::kReadWrite);
  }
  if (config_.cluster_topic_enable) add_if_missing(config_.broker_cluster_name, 1, perm::kReadWrite);
  if (config_.broker_topic_enable) add_if_missing(config_.broker_name, 1, perm::kReadWrite);
  add_if_missing(std::string(kOffsetMovedEventTopic), 1, perm::kReadWrite);
  add_if_missing(std::string(kScheduleTopic), 18, perm::kReadWrite);
  add_if_missing(config_.broker_cluster_name + "_REPLY_TOPIC", 1, perm::kReadWrite);
}

const TopicConfig* TopicConfigManager::find(std::string_view topic) const {
  auto it = table_.find(topic);
  return it == table_.end() ? nullptr : &it->second;
}

remoting::body::TopicConfigSerializeWrapper TopicConfigManager::snapshot() const {
  remoting::body::TopicConfigSerializeWrapper w;
  for (const auto& [name, c] : table_) w.topic_config_table.emplace(name, c);
  w.data_version = data_version_;
  return w;
}

void TopicConfigManager::put(TopicConfig config) {
  FERRY_ASSERT(!config.topic_name.empty(), "put of a topic without a name");
  std::string name = config.topic_name;
  table_.insert_or_assign(std::move(name), std::move(config));
  changed();
}

bool TopicConfigManager::remove(std::string_view topic) {
  auto it = table_.find(topic);
  if (it == table_.end()) return false;
  table_.erase(it);
  changed();
  return true;
}

const TopicConfig* TopicConfigManager::create_in_send(std::string_view topic,
                                                      std::string_view default_topic,
                                                      std::int32_t client_queue_nums,
                                                      std::int32_t topic_sys_flag) {
  if (const TopicConfig* existing = find(topic)) return existing;
  const TopicConfig* def = find(default_topic);
  if (def == nullptr) {
    rt_.log().warn("topics: cannot create {}: default topic '{}' does not exist", topic, default_topic);
    return nullptr;
  }
  std::int32_t def_perm = def->perm;
  if (default_topic == kAutoCreateTopicKey && !config_.auto_create_topic_enable) {
    def_perm = perm::kReadWrite;  // TBW102 passes nothing on when auto-creation is off
  }
  if (!perm::is_inherited(def_perm)) {
    rt_.log().warn("topics: cannot create {}: default topic {} has perm {}", topic, default_topic,
                   perm::to_string(def_perm));
    return nullptr;
  }
  const std::int32_t queues = std::min(client_queue_nums, def->write_queue_nums);
  if (queues <= 0) {
    rt_.log().warn("topics: cannot create {} with {} queues", topic, queues);
    return nullptr;
  }
  TopicConfig c;
  c.topic_name = std::string(topic);
  c.read_queue_nums = queues;
  c.write_queue_nums = queues;
  c.perm = def_perm & ~perm::kInherit;
  c.topic_filter_type = def->topic_filter_type;
  c.topic_sys_flag = topic_sys_flag;
  rt_.log().info("topics: auto-created {} from {} ({} queues, perm {})", topic, default_topic, queues,
                 perm::to_string(c.perm));
  put(std::move(c));
  return find(topic);
}

void TopicConfigManager::changed() {
  ++data_version_.counter;
  data_version_.timestamp = rt_.wall_ms();
  rt_.spawn(persist_in_background(this), "persist-topics");
  if (on_change_) on_change_();
}

Task<void> TopicConfigManager::persist_in_background(TopicConfigManager* self) {
  Status s = co_await self->persist();
  if (!s) self->rt_.log().error("topics: persisting {} failed: {}", self->file_.path(), s.error().to_string());
}

Task<Status> TopicConfigManager::persist() {
  // Encoded at the time of the call: a later change starts its own persist.
  Task<Status> w = file_.write(encode(table_, data_version_));
  co_return co_await std::move(w);
}

std::string TopicConfigManager::encode(const TopicTable& table, const DataVersion& version) {
  std::vector<std::uint8_t> bytes = remoting::body::write_body([&](json::Writer& w) {
    w.StartObject();
    json::write_key(w, "dataVersion");
    w.StartObject();
    w.Key("counter");
    w.Int64(version.counter);
    w.Key("timestamp");
    w.Int64(version.timestamp);
    w.EndObject();
    json::write_key(w, "topicConfigTable");
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

Status TopicConfigManager::decode(std::string_view text, TopicTable& table, DataVersion& version) {
  auto doc = json::parse(text, json::Numbers::typed, kTopicsFileName);
  if (!doc) return std::move(doc).error();
  json::JsonErrors errors;
  json::ObjectReader r(*doc, std::string(kTopicsFileName), errors);
  if (const rapidjson::Value* dv = r.optional_object("dataVersion")) {
    json::ObjectReader d(*dv, r.path_of("dataVersion"), errors);
    version.counter = d.int64_or("counter", 0);
    version.timestamp = d.int64_or("timestamp", 0);
  }
  if (const rapidjson::Value* t = r.object("topicConfigTable")) {
    const std::string path = r.path_of("topicConfigTable");
    for (auto it = t->MemberBegin(); it != t->MemberEnd() && !errors.failed(); ++it) {
      std::string name(it->name.GetString(), it->name.GetStringLength());
      TopicConfig c = TopicConfig::read(it->value, fmt::format("{}[\"{}\"]", path, name), errors);
      if (!errors.failed() && c.topic_name != name) {
        errors.fail(fmt::format("{}[\"{}\"].topicName is \"{}\"", path, name, c.topic_name));
      }
      table.insert_or_assign(std::move(name), std::move(c));
    }
  }
  if (errors.failed()) return errors.take();
  return Status();
}

}  // namespace ferry::broker
