// TransactionCheckService: resolves half messages whose END_TRANSACTION never came — the producer
// died, or its oneway verdict was lost — by asking a live producer of the group
// (CHECK_TRANSACTION_STATE, 39), as RocketMQ 4.9's TransactionalMessageCheckService does
// (docs/transactions.md §5, §6).
//
// A round reads the op queue (RMQ_SYS_TRANS_OP_HALF_TOPIC/0) from its offset to its end: the half
// queue offsets already committed or rolled back. Then it walks the half queue
// (RMQ_SYS_TRANS_HALF_TOPIC/0) from its offset, in order, each half message:
//   marked done by an op record                      skipped
//   checked transaction_check_max times already, or
//   born longer ago than the store keeps files       moved to TRANS_CHECK_MAX_TIME_TOPIC (discarded;
//                                                    checked first, as RocketMQ: the copy made by
//                                                    the last check goes when the walk meets it)
//   stored during this round, or younger than its
//   immunity (CHECK_IMMUNITY_TIME_IN_SECONDS, else
//   transaction_timeout)                             the round stops there (later ones are younger)
//   otherwise                                        stored again at the queue's end with
//                                                    TRANSACTION_CHECK_TIMES + 1, and the check is
//                                                    sent for that copy to one live producer of its
//                                                    PGROUP (none online: the copy waits for the
//                                                    next round)
// and commits the half queue's offset past what it walked and the op queue's offset past the op
// records whose half messages it passed (offsets of group CID_RMQ_SYS_TRANS, persisted with the
// consumer offsets). The producer answers with END_TRANSACTION naming the copy. A round stops after
// round_time_max of walking or round_messages_max half messages, whichever first.
//
// Runs only on a master (a slave's loop waits): every check_interval from start().
#pragma once

#include <cstdint>
#include <string>

#include "broker/broker_config.h"
#include "broker/client_calls.h"
#include "broker/consumer_offset_manager.h"
#include "broker/producer_manager.h"
#include "broker/topic_config_manager.h"
#include "common/message.h"
#include "runtime/log_limiter.h"
#include "store/message_store.h"

namespace ferry::broker {

// The group whose offsets mark how far the service walked the half and op queues
// (RocketMQ's MixAll.CID_SYS_RMQ_TRANS, whose value has its words in this order).
inline constexpr std::string_view kTransactionCheckGroup = "CID_RMQ_SYS_TRANS";

struct TransactionCheckOptions {
  Duration check_interval = std::chrono::seconds(60);     // transactionCheckInterval (4.9: 60 s)
  Duration transaction_timeout = std::chrono::seconds(6);  // transactionTimeOut
  std::int32_t check_max = 15;                             // transactionCheckMax
  Duration round_time_max = std::chrono::seconds(60);      // RocketMQ's MAX_PROCESS_TIME_LIMIT
  std::int64_t round_messages_max = 100'000;               // Ferry's bound on one round's walk
  std::int64_t ops_per_round_max = 1'000'000;              // and on the op records it reads
};

class TransactionCheckService {
 public:
  TransactionCheckService(Runtime& rt, const BrokerConfig& config, TransactionCheckOptions options,
                          store::MessageStore& store, ConsumerOffsetManager& offsets, ProducerManager& producers,
                          ClientCalls& calls, TopicConfigManager& topics);

  // What one round did (tests, logs).
  struct Round {
    std::int64_t done = 0;       // half messages an op record had marked
    std::int64_t checked = 0;    // re-stored and asked about
    std::int64_t unasked = 0;    // of those, no producer of the group was online
    std::int64_t discarded = 0;  // moved to TRANS_CHECK_MAX_TIME_TOPIC
    QueueOffset half_offset;     // where the next round starts
  };
  // One round now (the loop's body).
  Round check_once();
  // The loop: a round every check_interval while the broker is a master, until stop().
  Task<void> run_loop();
  void stop() { stopped_ = true; }

 private:
  // Stores `half` again at the half queue's end with TRANSACTION_CHECK_TIMES = `times` and sends
  // the check for the copy. False when the copy could not be stored (the walk stops there).
  bool check(const MessageExt& half, std::int32_t times, Round& round);
  void discard(const MessageExt& half);
  static Task<void> send_check(TransactionCheckService* self, ClientChannel to, remoting::RemotingCommand request);

  Runtime& rt_;
  const BrokerConfig& config_;
  TransactionCheckOptions options_;
  store::MessageStore& store_;
  ConsumerOffsetManager& offsets_;
  ProducerManager& producers_;
  ClientCalls& calls_;
  TopicConfigManager& topics_;
  std::uint64_t next_producer_ = 0;  // round-robin over a group's channels
  bool stopped_ = false;
  LogLimiter bad_record_log_;     // op records and half messages that do not decode (1..3: which)
  LogLimiter restore_error_log_;  // half messages not stored again, by PutStatus
  LogLimiter send_error_log_;     // checks not sent, by Errc
  LogLimiter discard_log_;        // half messages moved away (by PutStatus), or dropped (-1)
};

}  // namespace ferry::broker
