#include "broker/topic_config_manager.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/names.h"
#include "common/permission.h"

namespace ferry::broker {

namespace {
constexpr VersionedTableKeys kTopicsJson{kTopicsFileName, "topicConfigTable", "topicName"};
}  // namespace

TopicConfigManager::TopicConfigManager(Runtime& rt, const BrokerConfig& config)
    : rt_(rt),
      config_(config),
      file_(rt, fmt::format("{}/{}", config.config_dir, kTopicsFileName), "topics", state_,
            versioned_table_codec(kTopicsJson, &TopicConfig::topic_name)) {
  state_.version.timestamp = rt_.wall_ms();
}

Status TopicConfigManager::load() {
  auto r = file_.load();
  if (!r) return std::move(r).error();
  if (r->has_value()) {
    state_ = std::move((*r)->state);
    rt_.log().info("topics: loaded {} topics from {}{} (dataVersion {})", state_.table.size(), file_.path(),
                   (*r)->from_backup ? " (backup)" : "", state_.version.counter);
  }
  add_system_topics();
  return Status();
}

void TopicConfigManager::add_if_missing(std::string name, std::int32_t queues, std::int32_t perm) {
  if (!validate_topic(name).ok() || state_.table.contains(name)) return;
  TopicConfig c;
  c.topic_name = name;
  c.read_queue_nums = queues;
  c.write_queue_nums = queues;
  c.perm = perm;
  state_.table.emplace(std::move(name), std::move(c));
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
  add_if_missing(std::string(kScheduleTopic), static_cast<std::int32_t>(config_.message_delay_levels.size()), perm::kReadWrite);
  add_if_missing(reply_topic(config_.broker_cluster_name), 1, perm::kReadWrite);
}

const TopicConfig* TopicConfigManager::find(std::string_view topic) const {
  auto it = state_.table.find(topic);
  return it == state_.table.end() ? nullptr : &it->second;
}

remoting::body::TopicConfigSerializeWrapper TopicConfigManager::snapshot() const {
  remoting::body::TopicConfigSerializeWrapper w;
  for (const auto& [name, c] : state_.table) w.topic_config_table.emplace(name, c);
  w.data_version = state_.version;
  return w;
}

Status TopicConfigManager::put(TopicConfig config) {
  FERRY_ASSERT(!config.topic_name.empty(), "put of a topic without a name");
  if (state_.table.size() >= config_.topics_max && state_.table.find(config.topic_name) == state_.table.end()) {
    return Error(Errc::busy, fmt::format("the topic table is full: {} topics (topics_max); {} not created",
                                         state_.table.size(), config.topic_name));
  }
  std::string name = config.topic_name;
  state_.table.insert_or_assign(std::move(name), std::move(config));
  changed();
  return {};
}

bool TopicConfigManager::remove(std::string_view topic) {
  auto it = state_.table.find(topic);
  if (it == state_.table.end()) return false;
  state_.table.erase(it);
  changed();
  return true;
}

Status TopicConfigManager::replace_all(TopicTable table, DataVersion version) {
  if (table.size() > config_.topics_max) {
    return Error(Errc::busy, fmt::format("{} topics is more than topics_max ({}); the table is kept", table.size(),
                                         config_.topics_max));
  }
  state_.table = std::move(table);
  state_.version = version;
  file_.changed();
  file_.persist_soon();
  return {};
}

const TopicConfig* TopicConfigManager::create_in_send(std::string_view topic,
                                                      std::string_view default_topic,
                                                      std::int32_t client_queue_nums,
                                                      std::int32_t topic_sys_flag) {
  if (const TopicConfig* existing = find(topic)) return existing;
  const TopicConfig* def = find(default_topic);
  if (def == nullptr) {
    if (auto held = create_refusal_log_.admit(rt_.now(), 1)) {
      rt_.log().warn("topics: cannot create {}: default topic '{}' does not exist{}", topic, default_topic,
                     held_back_note(*held));
    }
    return nullptr;
  }
  std::int32_t def_perm = def->perm;
  if (default_topic == kAutoCreateTopicKey && !config_.auto_create_topic_enable) {
    def_perm = perm::kReadWrite;  // TBW102 passes nothing on when auto-creation is off
  }
  if (!perm::is_inherited(def_perm)) {
    if (auto held = create_refusal_log_.admit(rt_.now(), 2)) {
      rt_.log().warn("topics: cannot create {}: default topic {} has perm {}{}", topic, default_topic,
                     perm::to_string(def_perm), held_back_note(*held));
    }
    return nullptr;
  }
  const std::int32_t queues = std::min(client_queue_nums, def->write_queue_nums);
  if (queues <= 0) {
    if (auto held = create_refusal_log_.admit(rt_.now(), 3)) {
      rt_.log().warn("topics: cannot create {} with {} queues{}", topic, queues, held_back_note(*held));
    }
    return nullptr;
  }
  TopicConfig c;
  c.topic_name = std::string(topic);
  c.read_queue_nums = queues;
  c.write_queue_nums = queues;
  c.perm = def_perm & ~perm::kInherit;
  c.topic_filter_type = def->topic_filter_type;
  c.topic_sys_flag = topic_sys_flag;
  // Not limited: each line is a new topic, and the table's cap (topics_max) bounds them.
  rt_.log().info("topics: auto-created {} from {} ({} queues, perm {})", topic, default_topic, queues,
                 perm::to_string(c.perm));
  if (Status added = put(std::move(c)); !added) {
    if (auto held = create_refusal_log_.admit(rt_.now(), static_cast<std::int64_t>(added.error().code) + 100)) {
      rt_.log().warn("topics: cannot auto-create {}: {}{}", topic, added.error().detail, held_back_note(*held));
    }
    return nullptr;
  }
  return find(topic);
}

void TopicConfigManager::changed() {
  ++state_.version.counter;
  state_.version.timestamp = rt_.wall_ms();
  file_.changed();
  file_.persist_soon();
  if (on_change_) on_change_();
}

Task<Status> TopicConfigManager::persist() { return file_.persist(); }

std::string TopicConfigManager::encode(const TopicTable& table, const DataVersion& version) {
  return encode_versioned_table(table, version, kTopicsJson);
}

Status TopicConfigManager::decode(std::string_view text, TopicTable& table, DataVersion& version) {
  return decode_versioned_table(text, kTopicsJson, &TopicConfig::topic_name, table, version);
}

}  // namespace ferry::broker
