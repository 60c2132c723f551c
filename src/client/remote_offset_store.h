// RemoteOffsetStore: clustering offsets, kept by the broker of each queue (RocketMQ's
// RemoteBrokerOffsetStore).
//
//   query_store — QUERY_CONSUMER_OFFSET to the queue's master (a slave while the route has no
//                 master): an offset, nullopt for QUERY_NOT_FOUND (22), an error for anything
//                 else (no reply, no broker).
//   persist_all — UPDATE_CONSUMER_OFFSET, oneway, for every held queue with an in-memory offset
//                 (the client instance calls it every 5 s through the consumer); offsets of
//                 queues no longer held are dropped from memory. Each offset is read as its
//                 update is sent (an update waiting on an unreachable broker must not make a
//                 later one carry a stale value).
//   persist     — the same for one queue.
//   persist_final — persist_all at shutdown, but two-way: each UPDATE_CONSUMER_OFFSET awaits the
//                 broker's answer (a broker may drop a oneway request, and no round follows).
// Pull requests also carry the in-memory offset (the commitOffset flag), so the broker usually
// has it before a persist round. Failures are logged; a lost update is redone by the next round.
//
// Master away: updates go to a slave of the group while the route has no master (consumer_calls.h),
// and the in-memory table (increase-only for concurrent consumption) is sent whole every round,
// so a returning master has the offsets within one persist interval of its return to the route.
#pragma once

#include <string>

#include "client/client_instance.h"
#include "client/offset_store.h"
#include "runtime/log_limiter.h"

namespace ferry::client {

class RemoteOffsetStore final : public OffsetStore {
 public:
  RemoteOffsetStore(ClientInstance& ci, std::string group) : ci_(ci), group_(std::move(group)) {}

  Status load() override { return {}; }
  Task<Result<std::optional<QueueOffset>>> query_store(MessageQueue mq) override;
  Task<void> persist_all(std::vector<MessageQueue> mqs) override;
  Task<void> persist(MessageQueue mq) override;
  Task<void> persist_final(std::vector<MessageQueue> mqs) override;

 private:
  // The queues of `mqs` with an in-memory offset, sorted; every other queue's offset is forgotten.
  std::vector<MessageQueue> keep_only(std::vector<MessageQueue> mqs);
  // The info line of an update not sent (each persist round while a broker is away): limited.
  void log_persist_failure(QueueOffset offset, const MessageQueue& mq, const Error& why);

  ClientInstance& ci_;
  const std::string group_;
  LogLimiter persist_error_log_;  // by Errc
};

}  // namespace ferry::client
