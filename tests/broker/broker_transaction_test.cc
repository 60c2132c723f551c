// Half messages and END_TRANSACTION on the broker (issue 35; docs/transactions.md), over raw
// frames: a half message
// waits unseen on RMQ_SYS_TRANS_HALF_TOPIC, a commit stores it on its real queue, a rollback
// does not, each leaves an op record, and END_TRANSACTION checks what it names.
#include "common/msg_id.h"
#include "common/sys_flag.h"
#include "remoting/header/transaction_header.h"
#include "common/message_decoder.h"
#include "tests/broker/consumer_fixture.h"

namespace ferry::broker::testing {
namespace {

Msg half_message(const std::string& body) {
  Msg m;
  m.body = body;
  m.queue_id = 2;
  m.producer_group = "TxGroup";
  m.sys_flag = sysflag::kTransactionPreparedType;
  m.tag("TagT").set("TRAN_MSG", "true").set("PGROUP", "TxGroup").set("UNIQ_KEY", "UNIQ-" + body);
  return m;
}

RemotingCommand end_transaction(const std::string& group, std::int64_t queue_offset, std::int64_t commit_log_offset,
                                std::int32_t verdict) {
  remoting::EndTransactionRequestHeader h;
  h.producer_group = group;
  h.tran_state_table_offset = queue_offset;
  h.commit_log_offset = commit_log_offset;
  h.commit_or_rollback = verdict;
  h.msg_id = "UNIQ";
  RemotingCommand req = remoting::make_request(rc::END_TRANSACTION, 0);
  req.ext_fields = h.to_fields();
  return req;
}

TEST_F(BrokerTest, HalfMessagesWaitUnseenUntilEndTransactionCommitsOrRollsThemBack) {
  boot();
  Call a = send(half_message("commit me"));
  ASSERT_EQ(a.reply.code, code::SUCCESS) << a.remark();
  EXPECT_EQ(a.field("queueId"), "2") << "the reply names the real queue";
  EXPECT_EQ(a.field("queueOffset"), "0") << "and the half message's offset in RMQ_SYS_TRANS_HALF_TOPIC";
  Call b = send(half_message("roll me back"), rc::SEND_MESSAGE);
  ASSERT_EQ(b.reply.code, code::SUCCESS) << b.remark();
  EXPECT_EQ(b.field("queueOffset"), "1");
  const Result<OffsetMsgId> a_id = decode_offset_msg_id(a.field("msgId"));
  const Result<OffsetMsgId> b_id = decode_offset_msg_id(b.field("msgId"));
  ASSERT_TRUE(a_id.ok() && b_id.ok()) << a.field("msgId") << " " << b.field("msgId");
  const std::int64_t a_at = a_id->offset.value();
  const std::int64_t b_at = b_id->offset.value();

  EXPECT_TRUE(all_of("T", 2).empty()) << "a half message is not for consumers";
  const std::vector<MessageExt> halves = all_of("RMQ_SYS_TRANS_HALF_TOPIC", 0);
  ASSERT_EQ(halves.size(), 2u);
  EXPECT_EQ(halves[0].properties.get("REAL_TOPIC").value_or(""), "T");
  EXPECT_EQ(halves[0].properties.get("REAL_QID").value_or(""), "2");
  EXPECT_EQ(sysflag::transaction_type(halves[0].sys_flag), sysflag::kTransactionNotType);

  // END_TRANSACTION checks what it names against the stored half message.
  Call wrong = call(end_transaction("OtherGroup", 0, a_at, sysflag::kTransactionCommitType));
  EXPECT_EQ(wrong.reply.code, code::SYSTEM_ERROR);
  EXPECT_EQ(wrong.remark(), "The producer group wrong");
  wrong = call(end_transaction("TxGroup", 1, a_at, sysflag::kTransactionCommitType));
  EXPECT_EQ(wrong.remark(), "The transaction state table offset wrong");
  wrong = call(end_transaction("TxGroup", 0, a_at + 1, sysflag::kTransactionCommitType));
  EXPECT_EQ(wrong.remark(), "Find prepared transaction message failed");
  wrong = call(end_transaction("TxGroup", 0, a_at, 5));
  EXPECT_EQ(wrong.remark(), "commitOrRollback field wrong");
  EXPECT_TRUE(all_of("T", 2).empty()) << "nothing was committed by a refused END_TRANSACTION";

  Call commit = call(end_transaction("TxGroup", 0, a_at, sysflag::kTransactionCommitType));
  EXPECT_EQ(commit.reply.code, code::SUCCESS) << commit.remark();
  Call rollback = call(end_transaction("TxGroup", 1, b_at, sysflag::kTransactionRollbackType));
  EXPECT_EQ(rollback.reply.code, code::SUCCESS) << rollback.remark();

  // The committed one is on its real queue as RocketMQ stores it: commit-typed, pointing at its
  // half, its properties kept; the rolled-back one is nowhere.
  const std::vector<MessageExt> got = all_of("T", 2);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(body_text(got[0]), "commit me");
  EXPECT_EQ(got[0].tags().value_or(""), "TagT");
  EXPECT_EQ(got[0].properties.get("UNIQ_KEY").value_or(""), "UNIQ-commit me");
  EXPECT_EQ(got[0].properties.get("TRAN_MSG").value_or(""), "true");
  EXPECT_EQ(sysflag::transaction_type(got[0].sys_flag), sysflag::kTransactionCommitType);
  EXPECT_EQ(got[0].prepared_transaction_offset, a_at);
  for (std::int32_t q : {0, 1, 3}) EXPECT_TRUE(all_of("T", q).empty()) << q;
  // Each verdict left an op record naming its half message's queue offset.
  const std::vector<MessageExt> ops = all_of("RMQ_SYS_TRANS_OP_HALF_TOPIC", 0);
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_EQ(body_text(ops[0]), "0");
  EXPECT_EQ(body_text(ops[1]), "1");
  EXPECT_EQ(ops[0].tags().value_or(""), "d");
}

// rejectTransactionMessage (broker.conf, or updateBrokerConfig while running) refuses new half
// messages only: a verdict on one taken before still commits it.
TEST_F(BrokerTest, RejectTransactionMessageRefusesNewHalvesButStillTakesVerdicts) {
  boot();
  Call a = send(half_message("taken before"));
  ASSERT_EQ(a.reply.code, code::SUCCESS) << a.remark();
  RemotingCommand update = remoting::make_request(rc::UPDATE_BROKER_CONFIG, 0);
  const std::string text = "rejectTransactionMessage=true\n";
  update.body.assign(text.begin(), text.end());
  ASSERT_EQ(call(update).reply.code, code::SUCCESS);
  Call refused = send(half_message("refused"));
  EXPECT_EQ(refused.reply.code, code::NO_PERMISSION) << refused.remark();
  EXPECT_NE(refused.remark().find("sending transaction message is forbidden (rejectTransactionMessage = true)"),
            std::string::npos)
      << refused.remark();
  const Result<OffsetMsgId> id = decode_offset_msg_id(a.field("msgId"));
  ASSERT_TRUE(id.ok()) << a.field("msgId");
  Call end = call(end_transaction("TxGroup", 0, id->offset.value(), sysflag::kTransactionCommitType));
  EXPECT_EQ(end.reply.code, code::SUCCESS) << end.remark();
  const std::vector<MessageExt> got = all_of("T", 2);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(body_text(got[0]), "taken before");
}

// The check service: a half message left without a verdict is asked about once it is older than
// transactionTimeOut, through a live producer of its group, and the END_TRANSACTION that answers
// (naming the re-stored copy) commits it; one whose group has no producer online is asked about
// transactionCheckMax times, then moved to TRANS_CHECK_MAX_TIME_TOPIC.
struct SeenChecks {
  std::vector<remoting::CheckTransactionStateRequestHeader> headers;
  std::vector<MessageExt> messages;
  std::vector<bool> oneway;
};

Task<std::optional<RemotingCommand>> record_check(std::shared_ptr<SeenChecks> seen, remoting::RequestContext ctx) {
  auto h = remoting::CheckTransactionStateRequestHeader::from_fields(ctx.request.ext_fields);
  if (h) seen->headers.push_back(*h);
  auto m = decode_messages(Bytes(ctx.request.body.data(), ctx.request.body.size()), MessagesDecodeOptions{});
  if (m && m->size() == 1) seen->messages.push_back(m->front());
  seen->oneway.push_back(ctx.request.is_oneway());
  co_return std::nullopt;
}

class TransactionCheckTest : public ConsumerTest {};

TEST_F(TransactionCheckTest, AnUnansweredHalfMessageIsAskedAboutThenCommittedOrDiscarded) {
  config_.transaction_check_interval = std::chrono::hours(24);  // rounds run when the test says
  config_.transaction_check_max = 2;
  boot();
  TestClient& producer = add_client("10.0.0.9@tx-producer");
  auto seen = std::make_shared<SeenChecks>();
  producer.rpc->register_processor(rc::CHECK_TRANSACTION_STATE,
                                   [seen](remoting::RequestContext ctx) { return record_check(seen, std::move(ctx)); });
  remoting::body::HeartbeatData hb;
  hb.client_id = producer.client_id;
  hb.producer_data_set.push_back(remoting::body::ProducerData{"TxGroup"});
  ASSERT_EQ(call_from(producer, heartbeat_request(hb)).reply.code, code::SUCCESS);

  Msg pending = half_message("pending");
  pending.born_timestamp_ms = node(broker_).wall_ms();
  Call a = send(pending);
  ASSERT_EQ(a.reply.code, code::SUCCESS) << a.remark();
  Msg orphan = half_message("orphan");  // a group with no producer online
  orphan.set("PGROUP", "GoneGroup");
  orphan.born_timestamp_ms = node(broker_).wall_ms();
  ASSERT_EQ(send(orphan).reply.code, code::SUCCESS);

  TransactionCheckService& checks = broker().transaction_check();
  TransactionCheckService::Round r = checks.check_once();
  EXPECT_EQ(r.checked, 0) << "younger than transactionTimeOut (6 s): not asked yet";
  run_for(std::chrono::seconds(7));
  r = checks.check_once();
  EXPECT_EQ(r.checked, 2);
  EXPECT_EQ(r.unasked, 1) << "GoneGroup has no producer online";
  run_for(std::chrono::seconds(1));
  ASSERT_EQ(seen->headers.size(), 1u);
  EXPECT_TRUE(seen->oneway[0]);
  const remoting::CheckTransactionStateRequestHeader& h = seen->headers[0];
  EXPECT_EQ(h.tran_state_table_offset, 2) << "it names the copy stored at the half queue's end";
  EXPECT_EQ(h.msg_id.value_or(""), "UNIQ-pending");
  EXPECT_EQ(h.transaction_id.value_or(""), "UNIQ-pending");
  ASSERT_EQ(seen->messages.size(), 1u);
  EXPECT_EQ(seen->messages[0].topic, "T") << "the body shows the message under its real topic";
  EXPECT_EQ(seen->messages[0].queue_id, QueueId(2));
  EXPECT_EQ(body_text(seen->messages[0]), "pending");
  EXPECT_EQ(seen->messages[0].properties.get("TRANSACTION_CHECK_TIMES").value_or(""), "1");

  // The producer's answer names the copy; it commits the message.
  Call commit = call(end_transaction("TxGroup", h.tran_state_table_offset, h.commit_log_offset, sysflag::kTransactionCommitType));
  ASSERT_EQ(commit.reply.code, code::SUCCESS) << commit.remark();
  const std::vector<MessageExt> got = all_of("T", 2);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(body_text(got[0]), "pending");

  // The next round: the committed copy is done; the orphan is asked about once more (check 2 of
  // transactionCheckMax 2), and its copy, met next in the same walk, is moved aside (RocketMQ
  // checks the count before whether a message was stored during the round).
  run_for(std::chrono::seconds(7));
  r = checks.check_once();
  EXPECT_EQ(r.done, 1);
  EXPECT_EQ(r.checked, 1);
  EXPECT_EQ(r.unasked, 1);
  EXPECT_EQ(r.discarded, 1);
  const std::vector<MessageExt> aside = all_of("TRANS_CHECK_MAX_TIME_TOPIC", 0);
  ASSERT_EQ(aside.size(), 1u);
  EXPECT_EQ(body_text(aside[0]), "orphan");
  EXPECT_EQ(aside[0].properties.get("REAL_TOPIC").value_or(""), "T");
  EXPECT_EQ(all_of("T", 2).size(), 1u) << "the orphan never reached its topic";
  run_for(std::chrono::seconds(7));
  r = checks.check_once();
  EXPECT_EQ(r.checked + r.discarded + r.done, 0) << "nothing is left to resolve";
  EXPECT_EQ(seen->headers.size(), 1u);
}

}  // namespace
}  // namespace ferry::broker::testing
