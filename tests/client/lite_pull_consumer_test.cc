// Lite pull consumer: poll returns what was sent, commit reaches the broker, seek rewinds, a
// restart resumes from the committed offsets, and assign() holds exactly the given queues.
#include "consumer_fixture.h"

namespace ferry::client::testing {
namespace {

using namespace std::chrono_literals;

class LitePullTest : public ConsumerTest {
 protected:
  sim::NodeId add_lite(const std::string& name, LitePullConsumerConfig lc, std::function<void(LitePullConsumer&)> setup) {
    ClientConfig cc = client_config();
    cc.instance_name = name;
    return world_.add_node(name, [cc, lc, setup](Runtime& rt) {
      auto a = std::make_unique<ConsumerApp>(rt, cc, lc);
      setup(*a->lite);
      Status s = a->lite->start();
      FERRY_ASSERT(s.ok(), "lite start: {}", s.ok() ? "" : s.error().to_string());
      return sim::hosted(std::move(a));
    });
  }
  LitePullConsumer& lite(sim::NodeId id) { return *app(id).lite; }

  static Task<std::vector<MessageExt>> poll_until(LitePullConsumer* c, std::size_t want, Duration each, int rounds) {
    std::vector<MessageExt> got;
    for (int i = 0; i < rounds && got.size() < want; ++i) {
      std::vector<MessageExt> b = co_await c->poll(each);
      for (MessageExt& m : b) got.push_back(std::move(m));
    }
    co_return got;
  }
  std::vector<MessageExt> poll_on(sim::NodeId id, std::size_t want, int rounds = 40) {
    auto r = world_.run_task(id, poll_until(&lite(id), want, 1s, rounds), 120s);
    EXPECT_TRUE(r.ok()) << r.report.message << seed_text();
    return r.value ? std::move(*r.value) : std::vector<MessageExt>();
  }
  static std::set<std::string> bodies(const std::vector<MessageExt>& ms) {
    std::set<std::string> s;
    for (const MessageExt& m : ms) s.insert(body_text(m));
    return s;
  }
};

TEST_F(LitePullTest, PollCommitSeekAndRestart) {
  boot({"broker-a"});
  create_topic("L", 2);
  LitePullConsumerConfig lc;
  lc.group = "LG";
  lc.auto_commit = false;
  lc.consume_from_where = ConsumeFromWhere::CONSUME_FROM_FIRST_OFFSET;
  auto c = add_lite("lite-1", lc, [](LitePullConsumer& l) { ASSERT_TRUE(l.subscribe("L", "*").ok()); });
  std::set<std::string> sent = send_n("L", 30, "l");
  std::vector<MessageExt> got = poll_on(c, 30);
  EXPECT_EQ(bodies(got), sent) << seed_text();
  EXPECT_EQ(lite(c).assignment().size(), 2u);
  // An empty poll waits for its timeout.
  const MonoTime before = world_.node(c).now();
  std::vector<MessageExt> none = poll_on(c, 1, 1);
  EXPECT_TRUE(none.empty());
  EXPECT_GE(world_.node(c).now() - before, 1s);

  // Manual commit reaches the broker.
  auto cr = world_.run_task(c, lite(c).commit(), 10s);
  ASSERT_TRUE(cr.ok()) << cr.report.message;
  world_.run_for(1s);
  Result<std::vector<QueueProgress>> prog = run(admin().consumer_progress("LG", "L"));
  ASSERT_TRUE(prog.ok()) << prog.error().to_string();
  for (const QueueProgress& q : *prog) EXPECT_EQ(q.lag(), 0) << q.queue.to_string();

  // Seek rewinds one queue to its start.
  const MessageQueue mq0{"L", "broker-a", QueueId(0)};
  auto sr = world_.run_task(c, lite(c).seek(mq0, QueueOffset(0)), 10s);
  ASSERT_TRUE(sr.ok() && sr.value->ok()) << seed_text();
  std::size_t in_q0 = 0;
  for (const MessageExt& m : got) in_q0 += m.queue_id == QueueId(0);
  std::vector<MessageExt> again = poll_on(c, in_q0);
  EXPECT_EQ(again.size(), in_q0);
  for (const MessageExt& m : again) EXPECT_EQ(m.queue_id, QueueId(0));
  auto bad = world_.run_task(c, lite(c).seek(mq0, QueueOffset(1000)), 10s);
  ASSERT_TRUE(bad.ok());
  EXPECT_FALSE(bad.value->ok()) << "beyond the max offset";

  // Restart: resumes from the committed offsets (both queues were committed at their ends;
  // with auto_commit off, shutdown persists the store as it is).
  stop_consumer(c);
  world_.start(c);
  std::set<std::string> more = send_n("L", 6, "m");
  std::vector<MessageExt> after = poll_on(c, 6);
  EXPECT_EQ(bodies(after), more) << seed_text();
}

TEST_F(LitePullTest, AutoCommitAndAssign) {
  boot({"broker-a"});
  create_topic("L", 2);
  LitePullConsumerConfig lc;
  lc.group = "LG2";
  lc.consume_from_where = ConsumeFromWhere::CONSUME_FROM_FIRST_OFFSET;
  const MessageQueue mq1{"L", "broker-a", QueueId(1)};
  auto c = add_lite("lite-1", lc, [mq1](LitePullConsumer& l) { ASSERT_TRUE(l.assign({mq1}).ok()); });
  std::set<std::string> sent = send_n("L", 20, "a");
  std::vector<MessageExt> got = poll_on(c, 10, 5);
  ASSERT_FALSE(got.empty());
  for (const MessageExt& m : got) EXPECT_EQ(m.queue_id, QueueId(1));
  EXPECT_EQ(lite(c).assignment(), std::vector<MessageQueue>{mq1});
  world_.run_for(12s);  // auto commit (5 s tick)
  Result<std::vector<QueueProgress>> prog = run(admin().consumer_progress("LG2", "L"));
  ASSERT_TRUE(prog.ok()) << prog.error().to_string();
  bool found = false;
  for (const QueueProgress& q : *prog) {
    if (q.queue == mq1) {
      found = true;
      EXPECT_EQ(q.consumer_offset.value(), got.back().queue_offset.value() + 1);
    }
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace ferry::client::testing
