// END_TRANSACTION (37, producer → broker) and CHECK_TRANSACTION_STATE (39, broker → producer)
// headers, RocketMQ 4.9's EndTransactionRequestHeader and CheckTransactionStateRequestHeader
// (docs/transactions.md says what each field holds). Both requests travel oneway.
//
// Each struct names its extFields once, in fields() (remoting/header/field_codec.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "remoting/ext_fields.h"
#include "remoting/header/field_codec.h"
#include "runtime/result.h"

namespace ferry::remoting {

struct EndTransactionRequestHeader {
  std::string producer_group;
  std::int64_t tran_state_table_offset = 0;  // the half message's queue offset in RMQ_SYS_TRANS_HALF_TOPIC
  std::int64_t commit_log_offset = 0;        // the half message's CommitLog offset
  std::int32_t commit_or_rollback = 0;       // sys_flag.h: 0 unknown, 8 commit, 12 rollback
  std::optional<bool> from_transaction_check;
  std::string msg_id;                        // the client's msgId (UNIQ_KEY)
  std::optional<std::string> transaction_id;
  std::optional<std::string> bname;          // 4.9.5+: the broker name

  static constexpr auto fields() {
    using H = EndTransactionRequestHeader;
    return header_table("EndTransactionRequestHeader",
                        required("producerGroup", &H::producer_group),
                        required("tranStateTableOffset", &H::tran_state_table_offset),
                        required("commitLogOffset", &H::commit_log_offset),
                        required("commitOrRollback", &H::commit_or_rollback),
                        optional("fromTransactionCheck", &H::from_transaction_check),
                        required("msgId", &H::msg_id),
                        optional("transactionId", &H::transaction_id),
                        optional("bname", &H::bname));
  }
  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<EndTransactionRequestHeader> from_fields(const ExtFields& f) { return fields().decode(f); }
  ExtFields to_fields() const { return fields().encode(*this); }
  bool operator==(const EndTransactionRequestHeader&) const = default;
};

struct CheckTransactionStateRequestHeader {
  std::int64_t tran_state_table_offset = 0;  // the (re-appended) half message's queue offset
  std::int64_t commit_log_offset = 0;        // and its CommitLog offset
  std::optional<std::string> msg_id;         // UNIQ_KEY
  std::optional<std::string> transaction_id; // UNIQ_KEY too
  std::optional<std::string> offset_msg_id;  // the half record's offset msgId
  std::optional<std::string> bname;

  static constexpr auto fields() {
    using H = CheckTransactionStateRequestHeader;
    return header_table("CheckTransactionStateRequestHeader",
                        required("tranStateTableOffset", &H::tran_state_table_offset),
                        required("commitLogOffset", &H::commit_log_offset),
                        optional("msgId", &H::msg_id),
                        optional("transactionId", &H::transaction_id),
                        optional("offsetMsgId", &H::offset_msg_id),
                        optional("bname", &H::bname));
  }
  static Result<CheckTransactionStateRequestHeader> from_fields(const ExtFields& f) { return fields().decode(f); }
  ExtFields to_fields() const { return fields().encode(*this); }
  bool operator==(const CheckTransactionStateRequestHeader&) const = default;
};

}  // namespace ferry::remoting
