#include "broker/consumer_offset_manager.h"

#include <fmt/format.h>

#include <climits>

#include "remoting/body/body_json.h"
#include "remoting/json/json_reader.h"
#include "remoting/json/json_text.h"
#include "remoting/json/json_writer.h"

namespace ferry::broker {

namespace json = remoting::json;

ConsumerOffsetManager::ConsumerOffsetManager(Runtime& rt, const BrokerConfig& config)
    : rt_(rt),
      config_(config),
      file_(rt, fmt::format("{}/{}", config.config_dir, kConsumerOffsetFileName), "offsets", table_,
            {.encode = &ConsumerOffsetManager::encode, .decode = &ConsumerOffsetManager::decode}) {}

std::string ConsumerOffsetManager::key(std::string_view topic, std::string_view group) {
  return fmt::format("{}@{}", topic, group);
}

Status ConsumerOffsetManager::load() {
  auto r = file_.load();
  if (!r) return std::move(r).error();
  if (r->has_value()) {
    table_ = std::move((*r)->state);
    rt_.log().info("offsets: loaded {} topic@group entries from {}{}", table_.size(), file_.path(),
                   (*r)->from_backup ? " (backup)" : "");
  }
  return Status();
}

Status ConsumerOffsetManager::commit(std::string_view group, std::string_view topic, QueueId queue,
                                     QueueOffset offset) {
  const std::string k = key(topic, group);
  auto it = table_.find(k);
  if (it == table_.end()) {
    if (table_.size() >= kTopicGroupPairsMax) {
      return Error(Errc::busy, fmt::format("consumer offset table full: {} topic@group pairs; {} not added",
                                           table_.size(), k));
    }
    it = table_.emplace(k, OffsetMap{}).first;
  }
  it->second[queue.value()] = offset.value();
  file_.changed();
  return {};
}

Status ConsumerOffsetManager::commit_forward(std::string_view group, std::string_view topic, QueueId queue,
                                             QueueOffset offset) {
  const std::optional<QueueOffset> now = query(group, topic, queue);
  if (now && *now >= offset) return {};
  return commit(group, topic, queue, offset);
}

std::optional<QueueOffset> ConsumerOffsetManager::query(std::string_view group, std::string_view topic,
                                                        QueueId queue) const {
  auto it = table_.find(key(topic, group));
  if (it == table_.end()) return std::nullopt;
  auto q = it->second.find(queue.value());
  if (q == it->second.end()) return std::nullopt;
  return QueueOffset(q->second);
}

void ConsumerOffsetManager::remove_topic(std::string_view topic) {
  const std::string prefix = fmt::format("{}@", topic);
  for (auto it = table_.lower_bound(prefix); it != table_.end() && it->first.starts_with(prefix);) {
    it = table_.erase(it);
    file_.changed();
  }
}

void ConsumerOffsetManager::remove_group(std::string_view group) {
  const std::string suffix = fmt::format("@{}", group);
  for (auto it = table_.begin(); it != table_.end();) {
    // A topic holds no '@' (names.h), so the suffix after the key's only '@' is the group.
    if (it->first.size() > suffix.size() && it->first.ends_with(suffix) &&
        it->first.find('@') == it->first.size() - suffix.size()) {
      it = table_.erase(it);
      file_.changed();
    } else {
      ++it;
    }
  }
}

Result<std::size_t> ConsumerOffsetManager::put_all(const OffsetTable& from) {
  std::size_t added = 0;
  for (const auto& [k, queues] : from) {
    if (!table_.contains(k)) ++added;
  }
  if (table_.size() + added > kTopicGroupPairsMax) {
    return Error(Errc::busy, fmt::format("consumer offset table full: {} topic@group pairs and {} new ones pass {}",
                                         table_.size(), added, kTopicGroupPairsMax));
  }
  std::size_t changed = 0;
  for (const auto& [k, queues] : from) {
    OffsetMap& mine = table_[k];
    if (mine == queues) continue;
    mine = queues;
    ++changed;
  }
  if (changed > 0) file_.changed();
  return changed;
}

Task<Status> ConsumerOffsetManager::persist() { return file_.persist(); }

Task<void> ConsumerOffsetManager::run_persist_loop() {
  for (;;) {
    co_await rt_.sleep(config_.flush_consumer_offset_interval);
    // buggify: the offsets persist late, by up to one more interval (after a crash consumers
    // resume from older offsets and see messages again: at-least-once).
    if (FERRY_BUGGIFY(rt_)) {
      co_await rt_.sleep(std::chrono::milliseconds(rt_.random().between(1, to_ms(config_.flush_consumer_offset_interval))));
    }
    if (!file_.dirty()) continue;
    Status s = co_await persist();
    if (!s) {
      if (auto held = persist_error_log_.admit(rt_.now(), static_cast<std::int64_t>(s.error().code))) {
        rt_.log().error("offsets: persisting {} failed: {}{}", file_.path(), s.error().to_string(), held_back_note(*held));
      }
    }
  }
}

std::string ConsumerOffsetManager::encode(const OffsetTable& table) {
  std::vector<std::uint8_t> bytes = remoting::body::write_body([&](json::Writer& w) {
    w.StartObject();
    json::write_key(w, "offsetTable");
    w.StartObject();
    for (const auto& [k, queues] : table) {
      json::write_key(w, k);
      write_offset_map(w, queues);
    }
    w.EndObject();
    w.EndObject();
  });
  return std::string(bytes.begin(), bytes.end());
}

Status ConsumerOffsetManager::decode(std::string_view text, OffsetTable& table) {
  return decode_from(kConsumerOffsetFileName, text, table);
}

Status ConsumerOffsetManager::decode_from(std::string_view source, std::string_view text, OffsetTable& table) {
  constexpr OffsetMapKeys kQueueIds{"queue id", "a non-negative int32", 0, INT32_MAX};
  auto doc = json::parse(text, json::Numbers::typed, source);
  if (!doc) return std::move(doc).error();
  json::JsonErrors errors;
  json::ObjectReader r(*doc, std::string(source), errors);
  if (const rapidjson::Value* t = r.object("offsetTable")) {
    const std::string path = r.path_of("offsetTable");
    for (auto it = t->MemberBegin(); it != t->MemberEnd() && !errors.failed(); ++it) {
      std::string k(it->name.GetString(), it->name.GetStringLength());
      const std::string entry_path = fmt::format("{}[\"{}\"]", path, k);
      if (k.find('@') == std::string::npos) {
        errors.fail(fmt::format("{}: the key is not topic@group", entry_path));
        break;
      }
      if (!it->value.IsObject()) {
        errors.fail(fmt::format("{}: not a JSON object", entry_path));
        break;
      }
      read_offset_map(it->value, entry_path, kQueueIds, table[k], errors);
    }
  }
  if (errors.failed()) return errors.take();
  return Status();
}

}  // namespace ferry::broker
