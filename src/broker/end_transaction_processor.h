// EndTransactionProcessor: END_TRANSACTION (37), the producer's verdict on a half message
// (RocketMQ 4.9's EndTransactionProcessor; docs/transactions.md has the facts).
//
// The producer names the half message by its CommitLog offset and its queue offset in
// RMQ_SYS_TRANS_HALF_TOPIC queue 0 (what the half send's reply said). Checks, in order:
//   header fields missing or malformed              1 SYSTEM_ERROR, the remark names the field
//   a slave broker                                  11 SLAVE_NOT_AVAILABLE, no remark (as RocketMQ)
//   commitOrRollback 0 (the state is unknown yet)   no reply: the check service asks again later
//   commitOrRollback other than 0, 8, 12            1 SYSTEM_ERROR "commitOrRollback field wrong"
//   no message record at commitLogOffset            1 SYSTEM_ERROR "Find prepared transaction message failed"
//   the record's PGROUP is not producerGroup        1 SYSTEM_ERROR "The producer group wrong"
//   its queue offset is not tranStateTableOffset    1 SYSTEM_ERROR "The transaction state table offset wrong"
//   its CommitLog offset differs                    1 SYSTEM_ERROR "The commit log offset wrong"
// Commit (8): the half message is stored again for its REAL_TOPIC / REAL_QID as a commit-typed
// record (sys_flag 8; preparedTransactionOffset = the half's CommitLog offset; body, flag, born
// time and host, reconsume count and properties as the half has them — TRAN_MSG, REAL_TOPIC,
// REAL_QID and PGROUP stay, as RocketMQ stores them; a DELAY level sends it through
// SCHEDULE_TOPIC_XXXX as any delayed message). It does not wait for flush or replication (RocketMQ
// sets waitStoreMsgOK=false). Then, and for a rollback (12) at once, an op record marks the half
// message done: RMQ_SYS_TRANS_OP_HALF_TOPIC, the half's queue id, tag "d", body the half's queue
// offset in decimal. Both topics are created on first use (1 queue, read-write).
//
// The request usually comes oneway (a Java client sends it so); a reply, when asked for, is
// SUCCESS or the error above. The commit is not counted in the broker's put statistics or
// metrics: the half message's send was (under its real topic, message_type "transaction").
#pragma once

#include <functional>

#include "broker/broker_config.h"
#include "broker/replies.h"
#include "broker/topic_config_manager.h"
#include "common/message.h"
#include "runtime/log_limiter.h"
#include "store/message_store.h"

namespace ferry::broker {

class EndTransactionProcessor {
 public:
  EndTransactionProcessor(Runtime& rt, const BrokerConfig& config, store::MessageStore& store, TopicConfigManager& topics);

  Task<Reply> process(RequestContext ctx);
  // The timer clock a committed timer message is due by (SendProcessor::set_timer_clock).
  void set_timer_clock(std::function<WallMs()> clock) { timer_clock_ = std::move(clock); }

  // The op record that marks `half` (a half message read back from the store) committed or
  // rolled back. Also used by the check service.
  store::PutResult mark_done(const MessageExt& half);

 private:
  Runtime& rt_;
  const BrokerConfig& config_;
  store::MessageStore& store_;
  TopicConfigManager& topics_;
  std::function<WallMs()> timer_clock_;
  LogLimiter op_error_log_;  // op records not stored, by PutStatus
};

}  // namespace ferry::broker
