// ConsumerOffsetManager: committed consumer offsets per group, topic and queue (RocketMQ's
// ConsumerOffsetManager), for clustering consumers.
//
// Persisted in `{config_dir}/consumerOffset.json` through a JsonStateFile (docs/broker.md, "Metadata files"):
//   {"offsetTable":{"topic@group":{"0":12,"1":7}}}
// by run_persist_loop() every flush_consumer_offset_interval (5 s) when something changed, and
// by persist() on a graceful stop. A crash loses at most the commits of the last interval, or
// of the last two when a write runs late (a slow disk; buggify delays one by up to an interval).
// Consumers then re-consume from the older offset: at-least-once.
//
// commit() takes any offset, also a smaller one (a consumer reset), as RocketMQ does.
// commit_forward() (the offset a pull carries) only moves an offset on: a pull sent before the
// consumer's later UPDATE_CONSUMER_OFFSET may be served after it (two-way requests keep no
// order), and its older offset must not undo that update (a graceful stop would re-deliver).
// Threading: the node's loop.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "broker/broker_config.h"
#include "broker/json_state_file.h"
#include "broker/metadata_json.h"
#include "common/offsets.h"
#include "runtime/log_limiter.h"

namespace ferry::broker {

inline constexpr std::string_view kConsumerOffsetFileName = "consumerOffset.json";

// "topic@group" -> queue id -> committed offset.
using OffsetTable = std::map<std::string, OffsetMap, std::less<>>;

class ConsumerOffsetManager {
 public:
  ConsumerOffsetManager(Runtime& rt, const BrokerConfig& config);

  // Loads consumerOffset.json (falling back to the backup). Errors: corrupt naming the files.
  Status load();

  // At most this many topic@group pairs are kept; a commit for a new pair beyond is refused.
  static constexpr std::size_t kTopicGroupPairsMax = 262'144;

  // Stores the offset (any value, also a smaller one). Errors (busy, nothing stored): the pair is
  // new and the table holds kTopicGroupPairsMax pairs.
  Status commit(std::string_view group, std::string_view topic, QueueId queue, QueueOffset offset);
  // As commit() when the group has no offset for the queue or a smaller one; else nothing (ok).
  Status commit_forward(std::string_view group, std::string_view topic, QueueId queue, QueueOffset offset);
  // The committed offset, or nullopt when the group never committed one for the queue.
  std::optional<QueueOffset> query(std::string_view group, std::string_view topic, QueueId queue) const;
  // Drops every group's offsets of `topic` (DELETE_TOPIC_IN_BROKER).
  void remove_topic(std::string_view topic);
  // Drops `group`'s offsets of every topic (DELETE_SUBSCRIPTIONGROUP with removeOffset).
  void remove_group(std::string_view group);
  // A slave takes its master's offsets (SlaveSync; RocketMQ's syncConsumerOffset, a putAll):
  // each topic@group of `from` replaces that pair's offsets here; pairs `from` lacks stay (a
  // group that committed only here while the master was away keeps its offsets). Returns how
  // many pairs changed (0: nothing to persist). Errors (busy, nothing changes): the new pairs
  // would take the table past kTopicGroupPairsMax.
  Result<std::size_t> put_all(const OffsetTable& from);

  const OffsetTable& table() const { return table_; }
  // Writes the file now (waits for a write in progress). Success = durable.
  Task<Status> persist();
  // Persists every interval while something changed since the last write. Runs until its
  // frame is destroyed (node stop or crash).
  Task<void> run_persist_loop();

  static std::string key(std::string_view topic, std::string_view group);
  static std::string encode(const OffsetTable& table);
  static Status decode(std::string_view text, OffsetTable& table);
  // decode() with `source` ("GET_ALL_CONSUMER_OFFSET body") as the root of error paths.
  static Status decode_from(std::string_view source, std::string_view text, OffsetTable& table);

 private:
  Runtime& rt_;
  const BrokerConfig& config_;
  OffsetTable table_;
  JsonStateFile<OffsetTable> file_;  // after table_: refers to it; counts commits as changes
  LogLimiter persist_error_log_;     // rounds that did not persist (a full disk fails each), by Errc
};

}  // namespace ferry::broker
