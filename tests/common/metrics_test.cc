#include "common/metrics.h"

#include <gtest/gtest.h>

namespace ferry::metrics {
namespace {

TEST(MetricsTest, CountersGaugesAndHistogramsShowInTheSnapshotSortedByLabels) {
  Registry r;
  r.set_common_labels({{"cluster", "C"}, {"node_type", "broker"}, {"node_id", "b-a"}});
  auto& in = r.counter("rocketmq_messages_in_total", "Total number of incoming messages", {"topic", "is_system"});
  in.with({"TopicB", "false"}).inc(3);
  in.with({"TopicA", "false"}).inc(2);
  in.with({"TopicB", "false"}).inc();
  auto& g = r.gauge("rocketmq_topic_number", "Active topic number");
  g.only().set(7);
  auto& h = r.histogram("rocketmq_message_size", "Incoming messages size", {"topic"}, {1024, 4096});
  h.with({"T"}).observe(10);
  h.with({"T"}).observe(1024);  // a bound belongs to its bucket (le)
  h.with({"T"}).observe(5000);

  const Snapshot s = r.collect();
  ASSERT_EQ(s.families.size(), 3u);
  EXPECT_EQ(s.common_labels.size(), 3u);
  const FamilySnapshot* f = s.family("rocketmq_messages_in_total");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->type, Type::counter);
  ASSERT_EQ(f->samples.size(), 2u);
  EXPECT_EQ(f->samples[0].label_values, (std::vector<std::string>{"TopicA", "false"}));
  EXPECT_EQ(f->samples[0].value, 2);
  EXPECT_EQ(f->samples[1].value, 4);
  EXPECT_EQ(s.total("rocketmq_messages_in_total"), 6);
  EXPECT_EQ(s.value("rocketmq_topic_number"), 7);
  const Sample* hs = s.family("rocketmq_message_size")->find({"T"});
  ASSERT_NE(hs, nullptr);
  EXPECT_EQ(hs->bucket_counts, (std::vector<std::uint64_t>{2, 0, 1}));
  EXPECT_EQ(hs->value, 3);
  EXPECT_EQ(hs->sum, 10 + 1024 + 5000);
}

TEST(MetricsTest, AFullFamilyCountsNewLabelSetsIntoOneOverflowSeries) {
  Registry r(/*series_max=*/2);
  auto& c = r.counter("c_total", "c", {"topic"});
  c.with({"a"}).inc();
  c.with({"b"}).inc();
  for (int i = 0; i < 1000; ++i) c.with({"t" + std::to_string(i)}).inc();
  c.with({"a"}).inc();  // a known series still counts as itself
  const Snapshot s = r.collect();
  const FamilySnapshot* f = s.family("c_total");
  ASSERT_EQ(f->samples.size(), 3u);
  EXPECT_EQ(f->overflowed, 1000u);
  EXPECT_EQ(s.value("c_total", {"a"}), 2);
  EXPECT_EQ(s.value("c_total", {kOverflowValue}), 1000);
}

TEST(MetricsTest, CallbackFamiliesAreReadAtCollectTimeAndBounded) {
  Registry r(/*series_max=*/3);
  int lag = 5;
  r.callback(Type::gauge, "rocketmq_consumer_lag_messages", "lag", {"consumer_group", "topic"},
             [&lag](SampleSink& sink) {
               sink.add({"g2", "t"}, lag);
               sink.add({"g1", "t"}, lag * 2);
               for (int i = 0; i < 10; ++i) sink.add({"x" + std::to_string(i), "t"}, 1);
             });
  Snapshot s = r.collect();
  EXPECT_EQ(s.value("rocketmq_consumer_lag_messages", {"g1", "t"}), 10);
  lag = 1;
  s = r.collect();
  const FamilySnapshot* f = s.family("rocketmq_consumer_lag_messages");
  ASSERT_EQ(f->samples.size(), 3u);
  EXPECT_EQ(f->samples[0].label_values[0], "g1");  // sorted, whatever order they came in
  EXPECT_EQ(f->samples[0].value, 2);
  EXPECT_EQ(f->overflowed, 9u);
}

TEST(MetricsTest, MergeMovesCommonLabelsIntoSeriesAndJoinsFamiliesOfOneName) {
  Registry a;
  a.set_common_labels({{"node_type", "namesrv"}, {"node_id", "ns"}});
  a.counter("rpc_total", "h", {"code"}).with({"10"}).inc(2);
  a.gauge("only_a", "h").only().set(1);
  Registry b;
  b.set_common_labels({{"node_type", "controller"}, {"node_id", "c"}, {"group", "g"}});
  b.counter("rpc_total", "h", {"code"}).with({"904"}).inc(5);
  const Snapshot m = merge({a.collect(), b.collect()});
  EXPECT_TRUE(m.common_labels.empty());
  const FamilySnapshot* f = m.family("rpc_total");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->label_names, (std::vector<std::string>{"node_type", "node_id", "code", "group"}));
  EXPECT_EQ(m.value("rpc_total", {"namesrv", "ns", "10", ""}), 2);
  EXPECT_EQ(m.value("rpc_total", {"controller", "c", "904", "g"}), 5);
  EXPECT_EQ(m.value("only_a", {"namesrv", "ns"}), 1);
}

TEST(MetricsDeathTest, NamesAndLabelCountsAreChecked) {
  Registry r;
  EXPECT_DEATH(r.counter("bad-name", "h"), "not a metric name");
  auto& c = r.counter("ok_total", "h", {"topic"});
  EXPECT_DEATH(c.with({"a", "b"}), "2 label values given for 1 label names");
  EXPECT_DEATH(r.gauge("ok_total", "h"), "registered twice");
  EXPECT_DEATH(r.histogram("h", "h", {}, {2, 1}), "ascending");
}

}  // namespace
}  // namespace ferry::metrics
