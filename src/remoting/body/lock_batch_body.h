// LOCK_BATCH_MQ (41) / UNLOCK_BATCH_MQ (42) bodies, for orderly consumers:
//   request  {"consumerGroup":"G","clientId":"ip@pid","onlyThisBroker":false,
//             "mqSet":[{"topic":"T","brokerName":"b","queueId":0}]}
//   lock reply {"lockOKMQSet":[{"topic":"T","brokerName":"b","queueId":0}]}
// The unlock request has the same shape as the lock request.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "remoting/body/message_queue.h"
#include "runtime/bytes.h"
#include "runtime/result.h"

namespace ferry::remoting::body {

struct LockBatchRequestBody {
  std::string consumer_group;
  std::string client_id;
  bool only_this_broker = false;
  std::vector<MessageQueue> mq_set;

  // Errors: Errc::corrupt for malformed JSON, Errc::invalid_argument naming the field's path.
  static Result<LockBatchRequestBody> decode(Bytes body);
  std::vector<std::uint8_t> encode() const;
  bool operator==(const LockBatchRequestBody&) const = default;
};

using UnlockBatchRequestBody = LockBatchRequestBody;

struct LockBatchResponseBody {
  std::vector<MessageQueue> lock_ok_mq_set;

  static Result<LockBatchResponseBody> decode(Bytes body);
  std::vector<std::uint8_t> encode() const;
  bool operator==(const LockBatchResponseBody&) const = default;
};

}  // namespace ferry::remoting::body
