// POP receipt handles and the offset-info strings of a POP reply (RocketMQ 5's ExtraInfoUtil and
// KeyBuilder), spoken by the broker's POP service and the client's POP consumer.
//
// A receipt handle (RocketMQ's "extraInfo", the message property POP_CK) is eight fields
// separated by one space:
//
//   ckOffset popTime invisibleTime reviveQid retry brokerName queueId queueOffset
//   100      1700000000000 60000   3         0     broker-a   2       103
//
//   ckOffset       where the pop that handed the message out started in its queue (the
//                  checkpoint's start offset; <= queueOffset)
//   popTime        wall ms of that pop; invisibleTime: ms the message stays invisible after it
//   reviveQid      the revive queue holding the checkpoint; 999: a FIFO (orderly) pop, no checkpoint
//   retry          0: popped from the topic itself; 1: from the group's POP retry topic
//                  "%RETRY%{group}_{topic}"; 2: from "%RETRY%{group}+{topic}" (enableRetryTopicV2)
//   brokerName, queueId, queueOffset: where the message is (the retry topic's queue for 1 and 2)
// RocketMQ's gRPC proxy appends a ninth field (the CommitLog offset); parse() accepts and ignores
// anything past the eighth.
//
// A POP reply's header says where each queue's messages came from, one entry per queue looked
// at, entries joined by ';':
//   startOffsetInfo  "{retry} {queueId} {startOffset}"          e.g. "1 0 7;0 2 100"
//   msgOffsetInfo    "{retry} {queueId} {off1},{off2},..."      e.g. "0 2 100,103"
//   orderCountInfo   FIFO pops: per message delivered before, "{retry} qo{queueId}%{offset} {count}",
//                    then per queue "{retry} {queueId} {least count}"
// and the client builds each message's handle from them (OffsetInfo). Parsing is defensive: any
// malformed entry is an error naming it; nothing is guessed.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/result.h"

namespace ferry {

inline constexpr std::string_view kPropertyPopCk = "POP_CK";
inline constexpr std::string_view kPropertyFirstPopTime = "1ST_POP_TIME";
// The revive queue id of a FIFO pop's handles (RocketMQ's KeyBuilder.POP_ORDER_REVIVE_QUEUE).
inline constexpr std::int32_t kPopOrderReviveQueue = 999;
// At most this many messages per POP (one checkpoint's acknowledgement bits).
inline constexpr std::int32_t kPopBatchMax = 32;

enum class PopRetry : char { none = '0', v1 = '1', v2 = '2' };

// "%RETRY%{group}_{topic}" (v1, RocketMQ's default) or "%RETRY%{group}+{topic}" (v2).
std::string pop_retry_topic(std::string_view group, std::string_view topic, PopRetry kind);
// v2 when `topic` starts with %RETRY% and holds a '+', v1 when it starts with %RETRY%, else none.
PopRetry pop_retry_of(std::string_view topic);
// The topic a handle's message is in: `topic` itself for none, else the group's retry topic of it.
std::string pop_real_topic(std::string_view topic, std::string_view group, PopRetry kind);

struct ReceiptHandle {
  std::int64_t ck_offset = 0;
  std::int64_t pop_time = 0;
  std::int64_t invisible_time = 0;
  std::int32_t revive_qid = 0;
  PopRetry retry = PopRetry::none;
  std::string broker_name;
  std::int32_t queue_id = 0;
  std::int64_t queue_offset = 0;

  bool is_order() const { return revive_qid == kPopOrderReviveQueue; }
  // When the message becomes visible again (unless acknowledged or changed).
  std::int64_t visible_at() const { return pop_time + invisible_time; }
  std::string encode() const;
  // Errors (invalid_argument) quote the handle and name the field: fewer than eight fields, a
  // number that does not parse, a retry flag other than 0/1/2, an empty broker name.
  static Result<ReceiptHandle> parse(std::string_view text);
  // The handle CHANGE_MESSAGE_INVISIBLETIME's reply stands for: the message's own offset as the
  // checkpoint's start, the reply's times and revive queue.
  ReceiptHandle after_change(std::int64_t new_pop_time, std::int64_t new_invisible_time, std::int32_t new_revive_qid) const;
  bool operator==(const ReceiptHandle&) const = default;
};

// One queue's part of a POP reply (see above).
struct PopQueueInfo {
  PopRetry retry = PopRetry::none;
  std::int32_t queue_id = 0;
  std::int64_t start_offset = 0;
  std::vector<std::int64_t> msg_offsets;
  // FIFO: how many times each offset was handed out before (0: never); least: the queue's entry.
  std::map<std::int64_t, std::int32_t> order_counts;
  std::int32_t order_count_least = 0;
};

std::string encode_start_offset_info(const std::vector<PopQueueInfo>& queues);
std::string encode_msg_offset_info(const std::vector<PopQueueInfo>& queues);
std::string encode_order_count_info(const std::vector<PopQueueInfo>& queues);

// What the client reads back: keyed "{retry}@{queueId}" (and "{retry}@qo{queueId}%{offset}" for
// order counts), as RocketMQ's clients key them.
struct OffsetInfo {
  std::map<std::string, std::int64_t> start_offsets;
  std::map<std::string, std::vector<std::int64_t>> msg_offsets;
  std::map<std::string, std::int32_t> order_counts;

  // Errors (corrupt) name the header field and quote the entry.
  static Result<OffsetInfo> parse(std::string_view start_offset_info, std::string_view msg_offset_info,
                                  std::string_view order_count_info);
  static std::string queue_key(PopRetry retry, std::int32_t queue_id);
  static std::string offset_key(PopRetry retry, std::int32_t queue_id, std::int64_t offset);
};

}  // namespace ferry
