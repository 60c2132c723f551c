// TransactionProducer (client/transaction_producer.h) against a simulated broker with the half
// store on: a committed transaction's message reaches consumers, a rolled-back one never does,
// and one whose verdict stays unknown is resolved by the broker's check, answered by the
// producer's check listener from what the local transaction left behind.
#include "client/transaction_producer.h"

#include <set>

#include "tests/support/client_fixture.h"

namespace ferry::client::testing {
namespace {

using namespace std::chrono_literals;

std::string text_of(const Message& m) { return std::string(m.body.begin(), m.body.end()); }

class TransactionProducerTest : public ClientTest {
 protected:
  // Every message on TxT now, by body.
  std::multiset<std::string> delivered() {
    std::multiset<std::string> out;
    for (std::int32_t q = 0; q < 4; ++q) {
      for (const MessageExt& m : pull_all(MessageQueue{"TxT", "broker-a", QueueId(q)})) out.insert(body_text(m));
    }
    return out;
  }
};

TEST_F(TransactionProducerTest, CommitDeliversRollbackDropsAndTheCheckResolvesTheUnknown) {
  broker_config_.reject_transaction_message = false;
  broker_config_.transaction_check_interval = 5s;
  boot({"broker-a"}, {TopicSpec{"TxT", 4}});
  std::set<std::string> database;  // what the local transactions committed
  TransactionListener listener;
  listener.execute = [&](const Message& m, const SendResult&) {
    const std::string body = text_of(m);
    if (body.starts_with("commit")) {
      database.insert(body);
      return LocalTransactionState::commit;
    }
    if (body.starts_with("rollback")) return LocalTransactionState::rollback;
    database.insert(body);  // committed locally, but the verdict is not known yet
    return LocalTransactionState::unknown;
  };
  int checks = 0;
  listener.check = [&](const MessageExt& m) {
    ++checks;
    return database.contains(body_text(m)) ? LocalTransactionState::commit : LocalTransactionState::rollback;
  };
  TransactionProducer p(instance(), ProducerConfig{.group = "TxGroup"}, listener);
  ASSERT_TRUE(p.start().ok());

  for (const char* body : {"commit-1", "rollback-1", "unknown-1"}) {
    Result<TransactionSendResult> r = run(p.send_in_transaction(text_message("TxT", body)));
    ASSERT_TRUE(r.ok()) << body << ": " << r.error().to_string() << seed_text();
    EXPECT_EQ(r->send.status, SendStatus::SEND_OK) << body;
    EXPECT_EQ(r->state, std::string_view(body).starts_with("commit")     ? LocalTransactionState::commit
                        : std::string_view(body).starts_with("rollback") ? LocalTransactionState::rollback
                                                                         : LocalTransactionState::unknown)
        << body;
  }
  cluster().run_for(1s);
  const std::multiset<std::string> early = delivered();
  EXPECT_EQ(early.count("unknown-1"), 0u) << "the unknown one waits for the check" << seed_text();
  EXPECT_EQ(early.count("rollback-1"), 0u) << seed_text();

  // After transactionTimeOut (6 s) a check round asks the producer, whose listener commits it.
  ASSERT_TRUE(eventually([&] { return p.checks_answered() >= 1; }, 60s)) << seed_text();
  cluster().run_for(1s);
  const std::multiset<std::string> got = delivered();
  // At least once: under faults a lost verdict and the check's answer may both commit (as in
  // RocketMQ, docs/transactions.md §9).
  EXPECT_GE(got.count("commit-1"), 1u) << seed_text();
  EXPECT_GE(got.count("unknown-1"), 1u) << seed_text();
  EXPECT_EQ(got.count("rollback-1"), 0u) << "a rolled-back message never reaches a consumer" << seed_text();
  EXPECT_GE(checks, 1);
  run(p.shutdown());
}

TEST_F(TransactionProducerTest, ABrokerThatRefusesHalfMessagesFailsTheSendAndRunsNoLocalTransaction) {
  boot({"broker-a"}, {TopicSpec{"TxT", 4}});  // the default: refused
  bool ran = false;
  TransactionListener listener;
  listener.execute = [&](const Message&, const SendResult&) {
    ran = true;
    return LocalTransactionState::commit;
  };
  listener.check = [](const MessageExt&) { return LocalTransactionState::rollback; };
  TransactionProducer p(instance(), ProducerConfig{.group = "TxGroup"}, listener);
  ASSERT_TRUE(p.start().ok());
  Result<TransactionSendResult> r = run(p.send_in_transaction(text_message("TxT", "refused")));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().detail.find("sending transaction message is forbidden"), std::string::npos) << r.error().detail;
  EXPECT_FALSE(ran);
  EXPECT_TRUE(delivered().empty());
  run(p.shutdown());
}

}  // namespace
}  // namespace ferry::client::testing
