// A broker group whose master is gone: consumers (push concurrent, push orderly, lite pull) pull
// from the slave and commit their offsets there, and return to the master when it is back, which
// then holds the offsets they committed; producers send to the other groups and never to a slave.
//
// These tests were written before replication and check where the requests go and what the
// brokers keep (the consumers have consumed everything before the master dies). With the HA link
// copying the CommitLog, the assertion that matters most joins master_away_and_back(): messages sent before the master died and not
// yet consumed are consumed from the slave while it is away (concurrent and lite: all of them;
// orderly: only until its queue locks expire, lock_max_live_time, as the locks live on the
// master).
#include "broker/broker_stats.h"
#include "tests/support/broker_inspector.h"
#include "tests/support/client_consumer_fixture.h"

using ferry::testing::BrokerInspector;

namespace ferry::client::testing {
namespace {

using namespace std::chrono_literals;

constexpr std::int32_t kQueues = 4;

// What the slave saw of UPDATE_CONSUMER_OFFSET and SEND_MESSAGE*: the test's own record, outside
// every node.
struct SlaveLog {
  std::int64_t offset_updates = 0;
  std::int64_t sends = 0;
};

class SlaveReadTest : public ConsumerTest {
 protected:
  // One group "broker-a" (master + slave) and, with `second_group`, "broker-b"; topic T on every
  // group. The masters write consumerOffset.json only at a graceful stop (the periodic flush is an
  // hour away), so a killed master comes back without the offsets it held: what it holds after
  // its return is what the consumers sent it since.
  void boot_groups(bool second_group = false) {
    broker_config_.flush_consumer_offset_interval = 1h;
    std::vector<std::string> groups = {"broker-a"};
    if (second_group) groups.push_back("broker-b");
    sim::cluster::ClusterSpec spec = cluster_spec(groups, {TopicSpec{"T", kQueues}}, 1);
    spec.brokers.at(0).slaves = 1;
    boot(std::move(spec));
    const std::optional<std::size_t> s = cluster().slave_index(0);
    if (!s) cannot_continue("the cluster has no slave for broker-a");
    slave_ = *s;
    mirror_topic_to_slave();
    watch_slave();
  }

  // The harness creates topics on masters only and the slave's metadata sync copies them within
  // its 10 s period; the test gives the slave the topic at once, as the sync would.
  void mirror_topic_to_slave() {
    const broker::TopicConfig* t = BrokerInspector(broker(0)).topics().find("T");
    if (t == nullptr) cannot_continue("the master has no topic T");
    const Status s = BrokerInspector(broker(slave_)).put_topic(*t);
    if (!s.ok()) cannot_continue("the slave refused topic T: " + s.error().to_string());
  }

  // The slave counts what reaches it and serves it as before (UPDATE_CONSUMER_OFFSET stored; a
  // send refused with SERVICE_NOT_AVAILABLE, as a slave does).
  void watch_slave() {
    broker::Broker* b = &broker(slave_);
    std::shared_ptr<SlaveLog> log = slave_log_;
    b->register_processor(remoting::request_code::UPDATE_CONSUMER_OFFSET, [b, log](remoting::RequestContext ctx) {
      ++log->offset_updates;
      return store_offset(b, std::move(ctx));
    });
    for (std::int32_t send_code : {remoting::request_code::SEND_MESSAGE, remoting::request_code::SEND_MESSAGE_V2,
                                   remoting::request_code::SEND_BATCH_MESSAGE}) {
      b->register_processor(send_code, [log](remoting::RequestContext ctx) { return refuse_send(log, std::move(ctx)); });
    }
  }
  static Task<std::optional<remoting::RemotingCommand>> store_offset(broker::Broker* b, remoting::RequestContext ctx) {
    auto h = remoting::UpdateConsumerOffsetRequestHeader::from_fields(ctx.request.ext_fields);
    if (!h) co_return remoting::make_response(ctx.request, remoting::response_code::SYSTEM_ERROR, h.error().to_string());
    const Status stored = BrokerInspector(*b).commit_offset(h->consumer_group, h->topic, h->queue_id, h->commit_offset);
    if (ctx.request.is_oneway()) co_return std::nullopt;
    if (!stored) co_return remoting::make_response(ctx.request, remoting::response_code::SYSTEM_ERROR, stored.error().detail);
    co_return remoting::make_response(ctx.request, remoting::response_code::SUCCESS, "");
  }
  static Task<std::optional<remoting::RemotingCommand>> refuse_send(std::shared_ptr<SlaveLog> log, remoting::RequestContext ctx) {
    ++log->sends;
    co_return remoting::make_response(ctx.request, remoting::response_code::SERVICE_NOT_AVAILABLE,
                                      "the broker is a slave; send to its master");
  }

  static std::int64_t pull_looks(const broker::Broker& b) {
    return b.stats().totals().pull_looks_found + b.stats().totals().pull_looks_missed;
  }
  std::int64_t slave_pull_looks() { return pull_looks(broker(slave_)); }

  // Per queue of T on broker-a: the master's max offset (every message consumed: the offset a
  // consumer commits).
  std::map<std::int32_t, QueueOffset> master_max_offsets() {
    std::map<std::int32_t, QueueOffset> m;
    for (std::int32_t q = 0; q < kQueues; ++q) m[q] = broker(0).store().max_offset("T", QueueId(q));
    return m;
  }
  // Whether broker `i` holds exactly `want` for group `group` on every queue of T.
  bool holds(std::size_t i, const std::string& group, const std::map<std::int32_t, QueueOffset>& want) {
    broker::Broker* b = cluster().broker(i);
    if (b == nullptr) return false;
    for (const auto& [q, offset] : want) {
      if (b->offsets().query(group, "T", QueueId(q)) != std::optional<QueueOffset>(offset)) return false;
    }
    return true;
  }
  std::string offsets_text(std::size_t i, const std::string& group) {
    broker::Broker* b = cluster().broker(i);
    if (b == nullptr) return "down";
    std::string s;
    for (std::int32_t q = 0; q < kQueues; ++q) {
      const auto o = b->offsets().query(group, "T", QueueId(q));
      s += fmt::format("{}{}:{}", s.empty() ? "" : " ", q, o ? std::to_string(o->value()) : "-");
    }
    return s;
  }

  // The whole story for a consumer node `c` of `group` that has consumed everything sent so far
  // through `consume` (which sends and waits for consumption, and is called again after the
  // master's return).
  void master_away_and_back(sim::NodeId c, const std::string& group, const std::function<void(const std::string&)>& consume) {
    consume("before-");
    const std::map<std::int32_t, QueueOffset> want = master_max_offsets();
    ASSERT_TRUE(eventually([&] { return holds(0, group, want); }, 60s))
        << "master: " << offsets_text(0, group) << seed_text();
    ASSERT_EQ(slave_log_->offset_updates, 0) << "offsets went to the slave while the master was there";

    // The master dies; once the route has only the slave the consumer pulls there and commits its
    // offsets there (NameServer expiry at most 120 s + a 10 s scan, then a 30 s route poll).
    const std::int64_t looks_before = slave_pull_looks();
    cluster().kill(cluster().broker_node(0));
    EXPECT_TRUE(eventually([&] { return slave_pull_looks() > looks_before; }, 240s))
        << "no pull reached the slave" << seed_text();
    EXPECT_TRUE(eventually([&] { return slave_log_->offset_updates > 0 && holds(slave_, group, want); }, 60s))
        << "slave: " << offsets_text(slave_, group) << ", " << slave_log_->offset_updates << " updates" << seed_text();

    // The master comes back without offsets; the consumer's next persist rounds bring them, and
    // its pulls go back to the master.
    cluster().start(cluster().broker_node(0));
    wait_running(0);
    EXPECT_TRUE(eventually([&] { return holds(0, group, want); }, 120s))
        << "master after its return: " << offsets_text(0, group) << seed_text();
    EXPECT_TRUE(eventually([&] { return pull_looks(broker(0)) > 0; }, 120s)) << "no pull reached the master" << seed_text();
    // A long poll parked on the slave is answered within its suspend time (15 s) and then the
    // consumer follows the slave's suggestion (0) to the master: nothing reaches the slave after.
    cluster().run_for(40s);
    const std::int64_t settled = slave_pull_looks();
    cluster().run_for(60s);
    EXPECT_EQ(slave_pull_looks(), settled) << "pulls still reach the slave" << seed_text();

    consume("after-");
    const std::map<std::int32_t, QueueOffset> later = master_max_offsets();
    EXPECT_TRUE(eventually([&] { return holds(0, group, later); }, 60s))
        << "master: " << offsets_text(0, group) << seed_text();
    (void)c;
  }

  std::size_t slave_ = 0;
  std::shared_ptr<SlaveLog> slave_log_ = std::make_shared<SlaveLog>();
};

TEST_F(SlaveReadTest, PushConsumerCommitsToTheSlaveWhileTheMasterIsAwayAndReturns) {
  boot_groups();
  auto out = std::make_shared<Deliveries>();
  const sim::NodeId c = add_push_consumer("consumer-1", push_config("CG"), {"T", out});
  master_away_and_back(c, "CG", [&](const std::string& prefix) {
    const std::set<std::string> sent = send_n("T", 20, prefix);
    ASSERT_TRUE(wait_all(out, sent, 120s)) << seed_text();
  });
}

// What the master held when it died reaches the consumer from the slave: the consumer is paused
// while 20 messages are sent (and replicated), the master is killed, the consumer resumes, and
// every one of them is consumed from the slave.
TEST_F(SlaveReadTest, PushConsumerReadsFromTheSlaveWhatTheDeadMasterHeld) {
  boot_groups();
  auto out = std::make_shared<Deliveries>();
  const sim::NodeId c = add_push_consumer("consumer-1", push_config("CG"), {"T", out});
  const std::set<std::string> before = send_n("T", 10, "before-");
  ASSERT_TRUE(wait_all(out, before, 120s)) << seed_text();

  cluster().pause(c);
  const std::set<std::string> away = send_n("T", 20, "away-");
  ASSERT_TRUE(eventually(
      [&] {
        broker::Broker* s = cluster().broker(slave_);
        return s != nullptr && s->store().max_phy_offset() == broker(0).store().max_phy_offset() &&
               s->store().reput_offset() == s->store().max_phy_offset();
      },
      60s))
      << "the slave did not catch up" << seed_text();
  const std::int64_t looks_before = slave_pull_looks();
  cluster().kill(cluster().broker_node(0));
  cluster().resume(c);
  ASSERT_TRUE(wait_all(out, away, 240s)) << "messages the dead master held were not consumed from the slave" << seed_text();
  EXPECT_GT(slave_pull_looks(), looks_before) << seed_text();
}

TEST_F(SlaveReadTest, OrderlyConsumerCommitsToTheSlaveWhileTheMasterIsAwayAndReturns) {
  boot_groups();
  auto out = std::make_shared<Deliveries>();
  const sim::NodeId c = add_push_node("consumer-1", push_config("OG"), [out](PushConsumer& pc, Runtime& rt) {
    ASSERT_TRUE(pc.subscribe("T", "*").ok());
    pc.set_listener([out, r = &rt](const std::vector<MessageExt>& msgs, ConsumeOrderlyContext& ctx) {
      for (const MessageExt& m : msgs) out->record("consumer-1", m, ctx.queue, r->now());
      return ConsumeOrderlyStatus::SUCCESS;
    });
  });
  master_away_and_back(c, "OG", [&](const std::string& prefix) {
    const std::set<std::string> sent = send_n("T", 20, prefix);
    ASSERT_TRUE(wait_all(out, sent, 120s)) << seed_text();
  });
}

TEST_F(SlaveReadTest, LitePullConsumerCommitsToTheSlaveWhileTheMasterIsAwayAndReturns) {
  boot_groups();
  const sim::NodeId c = add_lite_consumer("lite-1", lite_config("LG"), [](LitePullConsumer& l) {
    ASSERT_TRUE(l.subscribe("T", "*").ok());
  });
  master_away_and_back(c, "LG", [&](const std::string& prefix) {
    const std::set<std::string> sent = send_n("T", 20, prefix);
    std::set<std::string> got;
    const MonoTime until = client_rt().now() + 120s;
    while (got.size() < sent.size() && client_rt().now() < until) {
      std::vector<MessageExt> batch = run_on(c, lite(c).poll(1s));
      for (const MessageExt& m : batch) got.insert(body_text(m));
    }
    ASSERT_EQ(got, sent) << seed_text();
  });
}

TEST_F(SlaveReadTest, ProducerSendsToTheOtherGroupAndNeverToTheSlave) {
  boot_groups(true);
  Producer& p = producer();
  auto send_some = [&](int n, const std::string& prefix) {
    std::map<std::string, int> by_broker;
    for (int i = 0; i < n; ++i) {
      Result<SendResult> r = run(p.send(text_message("T", numbered(prefix, i))));
      EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().to_string()) << seed_text();
      if (r.ok()) ++by_broker[r->queue.broker_name];
    }
    return by_broker;
  };
  std::map<std::string, int> before = send_some(16, "before-");
  EXPECT_GT(before["broker-a"], 0);
  EXPECT_GT(before["broker-b"], 0);

  // The master of broker-a dies; once the producer's route has only its slave, every send goes
  // to broker-b, and none to the slave.
  cluster().kill(cluster().broker_node(0));
  ASSERT_TRUE(eventually(
      [&] {
        std::optional<TopicRouteData> r = instance().route("T");
        if (!r) return false;
        for (const auto& b : r->broker_datas) {
          if (b.broker_name == "broker-a") return !b.broker_addrs.contains(kMasterId) && !b.broker_addrs.empty();
        }
        return false;
      },
      240s))
      << "the producer's route still has broker-a's master" << seed_text();
  std::map<std::string, int> away = send_some(40, "away-");
  EXPECT_EQ(away["broker-a"], 0);
  EXPECT_EQ(away["broker-b"], 40);
  EXPECT_EQ(slave_log_->sends, 0) << "sends reached the slave" << seed_text();
  EXPECT_EQ(broker(slave_).stats().totals().put_messages, 0);

  // Back: broker-a takes sends again.
  cluster().start(cluster().broker_node(0));
  wait_running(0);
  ASSERT_TRUE(eventually(
      [&] {
        const TopicPublishInfo* info = instance().find_publish_info("T");
        if (info == nullptr) return false;
        for (const MessageQueue& mq : info->queues()) {
          if (mq.broker_name == "broker-a") return true;
        }
        return false;
      },
      120s))
      << "broker-a's queues did not come back to the producer" << seed_text();
  std::map<std::string, int> back = send_some(16, "back-");
  EXPECT_GT(back["broker-a"], 0);
  EXPECT_EQ(slave_log_->sends, 0);
}

}  // namespace
}  // namespace ferry::client::testing
