// Lite pull consumer: poll returns what was sent, commit reaches the broker, seek rewinds, a
// restart resumes from the committed offsets, and assign() holds exactly the given queues. An
// SQL92 selector, on a lite pull and a push consumer, gets exactly what it selects.
#include "tests/support/broker_inspector.h"
#include "tests/support/client_consumer_fixture.h"

using ferry::testing::BrokerInspector;

namespace ferry::client::testing {
namespace {

using namespace std::chrono_literals;

class LitePullTest : public ConsumerTest {
 protected:
  // Polls (1 s each) until `want` messages came or `patience` passed on the node's clock. A pull's
  // reply may come as late as its 30 s timeout (a slow network), so waiting for messages takes a
  // patience past that; a poll for "nothing arrives" takes a short one.
  static Task<std::vector<MessageExt>> poll_until(LitePullConsumer* c, Runtime* rt, std::size_t want, Duration patience) {
    std::vector<MessageExt> got;
    const MonoTime until = rt->now() + patience;
    do {
      std::vector<MessageExt> b = co_await c->poll(std::chrono::seconds(1));
      for (MessageExt& m : b) got.push_back(std::move(m));
    } while (got.size() < want && rt->now() < until);
    co_return got;
  }
  std::vector<MessageExt> poll_on(sim::NodeId id, std::size_t want, Duration patience = 90s) {
    return run_on(id, poll_until(&lite(id), &node_rt(id), want, patience), patience + 30s);
  }
  // The offset the broker holds for `mq` once it is `want` (commit() persists with a oneway
  // request, which may be lost; the 5 s persist round sends it again), else the last one read.
  std::optional<QueueOffset> committed_at_broker(sim::NodeId id, const MessageQueue& mq, QueueOffset want) {
    std::optional<QueueOffset> last;
    for (int i = 0; i < 30; ++i) {
      const Result<std::optional<QueueOffset>> cr = run_on(id, lite(id).committed(mq));
      EXPECT_TRUE(cr.ok()) << mq.to_string() << ": " << cr.error().to_string();
      if (cr.ok()) last = *cr;
      if (last == std::optional<QueueOffset>(want)) break;
      cluster().run_for(1s);
    }
    return last;
  }
  static std::set<std::string> bodies(const std::vector<MessageExt>& ms) {
    std::set<std::string> s;
    for (const MessageExt& m : ms) s.insert(body_text(m));
    return s;
  }
};

TEST_F(LitePullTest, PollCommitSeekAndRestart) {
  boot({"broker-a"}, {{"L", 2}});
  LitePullConsumerConfig lc = lite_config("LG");
  lc.auto_commit = false;
  auto c = add_lite_consumer("lite-1", lc, [](LitePullConsumer& l) { ASSERT_TRUE(l.subscribe("L", "*").ok()); });
  std::set<std::string> sent = send_n("L", 30, "l");
  std::vector<MessageExt> got = poll_on(c, 30);
  EXPECT_EQ(bodies(got), sent) << seed_text();
  EXPECT_EQ(lite(c).assignment().size(), 2u);
  // An empty poll waits for its timeout.
  const MonoTime before = node_rt(c).now();
  std::vector<MessageExt> none = poll_on(c, 1, 0s);
  EXPECT_TRUE(none.empty());
  EXPECT_GE(node_rt(c).now() - before, 1s);

  // Manual commit reaches the broker (its oneway request may be lost; the persist round repeats it).
  run_on(c, lite(c).commit());
  EXPECT_TRUE(wait_progress("LG", "L", [](const QueueProgress& q) { return q.lag() == 0; }, 30s)) << seed_text();

  // Seek rewinds one queue to its start.
  const MessageQueue mq0{"L", "broker-a", QueueId(0)};
  const Status sr = run_on(c, lite(c).seek(mq0, QueueOffset(0)));
  ASSERT_TRUE(sr.ok()) << sr.error().to_string() << seed_text();
  std::size_t in_q0 = 0;
  for (const MessageExt& m : got) in_q0 += m.queue_id == QueueId(0);
  std::vector<MessageExt> again = poll_on(c, in_q0);
  EXPECT_EQ(again.size(), in_q0);
  for (const MessageExt& m : again) EXPECT_EQ(m.queue_id, QueueId(0));
  EXPECT_FALSE(run_on(c, lite(c).seek(mq0, QueueOffset(1000))).ok()) << "beyond the max offset";

  // Restart: resumes from the committed offsets (both queues were committed at their ends;
  // with auto_commit off, shutdown persists the store as it is).
  stop_consumer(c);
  cluster().start(c);
  std::set<std::string> more = send_n("L", 6, "m");
  std::vector<MessageExt> after = poll_on(c, 6);
  EXPECT_EQ(bodies(after), more) << seed_text();
}

// An SQL92 selector (enablePropertyFilter on the brokers): the brokers select by properties, and
// the push consumer (heartbeat and pulls carry expressionType SQL92) gets exactly that; a lite
// pull consumer of another group, subscribing with the same selector, too.
TEST_F(LitePullTest, Sql92SelectorDeliversExactlyWhatTheExpressionSelects) {
  broker_config_.enable_property_filter = true;
  boot({"broker-a", "broker-b"}, {{"S", 2}});
  const MessageSelector selector = MessageSelector::by_sql("(price > 50 AND region IN ('eu', 'us')) OR vip = TRUE");
  auto out = std::make_shared<Deliveries>();
  add_push_node("consumer-1", push_config("SqlG"), [out, selector](PushConsumer& c, Runtime& rt) {
    const Status s = c.subscribe("S", selector);
    EXPECT_TRUE(s.ok()) << "subscribe: " << s.error().to_string();
    c.set_listener([out, r = &rt](const std::vector<MessageExt>& msgs, ConsumeConcurrentlyContext& ctx) {
      for (const MessageExt& m : msgs) out->record("consumer-1", m, ctx.queue, r->now());
      return ConsumeConcurrentlyStatus::CONSUME_SUCCESS;
    });
  });
  const sim::NodeId lite_node = add_lite_consumer("lite-1", lite_config("SqlLite"), [selector](LitePullConsumer& c) {
    const Status s = c.subscribe("S", selector);
    EXPECT_TRUE(s.ok()) << "subscribe: " << s.error().to_string();
  });
  Producer& p = producer();
  std::set<std::string> want;
  const char* regions[] = {"eu", "us", "ap"};
  for (int i = 0; i < 60; ++i) {
    Message m = text_message("S", numbered("s", i));
    m.properties.set("price", std::to_string(i * 2));
    m.properties.set("region", regions[i % 3]);
    if (i % 10 == 0) m.properties.set("vip", "true");
    Result<SendResult> r = run(p.send(m));
    ASSERT_TRUE(r.ok()) << r.error().to_string() << seed_text();
    if ((i * 2 > 50 && i % 3 != 2) || i % 10 == 0) want.insert(numbered("s", i));
  }
  ASSERT_TRUE(wait_all(out, want, 60s)) << out->count_by_body.size() << " of " << want.size() << seed_text();
  cluster().run_for(10s);
  EXPECT_EQ(out->bodies(), want) << seed_text();

  // The lite pull consumer polls the same selection.
  std::set<std::string> polled;
  for (const MessageExt& m : poll_on(lite_node, want.size())) polled.insert(std::string(m.body.begin(), m.body.end()));
  EXPECT_EQ(polled, want) << seed_text();

  // A selector that does not compile fails subscribe(), naming where.
  PushConsumer probe(instance(), push_config("Probe"));
  const Status bad = probe.subscribe("S", MessageSelector::by_sql("price >"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().detail.find("line 1, column 8"), std::string::npos) << bad.error().detail;
}

TEST_F(LitePullTest, AutoCommitAndAssign) {
  boot({"broker-a"}, {{"L", 2}});
  LitePullConsumerConfig lc = lite_config("LG2");
  const MessageQueue mq1{"L", "broker-a", QueueId(1)};
  auto c = add_lite_consumer("lite-1", lc, [mq1](LitePullConsumer& l) { ASSERT_TRUE(l.assign({mq1}).ok()); });
  std::set<std::string> sent = send_n("L", 20, "a");
  std::vector<MessageExt> got = poll_on(c, 10);
  ASSERT_FALSE(got.empty()) << seed_text();
  for (const MessageExt& m : got) EXPECT_EQ(m.queue_id, QueueId(1));
  EXPECT_EQ(lite(c).assignment(), std::vector<MessageQueue>{mq1});
  // Auto commit (the 5 s persist tick, which may skip a round) brings the broker there.
  const std::int64_t want = got.back().queue_offset.value() + 1;
  EXPECT_TRUE(wait_progress("LG2", "L", [&](const QueueProgress& q) { return !(q.queue == mq1) || q.consumer_offset.value() == want; }, 60s))
      << seed_text();
  Result<std::vector<QueueProgress>> prog = run(admin().consumer_progress("LG2", "L"));
  ASSERT_TRUE(prog.ok()) << prog.error().to_string();
  bool found = false;
  for (const QueueProgress& q : *prog) {
    if (q.queue == mq1) {
      found = true;
      EXPECT_EQ(q.consumer_offset.value(), want);
    }
  }
  EXPECT_TRUE(found);
}

// pause() keeps a queue out of poll() (no new pulls, cached batches held back) until resume();
// seek_to_begin / seek_to_end move a queue to its min / max offset; committed() reads what
// commit() stored at the broker.
TEST_F(LitePullTest, PauseResumeSeekToBeginAndEnd) {
  boot({"broker-a"}, {{"P", 2}});
  LitePullConsumerConfig lc = lite_config("PLG");
  lc.auto_commit = false;
  const MessageQueue mq0{"P", "broker-a", QueueId(0)};
  const MessageQueue mq1{"P", "broker-a", QueueId(1)};
  auto c = add_lite_consumer("lite-1", lc, [mq0, mq1](LitePullConsumer& l) {
    ASSERT_TRUE(l.assign({mq0, mq1}).ok());
    l.pause({mq0});
  });
  EXPECT_TRUE(lite(c).is_paused(mq0));
  EXPECT_FALSE(lite(c).is_paused(mq1));
  // 10 messages to each queue.
  Producer& p = producer();
  std::set<std::string> in_q0, in_q1;
  for (int i = 0; i < 20; ++i) {
    const MessageQueue& mq = i % 2 == 0 ? mq0 : mq1;
    Result<SendResult> r = run(p.send_to(text_message("P", numbered("p", i)), mq));
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    (i % 2 == 0 ? in_q0 : in_q1).insert(numbered("p", i));
  }
  // While queue 0 is paused, polls return queue 1 only, however long they go on.
  std::vector<MessageExt> got = poll_on(c, in_q1.size());
  std::vector<MessageExt> more = poll_on(c, 1, 10s);
  got.insert(got.end(), more.begin(), more.end());
  EXPECT_EQ(bodies(got), in_q1) << seed_text();
  for (const MessageExt& m : got) EXPECT_EQ(m.queue_id, QueueId(1));
  EXPECT_EQ(lite(c).cached_messages(), 0u) << "nothing was pulled for the paused queue";

  // Resumed: queue 0's messages arrive, in queue order.
  lite(c).resume({mq0});
  EXPECT_FALSE(lite(c).is_paused(mq0));
  std::vector<MessageExt> resumed = poll_on(c, 10);
  EXPECT_EQ(bodies(resumed), in_q0) << seed_text();
  for (std::size_t i = 0; i < resumed.size(); ++i) {
    EXPECT_EQ(resumed[i].queue_id, QueueId(0));
    EXPECT_EQ(resumed[i].queue_offset.value(), static_cast<std::int64_t>(i));
  }

  // commit() and committed().
  run_on(c, lite(c).commit());
  for (const MessageQueue& mq : {mq0, mq1}) {
    EXPECT_EQ(committed_at_broker(c, mq, QueueOffset(10)), std::optional<QueueOffset>(QueueOffset(10))) << mq.to_string();
  }

  // seek_to_begin(queue 0) replays it; seek_to_end(queue 1) skips nothing new.
  const Status sb = run_on(c, lite(c).seek_to_begin(mq0));
  ASSERT_TRUE(sb.ok()) << sb.error().to_string() << seed_text();
  std::vector<MessageExt> replay = poll_on(c, 10);
  EXPECT_EQ(bodies(replay), in_q0) << seed_text();
  const Status se = run_on(c, lite(c).seek_to_end(mq1));
  ASSERT_TRUE(se.ok()) << se.error().to_string() << seed_text();
  EXPECT_TRUE(poll_on(c, 1, 2s).empty());

  // A batch cached before a pause is held back until resume().
  Result<SendResult> late = run(p.send_to(text_message("P", "late"), mq1));
  ASSERT_TRUE(late.ok());
  ASSERT_TRUE(eventually([&] { return lite(c).cached_messages() == 1; }, 60s)) << seed_text();
  lite(c).pause({mq1});
  EXPECT_TRUE(poll_on(c, 1, 3s).empty()) << seed_text();
  EXPECT_EQ(lite(c).cached_messages(), 1u);
  lite(c).resume({mq1});
  std::vector<MessageExt> after = poll_on(c, 1);
  ASSERT_EQ(after.size(), 1u) << seed_text();
  EXPECT_EQ(body_text(after.front()), "late");
  EXPECT_EQ(after.front().queue_offset.value(), 10);

  // Queues not held: ignored; seeking them is an error.
  const MessageQueue other{"P", "broker-a", QueueId(7)};
  lite(c).pause({other});
  EXPECT_FALSE(lite(c).is_paused(other));
  EXPECT_FALSE(run_on(c, lite(c).seek_to_end(other)).ok());
}

// committed() only reads: when commit()'s oneway UPDATE_CONSUMER_OFFSET was lost (a broker may
// drop one), the broker still has an older offset, and reading it must not replace the consumed
// offset the consumer persists next (else a restart re-delivers what was committed).
// committed() only reads: when commit()'s oneway UPDATE_CONSUMER_OFFSET was lost (a broker may
// drop one), the broker still has an older offset, and reading it must not replace the consumed
// offset the consumer persists next (else a restart re-delivers what was committed).
TEST_F(LitePullTest, CommittedReadsWithoutUndoingALostCommit) {
  boot({"broker-a"}, {{"C", 1}});
  drop_oneway_offset_updates(0);
  broker::Broker* b = &broker(0);
  const MessageQueue mq{"C", "broker-a", QueueId(0)};
  ASSERT_TRUE(BrokerInspector(*b).commit_offset("CLG", "C", QueueId(0), QueueOffset(0)).ok());  // an earlier run committed 0
  LitePullConsumerConfig lc = lite_config("CLG");
  lc.auto_commit = false;
  auto c = add_lite_consumer("lite-1", lc, [mq](LitePullConsumer& l) { ASSERT_TRUE(l.assign({mq}).ok()); });
  std::set<std::string> sent = send_n("C", 5, "c");
  EXPECT_EQ(bodies(poll_on(c, 5)), sent) << seed_text();
  run_on(c, lite(c).commit());  // its oneway update is lost
  const Result<std::optional<QueueOffset>> cr = run_on(c, lite(c).committed(mq));
  ASSERT_TRUE(cr.ok()) << cr.error().to_string();
  EXPECT_EQ(*cr, std::optional<QueueOffset>(QueueOffset(0))) << "the broker's (older) offset";
  // Shutdown persists (two-way) what was committed: the restart polls only what is new.
  stop_consumer(c);
  EXPECT_EQ(b->offsets().query("CLG", "C", QueueId(0)), std::optional<QueueOffset>(QueueOffset(5)));
  cluster().start(c);
  std::set<std::string> more = send_n("C", 2, "d");
  EXPECT_EQ(bodies(poll_on(c, 2)), more) << seed_text();
}

}  // namespace
}  // namespace ferry::client::testing
