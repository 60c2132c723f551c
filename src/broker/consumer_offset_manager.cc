#include "broker/consumer_offset_manager.h"

#include <fmt/format.h>

#include <charconv>

#include "remoting/body/body_json.h"
#include "remoting/json/json_reader.h"
#include "remoting/json/json_text.h"
#include "remoting/json/json_writer.h"

namespace ferry::broker {

namespace json = remoting::json;

ConsumerOffsetManager::ConsumerOffsetManager(Runtime& rt, const BrokerConfig& config)
    : rt_(rt), config_(config),
      file_(rt, fmt::format("{}/{}", config.config_dir, kConsumerOffsetFileName)) {}

std::string ConsumerOffsetManager::key(std::string_view topic, std::string_view group) {
  return fmt::format("{}@{}", topic, group);
}

Status ConsumerOffsetManager::load() {
  OffsetTable loaded;
  auto r = file_.load([&](std::string_view text) -> Status {
    OffsetTable t;
    FERRY_TRY(decode(text, t));
    loaded = std::move(t);
    return Status();
  });
  if (!r) return std::move(r).error();
  if (r->has_value()) {
    table_ = std::move(loaded);
    rt_.log().info("offsets: loaded {} topic@group entries from {}{}", table_.size(), file_.path(),
                   (*r)->from_backup ? " (backup)" : "");
  }
  return Status();
}

void ConsumerOffsetManager::commit(std::string_view group, std::string_view topic, QueueId queue,
                                   QueueOffset offset) {
  table_[key(topic, group)][queue.value()] = offset.value();
  ++changes_;
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
    ++changes_;
  }
}

Task<Status> ConsumerOffsetManager::persist() {
  const std::uint64_t at = changes_;
  Task<Status> w = file_.write(encode(table_));
  Status s = co_await std::move(w);
  if (s && at > persisted_) persisted_ = at;
  co_return s;
}

Task<void> ConsumerOffsetManager::run_persist_loop() {
  for (;;) {
    co_await rt_.sleep(config_.flush_consumer_offset_interval);
    if (changes_ == persisted_) continue;
    Status s = co_await persist();
    if (!s) rt_.log().error("offsets: persisting {} failed: {}", file_.path(), s.error().to_string());
  }
}

std::string ConsumerOffsetManager::encode(const OffsetTable& table) {
  std::vector<std::uint8_t> bytes = remoting::body::write_body([&](json::Writer& w) {
    w.StartObject();
    json::write_key(w, "offsetTable");
    w.StartObject();
    for (const auto& [k, queues] : table) {
      json::write_key(w, k);
      w.StartObject();
      for (const auto& [queue, offset] : queues) {
        json::write_key(w, std::to_string(queue));
        w.Int64(offset);
      }
      w.EndObject();
    }
    w.EndObject();
    w.EndObject();
  });
  return std::string(bytes.begin(), bytes.end());
}

Status ConsumerOffsetManager::decode(std::string_view text, OffsetTable& table) {
  auto doc = json::parse(text, json::Numbers::typed, kConsumerOffsetFileName);
  if (!doc) return std::move(doc).error();
  json::JsonErrors errors;
  json::ObjectReader r(*doc, std::string(kConsumerOffsetFileName), errors);
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
      auto& queues = table[k];
      for (auto q = it->value.MemberBegin(); q != it->value.MemberEnd(); ++q) {
        const std::string_view qtext(q->name.GetString(), q->name.GetStringLength());
        std::int32_t queue = 0;
        auto [end, ec] = std::from_chars(qtext.data(), qtext.data() + qtext.size(), queue);
        const auto offset = json::as_int64(q->value);
        if (ec != std::errc() || end != qtext.data() + qtext.size() || queue < 0) {
          errors.fail(fmt::format("{}: queue id \"{}\" is not a non-negative int32", entry_path, qtext));
          break;
        }
        if (!offset.has_value() || *offset < 0) {
          errors.fail(fmt::format("{}[\"{}\"]: not a non-negative offset", entry_path, qtext));
          break;
        }
        queues[queue] = *offset;
      }
    }
  }
  if (errors.failed()) return errors.take();
  return Status();
}

}  // namespace ferry::broker
