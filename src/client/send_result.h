// SendResult: what a successful send returns (RocketMQ's SendResult).
//
// A send "succeeds" when the broker stored the message, which includes the statuses other than
// SEND_OK: the message is stored but not yet flushed / replicated as the broker was asked to.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "common/message_queue.h"
#include "common/offsets.h"
#include "runtime/result.h"

namespace ferry::client {

enum class SendStatus : std::uint8_t {
  SEND_OK,              // reply SUCCESS (0)
  FLUSH_DISK_TIMEOUT,   // reply 10
  FLUSH_SLAVE_TIMEOUT,  // reply 12
  SLAVE_NOT_AVAILABLE,  // reply 11
};

std::string_view name(SendStatus s);

struct [[nodiscard]] SendResult {
  SendStatus status = SendStatus::SEND_OK;
  // The client's id of the message: its UNIQ_KEY (a batch: the ids of its messages, comma-joined).
  std::string msg_id;
  // Where the broker stored it (offset msgId, comma-joined for a batch).
  std::string offset_msg_id;
  MessageQueue queue;
  QueueOffset queue_offset;  // of the (first) message in its queue
  std::optional<std::string> transaction_id;
  std::optional<std::string> region_id;
  bool trace_on = true;
};

// Called with the outcome of an async send, on the node's loop.
using SendCallback = std::function<void(Result<SendResult>)>;

}  // namespace ferry::client
