// LocalOffsetStore: broadcasting offsets, in a file of this client and group on the node's own
// disk (RocketMQ's LocalFileOffsetStore):
//
//   {dir}/{clientId}/{group}/offsets.json
//   {"offsetTable":[{"topic":"T","brokerName":"broker-a","queueId":0,"offset":12}, ...]}
//
// (RocketMQ writes fastjson with MessageQueue objects as map keys; Ferry writes an array, sorted
// by queue, and reads only its own format.)
//
// Writes are atomic: the whole table goes to "offsets.json.tmp", which is synced and then
// renamed over "offsets.json" (a crash leaves the old or the new file, never a torn one). One
// write at a time; a persist asked for during a write runs again right after it.
//
//   load()        — reads the file into memory (a missing file is an empty table).
//   query_store() — re-reads the file for one queue.
//   persist_all() — writes the in-memory offsets of `mqs` (RocketMQ: of the held queues) over
//                   the file's: a queue not held now keeps the offset the file has for it.
//   persist()     — writes every in-memory offset over the file's.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "client/offset_store.h"
#include "runtime/bytes.h"
#include "runtime/log_limiter.h"
#include "runtime/runtime.h"

namespace ferry::client {

class LocalOffsetStore final : public OffsetStore {
 public:
  LocalOffsetStore(Runtime& rt, std::string dir, std::string client_id, std::string group);

  Status load() override;
  Task<Result<std::optional<QueueOffset>>> query_store(MessageQueue mq) override;
  Task<void> persist_all(std::vector<MessageQueue> mqs) override;
  // The file write is confirmed already: persist_all().
  Task<void> persist_final(std::vector<MessageQueue> mqs) override { co_await persist_all(std::move(mqs)); }
  Task<void> persist(MessageQueue mq) override;

  const std::string& path() const { return path_; }
  std::uint64_t writes() const { return writes_; }

 private:
  Result<std::map<MessageQueue, QueueOffset>> read_file() const;
  // The file's offsets with `newer`'s on top (only `newer` when the file does not read).
  std::map<MessageQueue, QueueOffset> over_file(std::map<MessageQueue, QueueOffset> newer);
  Task<Status> write(std::map<MessageQueue, QueueOffset> offsets);
  void log_write_failure(const Error& why);

  Runtime& rt_;
  const std::string dir_;
  const std::string path_;
  bool writing_ = false;
  std::optional<std::map<MessageQueue, QueueOffset>> next_write_;  // asked for during a write
  std::uint64_t writes_ = 0;
  // Each persist round repeats these while the disk fails: limited, by Errc.
  LogLimiter read_error_log_;
  LogLimiter write_error_log_;
};

// The file format above. decode errors: corrupt (not JSON), invalid_argument (naming the field).
std::vector<std::uint8_t> encode_offset_file(const std::map<MessageQueue, QueueOffset>& offsets);
Result<std::map<MessageQueue, QueueOffset>> decode_offset_file(Bytes text);

}  // namespace ferry::client
