// BATCH_ACK_MESSAGE (200151) request body (RocketMQ 5's BatchAckMessageRequestBody): the request
// has no header, only this JSON:
//   {"brokerName":"broker-a","acks":[{"c":"G","t":"T","r":"0","so":100,"q":2,"rq":3,
//                                    "pt":1700000000000,"it":60000,"b":"Kg=="}]}
// One entry per checkpoint (the handles' retry flag, queue, ckOffset and popTime): `t` is the
// topic the client asked for (the real one follows from `r`, common/pop_receipt.h), `b` a Java
// BitSet's toByteArray() in base64 where bit i stands for queue offset so + i (little-endian bytes,
// bit i in byte i / 8 under mask 1 << (i % 8), trailing zero bytes dropped).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/pop_receipt.h"
#include "runtime/bytes.h"
#include "runtime/result.h"

namespace ferry::remoting::body {

struct BatchAck {
  std::string consumer_group;
  std::string topic;
  PopRetry retry = PopRetry::none;
  std::int64_t start_offset = 0;
  std::int32_t queue_id = 0;
  std::int32_t revive_qid = 0;
  std::int64_t pop_time = 0;
  std::int64_t invisible_time = 0;
  std::vector<std::int64_t> offsets;  // acknowledged queue offsets, each >= start_offset, ascending

  bool operator==(const BatchAck&) const = default;
};

struct BatchAckMessageRequestBody {
  std::string broker_name;
  std::vector<BatchAck> acks;

  // Errors: corrupt for malformed JSON; invalid_argument naming the field's path (a retry flag
  // other than "0"/"1"/"2", a bitset that is not base64 or longer than kBitsMax bits).
  static Result<BatchAckMessageRequestBody> decode(Bytes body);
  std::vector<std::uint8_t> encode() const;
  bool operator==(const BatchAckMessageRequestBody&) const = default;

  // A bitset longer than this is refused (a checkpoint spans at most a few thousand offsets when
  // a filter skips many; this bounds what one entry may make the broker walk).
  static constexpr std::int64_t kBitsMax = 1 << 16;
};

}  // namespace ferry::remoting::body
