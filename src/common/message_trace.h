// Message trace records (RocketMQ 4.9's TraceDataEncoder; docs/compatibility.md, "Message trace").
// A client with message trace on (enableMsgTrace) sends, for each message it sends or consumes,
// a trace record to RMQ_SYS_TRACE_TOPIC (or its own trace topic) keyed by the message's msgId and
// keys, so that `mqadmin queryMsgTraceById` finds them by index. A trace message's body holds one
// or more contexts, each ended by FIELD_SPLITOR (\x02), with fields separated by CONTENT_SPLITOR
// (\x01):
//   Pub             type, timestamp, regionId, group, topic, msgId, tags, keys, storeHost,
//                   bodyLength, costTime, msgType, offsetMsgId, success [, clientHost]
//   SubBefore       type, timestamp, regionId, group, requestId, msgId, retryTimes, keys
//   SubAfter        type, requestId, msgId, costTime, success, keys [, contextCode [, timestamp, group]]
//   EndTransaction  type, timestamp, regionId, group, topic, msgId, tags, keys, storeHost,
//                   msgType, transactionId, transactionState, fromTransactionCheck
// (Pub without offsetMsgId — 13 fields — is the oldest clients' form.) Another type is skipped, as
// RocketMQ's decoder skips it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/result.h"

namespace ferry {

inline constexpr char kTraceContentSplitor = '\x01';
inline constexpr char kTraceFieldSplitor = '\x02';

enum class TraceType : std::uint8_t { pub, sub_before, sub_after, end_transaction };
std::string_view trace_type_name(TraceType t);  // "Pub", "SubBefore", "SubAfter", "EndTransaction"

struct TraceBean {
  std::string topic;
  std::string msg_id;
  std::string tags;
  std::string keys;
  std::string store_host;
  std::int32_t body_length = 0;
  std::int32_t msg_type = 0;  // MessageType's ordinal: 0 normal, 1 half, 2 commit, 3 delay
  std::string offset_msg_id;
  std::string client_host;
  std::int32_t retry_times = 0;
  std::string transaction_id;
  std::string transaction_state;  // COMMIT_MESSAGE, ROLLBACK_MESSAGE, UNKNOW
  bool from_transaction_check = false;
  bool operator==(const TraceBean&) const = default;
};

struct TraceContext {
  TraceType type = TraceType::pub;
  std::int64_t timestamp_ms = 0;
  std::string region_id;
  std::string group;
  std::string request_id;
  std::int32_t cost_ms = 0;
  bool success = true;
  std::int32_t context_code = 0;
  TraceBean bean;  // RocketMQ's list holds one bean per decoded context
  bool operator==(const TraceContext&) const = default;
};

// Every context of a trace message's body. Errors (corrupt): a context of a known type with too
// few fields or a number that does not parse, naming the context's index and the field.
Result<std::vector<TraceContext>> decode_trace_data(std::string_view data);
// One context as RocketMQ's encoder writes it (Pub with offsetMsgId and success, SubAfter with
// contextCode, timestamp and group), ended by FIELD_SPLITOR.
std::string encode_trace_context(const TraceContext& ctx);

}  // namespace ferry
