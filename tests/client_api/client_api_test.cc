// The blocking wrapper in simulation: calls handed to the loop complete their futures once the
// world runs, and async callbacks run through Runtime::offload.
#include <future>

#include "client_api/blocking_producer.h"
#include "client_api/blocking_transaction_producer.h"
#include "client_api/loop_call.h"
#include "tests/support/client_fixture.h"

namespace ferry::client::testing {
namespace {

using namespace std::chrono_literals;

template <typename T>
bool ready(const std::future<T>& f) {
  return f.wait_for(0s) == std::future_status::ready;
}

TEST_F(ClientTest, BlockingProducerFuturesAndCallbacks) {
  boot({"broker-a"}, {{"T", 2}});
  Producer& p = producer();
  client_api::BlockingProducer bp(client_rt(), p);
  std::future<Result<SendResult>> f = bp.send(text_message("T", "from a thread"));
  EXPECT_FALSE(ready(f)) << "the call must run on the loop, not inline";
  ASSERT_TRUE(eventually([&] { return ready(f); }, 10s));
  Result<SendResult> r = f.get();
  ASSERT_TRUE(r.ok()) << r.error().to_string();

  std::future<Status> o = bp.send_oneway(text_message("T", "oneway"));
  std::future<Result<SendResult>> b = bp.send_batch({text_message("T", "b1"), text_message("T", "b2")});
  auto got = std::make_shared<std::vector<Result<SendResult>>>();
  bp.send_async(text_message("T", "async"), [got](Result<SendResult> r) { got->push_back(std::move(r)); });
  ASSERT_TRUE(eventually([&] { return ready(o) && ready(b) && got->size() == 1; }, 10s));
  EXPECT_TRUE(o.get().ok());
  EXPECT_TRUE(b.get().ok());
  EXPECT_TRUE(got->front().ok());

  // Any client coroutine can be called this way (admin calls, for instance).
  AdminClient& a = admin();
  auto topics = client_api::call_on_loop(client_rt(), [&a] { return a.topic_list(); });
  ASSERT_TRUE(eventually([&] { return ready(topics); }, 10s));
  Result<std::vector<std::string>> list = topics.get();
  ASSERT_TRUE(list.ok());
  EXPECT_TRUE(std::binary_search(list->begin(), list->end(), std::string("T")));
}

// A transaction from an application thread: the future completes once the local transaction
// (run off the loop) returned and its verdict went out; the committed message is then delivered.
TEST_F(ClientTest, BlockingTransactionProducerCommitsFromAThread) {
  broker_config_.transaction_check_interval = 5s;
  boot({"broker-a"}, {{"T", 2}});
  TransactionListener listener;
  listener.execute = [](const Message&, const SendResult&) { return LocalTransactionState::commit; };
  listener.check = [](const MessageExt&) { return LocalTransactionState::commit; };
  TransactionProducer tp(instance(), ProducerConfig{.group = "TxGroup"}, listener);
  ASSERT_TRUE(tp.start().ok());
  client_api::BlockingTransactionProducer btp(client_rt(), tp);
  std::future<Result<TransactionSendResult>> f = btp.send_in_transaction(text_message("T", "in a transaction"));
  EXPECT_FALSE(ready(f)) << "the call must run on the loop, not inline";
  ASSERT_TRUE(eventually([&] { return ready(f); }, 10s));
  Result<TransactionSendResult> r = f.get();
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->state, LocalTransactionState::commit);
  // The oneway commit reaches the broker (or, lost to a fault, the check round commits it).
  std::vector<MessageExt> got;
  for (int i = 0; i < 30 && got.empty(); ++i) {
    cluster().run_for(2s);
    got = pull_all(r->send.queue);
  }
  ASSERT_FALSE(got.empty()) << seed_text();
  EXPECT_EQ(body_text(got.front()), "in a transaction");
  run(tp.shutdown());
}

// Request-reply from an application thread: the future completes on the loop; with nobody to
// answer, with the timeout's error in RocketMQ's words.
TEST_F(ClientTest, BlockingProducerRequestTimesOutWhenNobodyAnswers) {
  boot({"broker-a"}, {{"T", 2}});
  Producer& p = producer(ProducerConfig{.group = "Requesters"});
  client_api::BlockingProducer bp(client_rt(), p);
  std::future<Result<MessageExt>> f = bp.request(text_message("T", "anyone?"), 2s);
  EXPECT_FALSE(ready(f)) << "the call must run on the loop, not inline";
  ASSERT_TRUE(eventually([&] { return ready(f); }, 10s));
  Result<MessageExt> r = f.get();
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::timed_out) << r.error().to_string();
  EXPECT_EQ(instance().replies_awaited(), 0u);
}

}  // namespace
}  // namespace ferry::client::testing
