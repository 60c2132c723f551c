// Orderly listener: messages of one key (sent with the hash selector, so one queue) reach the
// listener in send order, one at a time per queue, while the consumer holds the queues' broker
// locks (renewed every 20 s, well inside the broker's 60 s); a suspended message is consumed
// again after 1 s before anything after it.
#include "tests/support/broker_inspector.h"
#include "tests/support/client_consumer_fixture.h"

using ferry::testing::BrokerInspector;

namespace ferry::client::testing {
namespace {

using namespace std::chrono_literals;

struct Ordered {
  std::map<std::string, std::vector<int>> seq_by_key;  // key → sequence numbers as consumed
  int in_listener = 0;
  int max_in_listener_same_queue = 0;
  std::map<std::string, int> suspended;  // body → times suspended
};

class OrderlySeeds : public ConsumerTest, public ::testing::WithParamInterface<std::uint64_t> {
 protected:
  OrderlySeeds() : ConsumerTest(GetParam()) {}
};

TEST_P(OrderlySeeds, PerQueueOrderWithLocksRenewed) {
  boot({"broker-a"}, {{"O", 4}});
  auto ord = std::make_shared<Ordered>();
  auto out = std::make_shared<Deliveries>();
  auto setup = [ord, out](PushConsumer& c, Runtime& rt) {
    ASSERT_TRUE(c.subscribe("O", "*").ok());
    Runtime* r = &rt;
    c.set_listener([ord, out, r](const std::vector<MessageExt>& msgs, ConsumeOrderlyContext& ctx) {
      const MessageExt& m = msgs.front();
      const std::string body = body_text(m);  // "key:seq"
      // Suspend every 7th message once: it must come back before its successors.
      const int seq = std::stoi(body.substr(body.find(':') + 1));
      if (seq % 7 == 3 && ord->suspended[body] == 0) {
        ++ord->suspended[body];
        return ConsumeOrderlyStatus::SUSPEND_CURRENT_QUEUE_A_MOMENT;
      }
      out->record("c", m, ctx.queue, r->now());
      ord->seq_by_key[body.substr(0, body.find(':'))].push_back(seq);
      return ConsumeOrderlyStatus::SUCCESS;
    });
  };
  auto c = add_push_node("consumer-1", push_config("OG"), setup);
  ASSERT_TRUE(eventually([&] { return push(c).held_queues().size() == 5; }, 60s)) << seed_text();

  Producer& p = producer();
  std::set<std::string> sent;
  for (int seq = 0; seq < 20; ++seq) {
    for (int k = 0; k < 6; ++k) {
      const std::string key = numbered("k", k);
      const std::string body = fmt::format("{}:{}", key, seq);
      Result<SendResult> r = run(p.send(text_message("O", body), select_by_hash(key)));
      ASSERT_TRUE(r.ok()) << r.error().to_string();
      sent.insert(body);
    }
  }
  ASSERT_TRUE(wait_all(out, sent, 120s)) << out->all.size() << seed_text();
  for (const auto& [key, seqs] : ord->seq_by_key) {
    ASSERT_EQ(seqs.size(), 20u) << key << seed_text();
    for (int i = 0; i < 20; ++i) EXPECT_EQ(seqs[static_cast<std::size_t>(i)], i) << key << seed_text();
  }
  EXPECT_EQ(out->duplicates(), 0);

  // Locks: renewed every 20 s, so after 90 s the broker still holds them (its locks expire
  // after 60 s) and the consumer's local locks are fresh.
  cluster().run_for(90s);
  EXPECT_GE(push(c).stats().lock_rounds, 4u);
  const std::string id = client_id(c);
  for (const MessageQueue& mq : push(c).held_queues()) {
    if (mq.topic != "O") continue;
    EXPECT_TRUE(BrokerInspector(broker(0)).consumer_services().locks().is_locked("OG", mq, id)) << mq.to_string() << seed_text();
    auto pq = push(c).process_queue(mq);
    ASSERT_NE(pq, nullptr);
    EXPECT_TRUE(pq->locked());
    EXPECT_FALSE(pq->lock_expired(node_rt(c).now(), 30s));
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, OrderlySeeds, ::testing::Range<std::uint64_t>(1, 6));

}  // namespace
}  // namespace ferry::client::testing
