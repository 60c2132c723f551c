// OffsetStore: where a consumer keeps, per queue, the offset of the next message to consume
// (RocketMQ's OffsetStore). Two kinds:
//   RemoteOffsetStore (remote_offset_store.h) — clustering: the broker keeps the group's offsets;
//   LocalOffsetStore  (local_offset_store.h)  — broadcasting: a file of this client and group.
//
// The in-memory table is what the consumer updates as messages are consumed (update()); persist
// writes it out. Loop thread only; every Task refers to the store and must not outlive it.
#pragma once

#include <map>
#include <optional>
#include <vector>

#include "common/message_queue.h"
#include "runtime/result.h"
#include "runtime/task.h"

namespace ferry::client {

class OffsetStore {
 public:
  virtual ~OffsetStore() = default;

  // Reads what the store persisted before (local: the file). Errors: corrupt (naming the file),
  // io_error. The remote store has nothing to load.
  virtual Status load() = 0;

  // Sets the in-memory offset of `mq`. With `increase_only`, a lower offset than the one held is
  // ignored (a late consume result never moves the offset back).
  void update(const MessageQueue& mq, QueueOffset offset, bool increase_only);
  // The in-memory offset, if any.
  std::optional<QueueOffset> read_memory(const MessageQueue& mq) const;
  // Asks the store (broker / file) for the persisted offset; the in-memory one stays as it is
  // (a read must not undo what was consumed but not yet persisted). nullopt: nothing persisted
  // for the queue. Errors: the store could not answer (the caller must not guess: RocketMQ's -2).
  virtual Task<Result<std::optional<QueueOffset>>> query_store(MessageQueue mq) = 0;
  // query_store() for a queue being taken: when there is an offset, the in-memory one becomes it.
  Task<Result<std::optional<QueueOffset>>> read_store(MessageQueue mq);
  // Persists the offsets of `mqs` (the queues this consumer holds) and forgets the in-memory
  // offsets of every other queue. Failures are logged, not returned (the next round retries).
  virtual Task<void> persist_all(std::vector<MessageQueue> mqs) = 0;
  // As persist_all(), for a consumer that shuts down: no later round redoes a lost write, so the
  // store confirms each one (remote: a two-way UPDATE_CONSUMER_OFFSET; a broker may drop a oneway
  // one). Failures are logged, not returned.
  virtual Task<void> persist_final(std::vector<MessageQueue> mqs) = 0;
  // Persists the offset of one queue (before it is given up in a rebalance).
  virtual Task<void> persist(MessageQueue mq) = 0;
  // Forgets the in-memory offset of `mq`.
  void remove(const MessageQueue& mq) { table_.erase(mq); }

  const std::map<MessageQueue, QueueOffset>& table() const { return table_; }

 protected:
  std::map<MessageQueue, QueueOffset> table_;
};

}  // namespace ferry::client
