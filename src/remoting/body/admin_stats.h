// The per-queue statistics bodies of RocketMQ's admin requests (fields in fastjson's
// alphabetical order, as RocketMQ 4.9 writes them):
//   GET_TOPIC_STATS_INFO (202) → TopicStatsTable
//     {"offsetTable":{{"brokerName":"b","queueId":0,"topic":"T"}:
//                     {"lastUpdateTimestamp":ms,"maxOffset":N,"minOffset":N}}}
//   GET_CONSUME_STATS (208) → ConsumeStats
//     {"consumeTps":0.0,"offsetTable":{{MQ}:{"brokerOffset":N,"consumerOffset":N,"lastTimestamp":ms}}}
// The MessageQueue keys are objects (remoting/body/queue_table.h). lastUpdateTimestamp is the
// store time of the queue's last message (0 for an empty queue); lastTimestamp the store time of
// the last consumed message (0 when nothing was consumed).
#pragma once

#include <cstdint>
#include <vector>

#include "remoting/body/queue_table.h"
#include "runtime/bytes.h"
#include "runtime/result.h"

namespace ferry::remoting::body {

struct TopicOffset {
  std::int64_t min_offset = 0;
  std::int64_t max_offset = 0;
  std::int64_t last_update_timestamp = 0;

  static TopicOffset read(const rapidjson::Value& v, std::string path, json::JsonErrors& e);
  void write(json::Writer& w) const;
  bool operator==(const TopicOffset&) const = default;
};

struct TopicStatsTable {
  QueueTable<TopicOffset> offset_table;

  // Errors (corrupt / invalid_argument) name the field's path.
  static Result<TopicStatsTable> decode(Bytes body);
  std::vector<std::uint8_t> encode() const;
  bool operator==(const TopicStatsTable&) const = default;
};

struct OffsetWrapper {
  std::int64_t broker_offset = 0;
  std::int64_t consumer_offset = 0;
  std::int64_t last_timestamp = 0;

  static OffsetWrapper read(const rapidjson::Value& v, std::string path, json::JsonErrors& e);
  void write(json::Writer& w) const;
  bool operator==(const OffsetWrapper&) const = default;
};

struct ConsumeStats {
  QueueTable<OffsetWrapper> offset_table;
  double consume_tps = 0;

  // Errors (corrupt / invalid_argument) name the field's path.
  static Result<ConsumeStats> decode(Bytes body);
  std::vector<std::uint8_t> encode() const;
  // One ConsumeStats inside another body (ConsumeStatsList of 317).
  static ConsumeStats read(const rapidjson::Value& v, std::string path, json::JsonErrors& e);
  void write(json::Writer& w) const;
  // Σ (brokerOffset − consumerOffset), as RocketMQ's computeTotalDiff.
  std::int64_t total_diff() const;
  bool operator==(const ConsumeStats&) const = default;
};

}  // namespace ferry::remoting::body
