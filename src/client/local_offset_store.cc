#include "client/local_offset_store.h"

#include <fmt/format.h>

#include "remoting/json/json_reader.h"
#include "remoting/json/json_text.h"
#include "remoting/json/json_writer.h"

namespace ferry::client {

namespace json = remoting::json;

std::vector<std::uint8_t> encode_offset_file(const std::map<MessageQueue, QueueOffset>& offsets) {
  std::vector<std::uint8_t> out;
  json::ByteStream stream(out);
  json::Writer w(stream);
  w.StartObject();
  json::write_key(w, "offsetTable");
  w.StartArray();
  for (const auto& [mq, offset] : offsets) {
    w.StartObject();
    json::write_key(w, "topic");
    json::write_string(w, mq.topic);
    json::write_key(w, "brokerName");
    json::write_string(w, mq.broker_name);
    json::write_key(w, "queueId");
    w.Int(mq.queue_id.value());
    json::write_key(w, "offset");
    w.Int64(offset.value());
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return out;
}

Result<std::map<MessageQueue, QueueOffset>> decode_offset_file(Bytes text) {
  std::string_view s = as_text(text);
  Result<rapidjson::Document> doc = json::parse(s, json::Numbers::typed, "offset file");
  if (!doc.ok()) return std::move(doc).error();
  json::JsonErrors errors;
  json::ObjectReader r(*doc, "OffsetFile", errors);
  std::map<MessageQueue, QueueOffset> out;
  const rapidjson::Value* table = r.array("offsetTable");
  if (table != nullptr) {
    for (rapidjson::SizeType i = 0; i < table->Size(); ++i) {
      json::ObjectReader e((*table)[i], fmt::format("OffsetFile.offsetTable[{}]", i), errors);
      MessageQueue mq{e.string("topic"), e.string("brokerName"), QueueId(e.int32("queueId"))};
      const std::int64_t offset = e.int64("offset");
      if (!errors.failed() && offset < 0) errors.fail(fmt::format("OffsetFile.offsetTable[{}].offset: negative ({})", i, offset));
      if (errors.failed()) break;
      out[mq] = QueueOffset(offset);
    }
  }
  if (errors.failed()) return errors.take();
  return out;
}

LocalOffsetStore::LocalOffsetStore(Runtime& rt, std::string dir, std::string client_id, std::string group)
    : rt_(rt),
      dir_(fmt::format("{}/{}/{}", dir, client_id, group)),
      path_(fmt::format("{}/offsets.json", dir_)) {}

Result<std::map<MessageQueue, QueueOffset>> LocalOffsetStore::read_file() const {
  if (!rt_.fs().exists(path_)) return std::map<MessageQueue, QueueOffset>();
  Result<std::unique_ptr<File>> f = rt_.fs().open(path_, OpenOptions{});
  if (!f.ok()) return Error(f.error().code, fmt::format("open {}: {}", path_, f.error().detail));
  std::vector<std::uint8_t> text((*f)->size());
  Result<std::size_t> n = (*f)->pread(0, MutableBytes(text.data(), text.size()));
  if (!n.ok()) return Error(n.error().code, fmt::format("read {}: {}", path_, n.error().detail));
  text.resize(*n);
  Result<std::map<MessageQueue, QueueOffset>> table = decode_offset_file(text);
  if (!table.ok()) return Error(Errc::corrupt, fmt::format("{}: {}", path_, table.error().detail));
  return table;
}

Status LocalOffsetStore::load() {
  Result<std::map<MessageQueue, QueueOffset>> table = read_file();
  if (!table.ok()) return std::move(table).error();
  for (const auto& [mq, offset] : *table) update(mq, offset, false);
  return {};
}

Task<Result<std::optional<QueueOffset>>> LocalOffsetStore::query_store(MessageQueue mq) {
  Result<std::map<MessageQueue, QueueOffset>> table = read_file();
  if (!table.ok()) co_return std::move(table).error();
  auto it = table->find(mq);
  if (it == table->end()) co_return std::optional<QueueOffset>();
  co_return std::optional<QueueOffset>(it->second);
}

std::map<MessageQueue, QueueOffset> LocalOffsetStore::over_file(std::map<MessageQueue, QueueOffset> newer) {
  Result<std::map<MessageQueue, QueueOffset>> file = read_file();
  if (!file.ok()) {
    if (auto held = read_error_log_.admit(rt_.now(), static_cast<std::int64_t>(file.error().code))) {
      rt_.log().warn("broadcasting offsets: {}; writing only the queues in memory{}", file.error().to_string(),
                     held_back_note(*held));
    }
    return newer;
  }
  for (auto& [mq, offset] : newer) (*file)[mq] = offset;
  return std::move(*file);
}

Task<void> LocalOffsetStore::persist_all(std::vector<MessageQueue> mqs) {
  std::map<MessageQueue, QueueOffset> held;
  for (const MessageQueue& mq : mqs) {
    if (auto o = read_memory(mq)) held[mq] = *o;
  }
  if (held.empty()) co_return;
  // The queues not held now keep their offsets in the file: a queue whose broker is away at a
  // restart (not in the route, so not held) resumes from its offset when the broker is back,
  // instead of from the queue's end (RocketMQ's persistAll reads the file and updates it too).
  Status s = co_await write(over_file(std::move(held)));
  if (!s.ok()) log_write_failure(s.error());
}

Task<void> LocalOffsetStore::persist(MessageQueue mq) {
  // The file holds every queue: write the whole in-memory table over it (RocketMQ's persist(mq)
  // is a no-op for local files; writing keeps a given-up queue's last offset).
  (void)mq;
  if (table_.empty()) co_return;
  Status s = co_await write(over_file(table_));
  if (!s.ok()) log_write_failure(s.error());
}

void LocalOffsetStore::log_write_failure(const Error& why) {
  if (auto held = write_error_log_.admit(rt_.now(), static_cast<std::int64_t>(why.code))) {
    rt_.log().warn("persist broadcasting offsets: {}{}", why.to_string(), held_back_note(*held));
  }
}

Task<Status> LocalOffsetStore::write(std::map<MessageQueue, QueueOffset> offsets) {
  if (writing_) {
    next_write_ = std::move(offsets);  // the running writer picks it up
    co_return Status{};
  }
  writing_ = true;
  Status last;
  std::optional<std::map<MessageQueue, QueueOffset>> pending(std::move(offsets));
  while (pending) {
    const std::vector<std::uint8_t> text = encode_offset_file(*pending);
    pending.reset();
    const std::string tmp = path_ + ".tmp";
    last = rt_.fs().create_dirs(dir_);
    if (last.ok()) {
      Result<std::unique_ptr<File>> f = rt_.fs().open(tmp, OpenOptions{.create = true, .truncate = true});
      if (!f.ok()) {
        last = Error(f.error().code, fmt::format("open {}: {}", tmp, f.error().detail));
      } else {
        std::unique_ptr<File> file = std::move(*f);
        last = file->pwrite(0, Bytes(text.data(), text.size()));
        if (last.ok()) last = co_await file->sync();
        if (last.ok()) last = rt_.fs().rename(tmp, path_);
        if (last.ok()) ++writes_;
      }
    }
    if (next_write_) {
      pending = std::move(next_write_);
      next_write_.reset();
    }
  }
  writing_ = false;
  co_return last;
}

}  // namespace ferry::client
