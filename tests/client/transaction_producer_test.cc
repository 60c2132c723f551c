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

// RocketMQ 5's two steps: the half message first, the verdict when the local transaction is done.
// A producer that goes away in between leaves its half message to the check, which another
// producer of the group answers.
TEST_F(TransactionProducerTest, AHalfLeftByAProducerThatWentAwayIsResolvedByAnotherOfItsGroup) {
  broker_config_.transaction_check_interval = 3s;
  boot({"broker-a"}, {TopicSpec{"TxT", 4}});
  TransactionListener first_listener;
  first_listener.check = [](const MessageExt&) { return LocalTransactionState::unknown; };
  TransactionProducer first(instance(), ProducerConfig{.group = "TxGroup"}, first_listener);
  ASSERT_TRUE(first.start().ok());
  Result<TransactionSendResult> later = run(first.send_half(text_message("TxT", "ended-later")));
  Result<TransactionSendResult> left = run(first.send_half(text_message("TxT", "left-behind")));
  ASSERT_TRUE(later.ok() && left.ok()) << seed_text();
  EXPECT_EQ(later->state, LocalTransactionState::unknown);
  cluster().run_for(2s);  // the local transaction takes a while
  EXPECT_TRUE(delivered().empty()) << "nothing is visible before its verdict" << seed_text();
  run(first.end_transaction(*later, LocalTransactionState::commit));
  cluster().run_for(1s);
  EXPECT_EQ(delivered(), std::multiset<std::string>{"ended-later"}) << seed_text();
  run(first.shutdown());  // "left-behind" never gets its verdict from `first`

  ClientInstance other(client_rt(), cluster().client_config("test-2"));
  other.start();
  std::vector<std::string> asked;
  TransactionListener other_listener;  // no execute: it only answers checks
  other_listener.check = [&](const MessageExt& m) {
    asked.push_back(body_text(m));
    return LocalTransactionState::commit;
  };
  TransactionProducer second(other, ProducerConfig{.group = "TxGroup"}, other_listener);
  ASSERT_TRUE(second.start().ok());
  Result<TransactionSendResult> refused = run(second.send_in_transaction(text_message("TxT", "x")));
  ASSERT_FALSE(refused.ok()) << "send_in_transaction needs execute";
  EXPECT_EQ(refused.error().code, Errc::invalid_argument);
  ASSERT_TRUE(eventually([&] { return delivered().count("left-behind") == 1; }, 60s)) << seed_text();
  EXPECT_EQ(asked, std::vector<std::string>{"left-behind"}) << "only the unresolved half is checked" << seed_text();
  run(second.shutdown());
  run(other.shutdown());
}

TEST_F(TransactionProducerTest, ABrokerThatRefusesHalfMessagesFailsTheSendAndRunsNoLocalTransaction) {
  broker_config_.reject_transaction_message = true;  // rejectTransactionMessage = true
  boot({"broker-a"}, {TopicSpec{"TxT", 4}});
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
