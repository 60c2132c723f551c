// TransactionProducer: transactional messages, as RocketMQ 4.9's TransactionMQProducer
// (docs/transactions.md §1, §6). A message is first stored as a half message no consumer sees;
// the application's local transaction runs; its verdict goes to the broker (END_TRANSACTION,
// oneway), which then delivers the message (commit) or drops it (rollback). When the verdict is
// unknown or lost, the broker asks a live producer of the group later (CHECK_TRANSACTION_STATE),
// and `check` answers.
//
//   TransactionProducer p(instance, ProducerConfig{.group = "TxGroup"}, TransactionListener{
//       .execute = [&](const Message& m, const SendResult& r) { return db_commit(m) ? commit : rollback; },
//       .check = [&](const MessageExt& m) { return db_has(m.uniq_key()) ? commit : rollback; }});
//   FERRY_TRY(p.start());
//   Result<TransactionSendResult> r = co_await p.send_in_transaction(msg);
//
// send_in_transaction: drops a DELAY level (transactional messages are not delayed), sets
// TRAN_MSG=true and PGROUP, sends the half message like Producer::send (same retries). SEND_OK:
// runs `execute` (on the runtime's offload pool: it may block; an exception counts as unknown);
// another stored status (flush or slave timeout): rollback without running it. Then sends
// END_TRANSACTION oneway to the master of the broker that took the half message; an unknown
// verdict is sent too (the broker ignores it and asks later). Errors: the half send's (nothing was
// stored, `execute` did not run). The verdict's delivery is not awaited: its failure is logged and
// the broker's check resolves it.
//
// The two steps apart (RocketMQ 5's Transaction API: beginTransaction, send, commit/rollback; the
// gRPC proxy's EndTransaction): send_half stores the half message and returns; the application
// runs its local transaction however long it takes, then calls end_transaction with the verdict.
// A producer that dies in between leaves the half message to the broker's check, which asks a
// live producer of the same group (`check`). send_in_transaction is send_half, `execute`,
// end_transaction.
//
// `check` runs on the offload pool too; its answer goes back oneway to the broker that asked.
// With enable_msg_trace, each verdict sent (also an answer to a check) leaves an EndTransaction
// trace record (trace_dispatcher.h), as RocketMQ's EndTransactionTraceHookImpl.
// Lifetime: loop thread only; the instance outlives the producer; shutdown() before destruction
// unregisters the group.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "client/producer.h"
#include "runtime/log_limiter.h"

namespace ferry::client {

enum class LocalTransactionState : std::uint8_t { commit, rollback, unknown };
std::string_view name(LocalTransactionState s);

struct TransactionListener {
  std::function<LocalTransactionState(const Message& msg, const SendResult& half)> execute;
  std::function<LocalTransactionState(const MessageExt& half)> check;
};

struct TransactionSendResult {
  SendResult send;  // of the half message: msg_id (UNIQ_KEY), offset_msg_id, real queue, half queue offset
  LocalTransactionState state = LocalTransactionState::unknown;
  // The half message's tags and keys, for the EndTransaction trace record (enable_msg_trace).
  std::string tags;
  std::string keys;
};

class TransactionProducer {
 public:
  TransactionProducer(ClientInstance& instance, ProducerConfig config, TransactionListener listener);
  ~TransactionProducer();
  TransactionProducer(const TransactionProducer&) = delete;
  TransactionProducer& operator=(const TransactionProducer&) = delete;

  // Errors: as Producer::start(); invalid_argument when the listener has no `check` (`execute`
  // is needed by send_in_transaction only).
  Status start();
  Task<void> shutdown();

  // Errors: the half send's; invalid_argument without a listener's `execute`.
  Task<Result<TransactionSendResult>> send_in_transaction(Message msg);
  // Stores `msg` as a half message. The result's state is `unknown`. Errors: the send's.
  Task<Result<TransactionSendResult>> send_half(Message msg);
  // Sends the verdict on `half` (a SEND_OK result of send_half) oneway to the master of the broker
  // group that took it. A failure to send is logged only: the broker's check resolves it.
  Task<void> end_transaction(const TransactionSendResult& half, LocalTransactionState state);

  Producer& producer() { return producer_; }
  std::uint64_t checks_answered() const { return checks_answered_; }

 private:
  static Task<void> on_check(TransactionProducer* self, std::shared_ptr<bool> alive, remoting::RequestContext ctx);
  // What an EndTransaction trace record names of the message (enable_msg_trace).
  struct Traced {
    std::string topic;
    std::string tags;
    std::string keys;
  };
  // END_TRANSACTION, oneway, to `addr`; then its EndTransaction trace record.
  Task<void> send_end(std::string addr, std::int64_t queue_offset, std::int64_t commit_log_offset,
                             std::string msg_id, std::optional<std::string> transaction_id, LocalTransactionState state,
                             bool from_check, Traced traced);

  ClientInstance& ci_;
  Producer producer_;
  TransactionListener listener_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  std::uint64_t checks_answered_ = 0;
  LogLimiter listener_error_log_;  // listeners that threw (1 execute, 2 check)
  LogLimiter end_error_log_;       // END_TRANSACTION not sent: by Errc, -1 no address
};

}  // namespace ferry::client
