// PullAPI: one PULL_MESSAGE to the broker of a queue (RocketMQ's PullAPIWrapper): what the push
// and lite-pull consumers pull through, and a tool for tests and admin.
//
//   PullAPI pull(instance);
//   Result<PullResult> r = co_await pull.pull(PullRequest{.group = "CG", .queue = mq,
//                                                         .offset = QueueOffset(0)});
//
// The request always carries the subscription (sysFlag bit 4) built from `sub_expression`, the
// commitOffset bit when `commit_offset` is set, and the suspend bit with `suspend` as the long-poll
// limit when it is positive (the call's timeout must then exceed it). The broker is the queue's
// master, or a slave when the route has no master; an unknown broker triggers one route update.
//
// Reply codes: SUCCESS → FOUND (records decoded with decode_messages, compressed bodies
// inflated, then the exact tag re-checked client-side: messages whose TAGS the expression does
// not name are dropped); PULL_NOT_FOUND → NO_NEW_MSG; PULL_RETRY_IMMEDIATELY → NO_MATCHED_MSG;
// PULL_OFFSET_MOVED → OFFSET_ILLEGAL. Every status carries next_begin_offset, min/max offset.
// Errors: invalid_argument (a bad expression), not_found (no address for the broker), the RPC
// errors, reply_error for any other code, corrupt (an undecodable body or header).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "client/client_instance.h"
#include "common/message.h"
#include "common/message_queue.h"

namespace ferry::client {

enum class PullStatus : std::uint8_t { FOUND, NO_NEW_MSG, NO_MATCHED_MSG, OFFSET_ILLEGAL };
std::string_view name(PullStatus s);

struct PullRequest {
  std::string group;
  MessageQueue queue;
  QueueOffset offset;
  std::int32_t max_nums = 32;
  std::string sub_expression = "*";
  std::optional<QueueOffset> commit_offset;
  Duration suspend = Duration::zero();  // > 0: long poll up to this long
  Duration timeout = std::chrono::seconds(3);
};

struct [[nodiscard]] PullResult {
  PullStatus status = PullStatus::NO_NEW_MSG;
  QueueOffset next_begin_offset;
  QueueOffset min_offset;
  QueueOffset max_offset;
  std::int64_t suggest_which_broker_id = 0;
  std::vector<MessageExt> messages;  // FOUND only; bodies decompressed, tags re-checked
};

class PullAPI {
 public:
  explicit PullAPI(ClientInstance& instance) : ci_(instance) {}

  Task<Result<PullResult>> pull(PullRequest request);

 private:
  ClientInstance& ci_;
};

}  // namespace ferry::client
