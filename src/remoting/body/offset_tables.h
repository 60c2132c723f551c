// The offset tables of the broker-to-client requests (RocketMQ 4.9 shapes, MessageQueue keys in
// fastjson's form: body/queue_table.h):
//   ResetOffsetBody        {"offsetTable":{{"brokerName":"b","queueId":0,"topic":"T"}:12}}
//     RESET_CONSUMER_CLIENT_OFFSET (220) request body: where the client's queues start again;
//     INVOKE_BROKER_TO_RESET_OFFSET (222) reply body: the offsets the broker told its clients.
//   GetConsumerStatusBody  {"messageQueueTable":{mq:offset},"consumerTable":{"clientId":{mq:offset}}}
//     GET_CONSUMER_STATUS_FROM_CLIENT (221) reply: messageQueueTable, the client's offsets of the
//     topic; INVOKE_BROKER_TO_GET_CONSUMER_STATUS (223) reply: consumerTable, by clientId.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "common/message_queue.h"
#include "runtime/bytes.h"
#include "runtime/result.h"

namespace ferry::remoting::body {

using OffsetTable = std::map<MessageQueue, QueueOffset>;

struct ResetOffsetBody {
  OffsetTable offset_table;

  // Errors: Errc::corrupt for malformed JSON, Errc::invalid_argument naming the field's path.
  static Result<ResetOffsetBody> decode(Bytes body);
  std::vector<std::uint8_t> encode() const;
  bool operator==(const ResetOffsetBody&) const = default;
};

struct GetConsumerStatusBody {
  OffsetTable message_queue_table;
  std::map<std::string, OffsetTable> consumer_table;  // by clientId

  static Result<GetConsumerStatusBody> decode(Bytes body);
  std::vector<std::uint8_t> encode() const;
  bool operator==(const GetConsumerStatusBody&) const = default;
};

}  // namespace ferry::remoting::body
