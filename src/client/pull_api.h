// PullAPI: one PULL_MESSAGE to the broker of a queue (RocketMQ's PullAPIWrapper): what the push
// and lite-pull consumers pull through, and a tool for tests and admin.
//
//   PullAPI pull(instance);
//   Result<PullResult> r = co_await pull.pull(PullRequest{.group = "CG", .queue = mq,
//                                                         .offset = QueueOffset(0)});
//
// The request always carries the subscription (sysFlag bit 4) built from `sub_expression`, the
// commitOffset bit when `commit_offset` is set, and the suspend bit with `suspend` as the long-poll
// limit when it is positive (the call's timeout must then exceed it). An unknown broker triggers
// one route update.
//
// Which broker of the queue's group (RocketMQ's PullAPIWrapper.pullFromWhichNodeTable): every
// reply's suggestWhichBrokerId is kept per queue, and the next pull of that queue goes to that
// id when the route has it (ClientInstance::subscribe_address: else the next slave id, else the
// master, else any slave). So a queue is pulled from the master until a reply suggests a slave
// (the master's slaveReadEnable, a lagging consumer); from a slave while the route has no master;
// and back from the master once it is in the route and a reply suggests 0. A pull to a slave
// never carries the commitOffset bit (a slave does not store it). At most kSuggestionsMax queues
// keep a slave suggestion; beyond that a queue's new slave suggestion is dropped (it is pulled
// from the master), and a suggestion of 0 forgets the queue's entry.
//
// Reply codes: SUCCESS → FOUND (records decoded with decode_messages, compressed bodies
// inflated, then the exact tag re-checked client-side: messages whose TAGS the expression does
// not name are dropped); PULL_NOT_FOUND → NO_NEW_MSG; PULL_RETRY_IMMEDIATELY → NO_MATCHED_MSG;
// PULL_OFFSET_MOVED → OFFSET_ILLEGAL. Every status carries next_begin_offset, min/max offset.
// Errors: invalid_argument (a bad expression), not_found (no address for the broker), the RPC
// errors, reply_error for any other code, corrupt (an undecodable body or header).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "client/client_instance.h"
#include "common/message.h"
#include "common/message_queue.h"

#include "common/subscription_filter.h"

namespace ferry::client {

enum class PullStatus : std::uint8_t { FOUND, NO_NEW_MSG, NO_MATCHED_MSG, OFFSET_ILLEGAL };
std::string_view name(PullStatus s);

struct PullRequest {
  std::string group;
  MessageQueue queue;
  QueueOffset offset;
  std::int32_t max_nums = 32;
  std::string sub_expression = "*";
  ExpressionType expression_type = ExpressionType::tag;  // SQL92: the broker alone filters
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
  std::int64_t pulled_from_broker_id = 0;  // the broker id of the group that answered
  std::vector<MessageExt> messages;  // FOUND only; bodies decompressed, tags re-checked
};

class PullAPI {
 public:
  static constexpr std::size_t kSuggestionsMax = 65536;

  explicit PullAPI(ClientInstance& instance) : ci_(instance) {}

  Task<Result<PullResult>> pull(PullRequest request);

  // The broker id the last reply for `mq` suggested (0, the master, when none is kept).
  std::int64_t suggested_broker(const MessageQueue& mq) const;

 private:
  void keep_suggestion(const MessageQueue& mq, std::int64_t broker_id);

  ClientInstance& ci_;
  std::map<MessageQueue, std::int64_t> suggested_;  // queues whose last reply suggested a slave
};

}  // namespace ferry::client
