// The broker's metrics (broker_metrics.h) on a simulated broker, read as the Prometheus endpoint
// and the simulator's sampler read them (Registry::collect): what sends, pulls, commits, delayed
// messages and refused requests do to them, and the cap on per-topic series.
#include "broker/broker_metrics.h"

#include "common/metrics.h"
#include "tests/broker/broker_fixture.h"
#include "tests/support/broker_inspector.h"

namespace ferry::broker::testing {
namespace {

using ferry::testing::BrokerInspector;

using namespace std::chrono_literals;

class BrokerMetricsTest : public BrokerTest {
 protected:
  metrics::Snapshot snap() { return broker().metrics().collect(); }
};

TEST_F(BrokerMetricsTest, SendsPullsAndCommitsShowAsRocketMqsSeries) {
  boot();
  for (int i = 0; i < 5; ++i) ASSERT_EQ(send(Msg{}).reply.code, code::SUCCESS);
  Msg delayed;
  delayed.set("DELAY", "1");
  ASSERT_EQ(send(delayed).reply.code, code::SUCCESS);

  metrics::Snapshot s = snap();
  EXPECT_EQ(s.common_labels[0], (std::pair<std::string, std::string>{"cluster", broker().config().broker_cluster_name}));
  EXPECT_EQ(s.value("rocketmq_messages_in_total", {"T", "normal", "false"}), 5);
  EXPECT_EQ(s.value("rocketmq_messages_in_total", {"T", "delay", "false"}), 1);
  // No series for a message type nobody sent.
  EXPECT_EQ(s.family("rocketmq_messages_in_total")->find({"T", "fifo", "false"}), nullptr);
  const double bytes = s.value("rocketmq_throughput_in_total", {"T", "normal", "false"});
  EXPECT_EQ(bytes, static_cast<double>(broker().stats().totals().put_bytes) -
                       s.value("rocketmq_throughput_in_total", {"T", "delay", "false"}));
  const metrics::Sample* size = s.family("rocketmq_message_size")->find({"T", "normal", "false"});
  ASSERT_NE(size, nullptr);
  EXPECT_EQ(size->value, 5);
  EXPECT_EQ(size->bucket_counts[0], 5u);  // records of a few hundred bytes: the 1 KiB bucket
  EXPECT_EQ(s.value("rocketmq_rpc_latency_milliseconds",
                    {"remoting", "send_message_v2", "success", "false", "success"}),
            6);

  // A consumer pulls 3 of queue 0 and commits 1: lag counts from the commit, inflight is what it
  // pulled beyond it, ready what it has not pulled.
  Pull p;
  p.max = 3;
  Call pulled = pull(p);
  ASSERT_EQ(pulled.reply.code, code::SUCCESS) << pulled.remark();
  ASSERT_EQ(call(update_offset_request("CG", "T", 0, 1)).reply.code, code::SUCCESS);
  s = snap();
  EXPECT_EQ(s.value("rocketmq_messages_out_total", {"T", "CG", "false", "false"}), 3);
  EXPECT_EQ(s.value("rocketmq_consumer_lag_messages", {"CG", "T", "false", "false"}), 4);
  EXPECT_EQ(s.value("rocketmq_consumer_inflight_messages", {"CG", "T", "false", "false"}), 2);
  EXPECT_EQ(s.value("rocketmq_consumer_ready_messages", {"CG", "T", "false", "false"}), 2);
  EXPECT_GE(s.value("rocketmq_consumer_lag_latency_milliseconds", {"CG", "T", "false", "false"}), 0);
  EXPECT_EQ(s.value("rocketmq_topic_number"), static_cast<double>(BrokerInspector(broker()).topics().table().size()));
  EXPECT_EQ(s.value("ferry_broker_role", {"master"}), 1);
  EXPECT_EQ(s.value("ferry_store_commitlog_max_offset_bytes"), static_cast<double>(broker().store().max_phy_offset().value()));

  // The consumer commits everything: no lag left.
  ASSERT_EQ(call(update_offset_request("CG", "T", 0, 5)).reply.code, code::SUCCESS);
  s = snap();
  EXPECT_EQ(s.value("rocketmq_consumer_lag_messages", {"CG", "T", "false", "false"}), 0);
  EXPECT_EQ(s.value("rocketmq_consumer_lag_latency_milliseconds", {"CG", "T", "false", "false"}), 0);
}

TEST_F(BrokerMetricsTest, ALongPollIsLabelledAndRefusalsAreCountedByReason) {
  without_buggify("a buggified pull is answered at once instead of held");
  boot();
  ASSERT_EQ(send(Msg{}).reply.code, code::SUCCESS);
  Pull p;
  p.offset = 1;  // past the one message: the pull waits for the next
  p.suspend = true;
  p.suspend_ms = 1'000;
  Call held = pull(p);
  EXPECT_EQ(held.reply.code, code::PULL_NOT_FOUND);
  metrics::Snapshot s = snap();
  EXPECT_EQ(s.value("rocketmq_rpc_latency_milliseconds",
                    {"remoting", "pull_message", "pull_not_found", "true", "success"}),
            1);
  const metrics::Sample* h = s.family("rocketmq_rpc_latency_milliseconds")
                                 ->find({"remoting", "pull_message", "pull_not_found", "true", "success"});
  ASSERT_NE(h, nullptr);
  EXPECT_GE(h->sum, 900.0) << "a held pull's latency is its hold";

  // A request code nobody serves.
  ASSERT_EQ(call(remoting::make_request(31'999, 0)).reply.code, code::REQUEST_CODE_NOT_SUPPORTED);
  s = snap();
  EXPECT_EQ(s.value("ferry_requests_refused_total", {"request_code_not_supported"}), 1);
  EXPECT_EQ(s.value("rocketmq_rpc_latency_milliseconds",
                    {"remoting", "31999", "request_code_not_supported", "false", "success"}),
            1);
}

TEST_F(BrokerMetricsTest, PerTopicSeriesStopAtTheCapAndCountTheRestAsOther) {
  config_.stats_keys_max = 4;
  boot();
  for (int i = 0; i < 10; ++i) {
    Msg m;
    m.topic = "T" + std::to_string(i);
    ASSERT_EQ(send(m).reply.code, code::SUCCESS);
  }
  const metrics::Snapshot s = snap();
  const metrics::FamilySnapshot* in = s.family("rocketmq_messages_in_total");
  ASSERT_NE(in, nullptr);
  EXPECT_EQ(in->samples.size(), 5u) << "4 topics and the overflow series";
  EXPECT_EQ(s.total("rocketmq_messages_in_total"), 10) << "nothing is lost, only folded";
  EXPECT_EQ(s.value("rocketmq_messages_in_total", {metrics::kOverflowValue, metrics::kOverflowValue, metrics::kOverflowValue}), 6);
  EXPECT_EQ(in->overflowed, 6u);
}

}  // namespace
}  // namespace ferry::broker::testing
