// GET_CONSUMER_RUNNING_INFO (307) reply body: a consumer's running state as RocketMQ 4.9's
// ConsumerRunningInfo lays it out (fastjson, alphabetical keys; mqTable keyed by MessageQueue in
// fastjson's form, body/queue_table.h):
//   {"jstack":null,
//    "mqTable":{{"brokerName":"b","queueId":0,"topic":"T"}:{"cachedMsgCount":0,..,"commitOffset":12,..}},
//    "properties":{"PROP_CONSUME_TYPE":"CONSUME_PASSIVELY","messageModel":"CLUSTERING",..},
//    "statusTable":{"T":{"consumeFailedMsgs":0,"consumeFailedTPS":0.0,"consumeOKTPS":1.5,..}},
//    "subscriptionSet":[{"topic":"T","subString":"*",..}]}
// Properties are strings (Java's Properties); the PROP_* keys are below.
// And CONSUME_MESSAGE_DIRECTLY (309) reply body, ConsumeMessageDirectlyResult:
//   {"autoCommit":true,"consumeResult":"CR_SUCCESS","order":false,"remark":"..","spentTimeMills":3}
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "remoting/body/heartbeat_data.h"
#include "remoting/body/offset_tables.h"
#include "runtime/bytes.h"
#include "runtime/result.h"

namespace ferry::remoting::body {

// ConsumerRunningInfo's property keys (RocketMQ's constants).
inline constexpr std::string_view kPropNamesrvAddr = "PROP_NAMESERVER_ADDR";
inline constexpr std::string_view kPropThreadpoolCoreSize = "PROP_THREADPOOL_CORE_SIZE";
inline constexpr std::string_view kPropConsumeOrderly = "PROP_CONSUMEORDERLY";
inline constexpr std::string_view kPropConsumeType = "PROP_CONSUME_TYPE";
inline constexpr std::string_view kPropClientVersion = "PROP_CLIENT_VERSION";
inline constexpr std::string_view kPropConsumerStartTimestamp = "PROP_CONSUMER_START_TIMESTAMP";

// One held queue (RocketMQ's ProcessQueueInfo). Timestamps are wall ms; sizes as named.
struct ProcessQueueInfo {
  std::int64_t commit_offset = 0;
  std::int64_t cached_msg_min_offset = 0;
  std::int64_t cached_msg_max_offset = 0;
  std::int32_t cached_msg_count = 0;
  std::int32_t cached_msg_size_in_mib = 0;
  std::int64_t transaction_msg_min_offset = 0;
  std::int64_t transaction_msg_max_offset = 0;
  std::int32_t transaction_msg_count = 0;
  bool locked = false;
  std::int64_t try_unlock_times = 0;
  std::int64_t last_lock_timestamp = 0;
  bool droped = false;  // RocketMQ's spelling
  std::int64_t last_pull_timestamp = 0;
  std::int64_t last_consume_timestamp = 0;

  static ProcessQueueInfo read(const rapidjson::Value& v, const std::string& path, json::JsonErrors& e);
  void write(json::Writer& w) const;
  bool operator==(const ProcessQueueInfo&) const = default;
};

// One subscribed topic's rates over the last minute (RocketMQ's ConsumeStatus): RT in ms,
// TPS per second.
struct ConsumeStatus {
  double pull_rt = 0;
  double pull_tps = 0;
  double consume_rt = 0;
  double consume_ok_tps = 0;
  double consume_failed_tps = 0;
  std::int64_t consume_failed_msgs = 0;  // in the last hour (RocketMQ); Ferry: the last minute

  static ConsumeStatus read(const rapidjson::Value& v, const std::string& path, json::JsonErrors& e);
  void write(json::Writer& w) const;
  bool operator==(const ConsumeStatus&) const = default;
};

struct ConsumerRunningInfo {
  std::map<std::string, std::string> properties;
  std::vector<SubscriptionData> subscription_set;  // sorted by topic
  std::map<MessageQueue, ProcessQueueInfo> mq_table;
  std::map<std::string, ConsumeStatus> status_table;  // by topic
  std::optional<std::string> jstack;

  // Errors: Errc::corrupt for malformed JSON, Errc::invalid_argument naming the field's path.
  static Result<ConsumerRunningInfo> decode(Bytes body);
  std::vector<std::uint8_t> encode() const;
  bool operator==(const ConsumerRunningInfo&) const = default;
};

// RocketMQ's CMResult.
enum class CMResult : std::uint8_t { CR_SUCCESS, CR_LATER, CR_ROLLBACK, CR_COMMIT, CR_THROW_EXCEPTION, CR_RETURN_NULL };
std::string_view name(CMResult r);
std::optional<CMResult> parse_cm_result(std::string_view text);

struct ConsumeMessageDirectlyResult {
  bool order = false;
  bool auto_commit = true;
  std::optional<CMResult> consume_result;
  std::optional<std::string> remark;
  std::int64_t spent_time_mills = 0;

  static Result<ConsumeMessageDirectlyResult> decode(Bytes body);
  std::vector<std::uint8_t> encode() const;
  bool operator==(const ConsumeMessageDirectlyResult&) const = default;
};

}  // namespace ferry::remoting::body
