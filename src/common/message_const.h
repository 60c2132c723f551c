// RocketMQ's message property key names (MessageConst in RocketMQ 4.9.x, plus the few later keys
// a 5.x client may send). Values are the exact bytes that travel in the properties string.
#pragma once

#include <string_view>

namespace ferry::prop {

inline constexpr std::string_view kKeys = "KEYS";    // space-separated business keys (indexed)
inline constexpr std::string_view kTags = "TAGS";    // one tag; the ConsumeQueue stores its hash
inline constexpr std::string_view kWait = "WAIT";    // "true"/"false": wait for flush/replication
inline constexpr std::string_view kDelay = "DELAY";  // delay level 1..18 (see delay_levels.h)
inline constexpr std::string_view kRetryTopic = "RETRY_TOPIC";
inline constexpr std::string_view kRealTopic = "REAL_TOPIC";
inline constexpr std::string_view kRealQueueId = "REAL_QID";
inline constexpr std::string_view kTransactionPrepared = "TRAN_MSG";
inline constexpr std::string_view kProducerGroup = "PGROUP";
inline constexpr std::string_view kMinOffset = "MIN_OFFSET";
inline constexpr std::string_view kMaxOffset = "MAX_OFFSET";
inline constexpr std::string_view kBuyerId = "BUYER_ID";
inline constexpr std::string_view kOriginMessageId = "ORIGIN_MESSAGE_ID";
inline constexpr std::string_view kTransferFlag = "TRANSFER_FLAG";
inline constexpr std::string_view kCorrectionFlag = "CORRECTION_FLAG";
inline constexpr std::string_view kMq2Flag = "MQ2_FLAG";
inline constexpr std::string_view kReconsumeTime = "RECONSUME_TIME";
inline constexpr std::string_view kMsgRegion = "MSG_REGION";
inline constexpr std::string_view kTraceSwitch = "TRACE_ON";
inline constexpr std::string_view kUniqKey = "UNIQ_KEY";  // client-side unique id (unique_id.h)
inline constexpr std::string_view kExtendUniqInfo = "EXTEND_UNIQ_INFO";
inline constexpr std::string_view kMaxReconsumeTimes = "MAX_RECONSUME_TIMES";
inline constexpr std::string_view kConsumeStartTimestamp = "CONSUME_START_TIME";
inline constexpr std::string_view kInnerNum = "INNER_NUM";
inline constexpr std::string_view kInnerBase = "INNER_BASE";
inline constexpr std::string_view kDupInfo = "DUP_INFO";
inline constexpr std::string_view kCheckImmunityTimeInSeconds = "CHECK_IMMUNITY_TIME_IN_SECONDS";
inline constexpr std::string_view kTransactionPreparedQueueOffset = "TRAN_PREPARED_QUEUE_OFFSET";
inline constexpr std::string_view kTransactionId = "__transactionId__";
inline constexpr std::string_view kTransactionCheckTimes = "TRANSACTION_CHECK_TIMES";
inline constexpr std::string_view kInstanceId = "INSTANCE_ID";
inline constexpr std::string_view kCorrelationId = "CORRELATION_ID";
inline constexpr std::string_view kMessageReplyToClient = "REPLY_TO_CLIENT";
inline constexpr std::string_view kMessageTtl = "TTL";
inline constexpr std::string_view kReplyMessageArriveTime = "ARRIVE_TIME";
inline constexpr std::string_view kPushReplyTime = "PUSH_REPLY_TIME";
inline constexpr std::string_view kCluster = "CLUSTER";  // the broker adds its cluster name
inline constexpr std::string_view kMessageType = "MSG_TYPE";  // "reply" on a reply message
inline constexpr std::string_view kShardingKey = "__SHARDINGKEY";
inline constexpr std::string_view kBornHost = "__BORNHOST";
inline constexpr std::string_view kBornTimestamp = "BORN_TIMESTAMP";
// Timer messages (RocketMQ 5). A sender sets one of the first three; the broker reads
// TIMER_DELAY_SEC, else TIMER_DELAY_MS, else TIMER_DELIVER_MS (absolute wall ms), and stores the
// due time, rounded down to its precision, as TIMER_OUT_MS. The delivered copy also carries
// TIMER_ENQUEUE_MS (when the timer was stored) and TIMER_DEQUEUE_MS (when it was delivered).
inline constexpr std::string_view kTimerDeliverMs = "TIMER_DELIVER_MS";
inline constexpr std::string_view kTimerDelaySec = "TIMER_DELAY_SEC";
inline constexpr std::string_view kTimerDelayMs = "TIMER_DELAY_MS";
inline constexpr std::string_view kTimerOutMs = "TIMER_OUT_MS";
inline constexpr std::string_view kTimerEnqueueMs = "TIMER_ENQUEUE_MS";
inline constexpr std::string_view kTimerDequeueMs = "TIMER_DEQUEUE_MS";
inline constexpr std::string_view kTimerRollTimes = "TIMER_ROLL_TIMES";
inline constexpr std::string_view kTimerDelUniqKey = "TIMER_DEL_UNIQKEY";
// Ferry's: on a delivered timer message, the CommitLog offset of the timer record it copies
// (recovery finds what was delivered by it, so that nothing is delivered twice).
inline constexpr std::string_view kTimerSource = "FERRY_TIMER_SOURCE";
// Properties whose key starts with this are never stored by a broker.
inline constexpr std::string_view kTransientPrefix = "__RMQ.TRANSIENT.";

// Separates the entries of KEYS.
inline constexpr char kKeySeparator = ' ';

}  // namespace ferry::prop
