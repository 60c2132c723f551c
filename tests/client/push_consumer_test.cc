// Push consumer end to end on a simulated 2-broker cluster: everything sent is delivered
// (exactly the set; duplicates counted), broadcasting reaches every consumer, tags are
// re-checked exactly, and consume-from-first / last / timestamp pick the right start.
#include "client/consumer_calls.h"
#include "tests/support/client_consumer_fixture.h"

namespace ferry::client::testing {
namespace {

using namespace std::chrono_literals;

class PushSeeds : public ConsumerTest, public ::testing::WithParamInterface<std::uint64_t> {
 protected:
  PushSeeds() : ConsumerTest(GetParam()) {}
};

TEST_P(PushSeeds, ReceivesEverythingSentOnTwoBrokers) {
  boot({"broker-a", "broker-b"}, {{"T", 4}});
  auto out = std::make_shared<Deliveries>();
  auto c = add_push_consumer("consumer-1", push_config("CG"), {"T", out});
  std::set<std::string> sent = send_n("T", 200, "m");
  ASSERT_EQ(sent.size(), 200u) << seed_text();
  ASSERT_TRUE(wait_all(out, sent, 60s)) << out->count_by_body.size() << " of 200 delivered" << seed_text();
  cluster().run_for(5s);
  EXPECT_EQ(out->bodies(), sent) << seed_text();
  // 8 queues of T and %RETRY%CG (1 queue) on each broker; the retry topic's route may reach the
  // consumer one broker at a time, and the next route poll and rebalance round complete it.
  EXPECT_TRUE(eventually([&] { return push(c).held_queues().size() == 10; }, 60s))
      << push(c).held_queues().size() << " queues held" << seed_text();
  RecordProperty("duplicates", out->duplicates());
  // Delivered per queue in offset order (one consumer, batch size 1, but concurrent workers
  // may interleave: only the set is promised).
  for (const Delivery& d : out->all) EXPECT_EQ(d.topic, "T");
  // Offsets reach the broker (pull piggy-back and the 5 s persist, whose rounds may be skipped).
  EXPECT_TRUE(wait_progress("CG", "T", [](const QueueProgress& q) { return q.lag() == 0; }, 60s)) << seed_text();
}

INSTANTIATE_TEST_SUITE_P(Seeds, PushSeeds, ::testing::Range<std::uint64_t>(1, 6));

TEST_F(ConsumerTest, BroadcastingDeliversEverythingToEveryConsumer) {
  boot({"broker-a", "broker-b"}, {{"B", 2}});
  auto out = std::make_shared<Deliveries>();
  PushConsumerConfig pc = push_config("BG");
  pc.message_model = MessageModel::BROADCASTING;
  auto c1 = add_push_consumer("consumer-1", pc, {"B", out});
  auto c2 = add_push_consumer("consumer-2", pc, {"B", out});
  std::set<std::string> sent = send_n("B", 40, "b");
  auto r = cluster().run_until([&] { return out->bodies_by_consumer["consumer-1"] == sent && out->bodies_by_consumer["consumer-2"] == sent; }, 60s);
  ASSERT_TRUE(r.ok()) << out->bodies_by_consumer["consumer-1"].size() << " / " << out->bodies_by_consumer["consumer-2"].size() << seed_text();
  EXPECT_EQ(push(c1).held_queues().size(), 4u);
  EXPECT_EQ(push(c2).held_queues().size(), 4u);
}

// A committed offset beyond the queue's end (a slave promoted after an asynchronous master died
// holds a shorter queue than the old master served): the pull is answered OFFSET_ILLEGAL, the
// consumer moves to the broker's offset, commits it, and consumes what is sent from then on.
TEST_F(ConsumerTest, AnOffsetBeyondTheQueuesEndMovesToTheBrokersOffsetAndIsCommitted) {
  boot({"broker-a"}, {{"M", 1}});
  std::set<std::string> before = send_n("M", 6, "before");
  ASSERT_EQ(before.size(), 6u) << seed_text();
  const MessageQueue mq{"M", "broker-a", QueueId(0)};
  ASSERT_TRUE(run(update_consumer_offset_oneway(instance(), "MG", mq, QueueOffset(100))).ok());
  cluster().run_for(1s);
  auto out = std::make_shared<Deliveries>();
  auto c = add_push_consumer("consumer-1", push_config("MG"), {"M", out});
  ASSERT_TRUE(eventually([&] { return push(c).stats().offsets_moved >= 1; }, 60s)) << seed_text();
  // The broker's offset (6) is committed, not left at 100.
  EXPECT_TRUE(wait_progress("MG", "M", [](const QueueProgress& q) { return q.consumer_offset.value() == 6; }, 60s))
      << seed_text();
  std::set<std::string> after = send_n("M", 5, "after");
  ASSERT_TRUE(wait_all(out, after, 60s)) << out->count_by_body.size() << " delivered" << seed_text();
  cluster().run_for(5s);
  EXPECT_EQ(out->bodies(), after) << "only what lies at or after the broker's offset" << seed_text();
  EXPECT_TRUE(wait_progress("MG", "M", [](const QueueProgress& q) { return q.lag() == 0; }, 60s)) << seed_text();
}

TEST_F(ConsumerTest, TagFilterDeliversOnlyExactTags) {
  boot({"broker-a"}, {{"F", 2}});
  // "Aa" and "BB" have the same Java hashCode: the broker's hash filter passes both; the client
  // must drop "BB".
  ASSERT_EQ(tags_code("Aa"), tags_code("BB"));
  auto out = std::make_shared<Deliveries>();
  add_push_consumer("consumer-1", push_config("FG"), {"F", out, "Aa || TagA"});
  std::set<std::string> want;
  for (int i = 0; i < 30; ++i) {
    const char* tag = i % 3 == 0 ? "Aa" : (i % 3 == 1 ? "BB" : "TagA");
    std::set<std::string> one = send_n("F", 1, numbered(std::string(tag) + "-", i), tag);
    if (i % 3 != 1) want.insert(one.begin(), one.end());
  }
  ASSERT_TRUE(wait_all(out, want, 60s)) << seed_text();
  cluster().run_for(20s);
  EXPECT_EQ(out->bodies(), want) << seed_text();
}

TEST_F(ConsumerTest, ConsumeFromFirstLastAndTimestamp) {
  // A small "memory" so that the broker treats the first message as on disk and answers
  // QUERY_CONSUMER_OFFSET with QUERY_NOT_FOUND for a new group (else LAST starts at 0, as RocketMQ).
  broker_config_.total_memory_bytes = 1000;
  boot({"broker-a"}, {{"W", 1}});
  std::set<std::string> old = send_n("W", 10, "old");
  cluster().run_for(2s);
  // Messages carry the broker's store time: the timestamp is read on the broker's clock (every
  // node's wall clock has its own skew under swarm).
  const WallMs between = world().node(cluster().broker_node(0)).wall_ms();
  cluster().run_for(2s);
  std::set<std::string> mid = send_n("W", 10, "mid");
  cluster().run_for(1s);

  auto first = std::make_shared<Deliveries>();
  auto last = std::make_shared<Deliveries>();
  auto stamp = std::make_shared<Deliveries>();
  PushConsumerConfig pc = push_config("G-FIRST");
  add_push_consumer("c-first", pc, {"W", first});
  pc.group = "G-LAST";
  pc.consume_from_where = ConsumeFromWhere::CONSUME_FROM_LAST_OFFSET;
  add_push_consumer("c-last", pc, {"W", last});
  pc.group = "G-STAMP";
  pc.consume_from_where = ConsumeFromWhere::CONSUME_FROM_TIMESTAMP;
  pc.consume_timestamp_ms = between;
  add_push_consumer("c-stamp", pc, {"W", stamp});
  cluster().run_for(10s);  // all three hold the queue now
  std::set<std::string> fresh = send_n("W", 5, "new");

  std::set<std::string> all = old;
  all.insert(mid.begin(), mid.end());
  all.insert(fresh.begin(), fresh.end());
  std::set<std::string> since = mid;
  since.insert(fresh.begin(), fresh.end());
  ASSERT_TRUE(wait_all(first, all, 60s)) << seed_text();
  ASSERT_TRUE(wait_all(last, fresh, 60s)) << seed_text();
  ASSERT_TRUE(wait_all(stamp, since, 60s)) << seed_text();
  cluster().run_for(5s);
  EXPECT_EQ(first->bodies(), all);
  EXPECT_EQ(last->bodies(), fresh);
  EXPECT_EQ(stamp->bodies(), since);
}

}  // namespace
}  // namespace ferry::client::testing
