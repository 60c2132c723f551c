// AdminClient and PullAPI against real brokers: topic creation, routes, status, cluster and
// topic lists, message look-ups by offset msgId and by key, consumer progress, and pulls with
// tag filtering and the no-new-message / offset-moved statuses.
#include "client/client_errors.h"
#include "client/consumer_calls.h"
#include "tests/support/broker_inspector.h"
#include "tests/support/client_fixture.h"

using ferry::testing::BrokerInspector;

namespace ferry::client::testing {
namespace {

using namespace std::chrono_literals;

TEST_F(ClientTest, AdminTopicsClusterAndStatus) {
  boot({"broker-a", "broker-b"}, {{"ADMIN", 3}});
  AdminClient& a = admin();
  Result<remoting::body::TopicRouteData> route = run(a.topic_route("ADMIN"));
  ASSERT_TRUE(route.ok()) << route.error().to_string();
  EXPECT_EQ(route->queue_datas.size(), 2u);
  Result<remoting::body::ClusterInfo> info = run(a.cluster_info());
  ASSERT_TRUE(info.ok()) << info.error().to_string();
  ASSERT_EQ(info->cluster_addr_table.count("DefaultCluster"), 1u);
  EXPECT_EQ(info->cluster_addr_table["DefaultCluster"].size(), 2u);
  Result<std::vector<std::string>> topics = run(a.topic_list());
  ASSERT_TRUE(topics.ok()) << topics.error().to_string();
  EXPECT_TRUE(std::binary_search(topics->begin(), topics->end(), std::string("ADMIN")));

  // Cluster-wide creation reaches both brokers.
  remoting::body::TopicConfig t;
  t.topic_name = "WIDE";
  t.read_queue_nums = 2;
  t.write_queue_nums = 2;
  t.perm = 6;
  Status s = run(a.create_topic_in_cluster("DefaultCluster", t));
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  EXPECT_NE(BrokerInspector(broker(0)).topics().find("WIDE"), nullptr);
  EXPECT_NE(BrokerInspector(broker(1)).topics().find("WIDE"), nullptr);

  Producer& p = producer();
  for (int i = 0; i < 6; ++i) ASSERT_TRUE(run(p.send(text_message("ADMIN", "x"))).ok());
  cluster().run_for(1s);
  Result<std::vector<QueueStatus>> st = run(a.topic_status("ADMIN"));
  ASSERT_TRUE(st.ok()) << st.error().to_string();
  ASSERT_EQ(st->size(), 6u);
  std::int64_t total = 0;
  for (const QueueStatus& q : *st) {
    EXPECT_EQ(q.min_offset.value(), 0);
    total += q.max_offset.value();
  }
  EXPECT_EQ(total, 6);

  // A system topic cannot be created: the broker's error names it and its code.
  t.topic_name = "TBW102";
  Status bad = run(a.create_topic(broker_addr(0), t));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().detail.find(broker_addr(0)), std::string::npos) << bad.error().detail;
}

TEST_F(ClientTest, AdminDeletesTopicInClusterAndNameServers) {
  boot({"broker-a", "broker-b"}, {{"GONE", 2}}, 2);
  AdminClient& a = admin();
  ASSERT_TRUE(run(a.topic_route("GONE")).ok());
  Status s = run(a.delete_topic_in_cluster("DefaultCluster", "GONE"));
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  EXPECT_EQ(BrokerInspector(broker(0)).topics().find("GONE"), nullptr);
  EXPECT_EQ(BrokerInspector(broker(1)).topics().find("GONE"), nullptr);
  cluster().run_for(2s);  // the brokers re-register without the topic
  // Every NameServer forgot it.
  for (std::size_t i = 0; i < cluster().namesrv_count(); ++i) {
    namesrv::NameServer* ns = cluster().namesrv(i);
    ASSERT_NE(ns, nullptr);
    EXPECT_FALSE(ns->routes().route_of("GONE").has_value());
  }
  Result<remoting::body::TopicRouteData> gone = run(a.topic_route("GONE"));
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.error().code, Errc::not_found) << gone.error().to_string();
  Result<std::vector<std::string>> topics = run(a.topic_list());
  ASSERT_TRUE(topics.ok()) << topics.error().to_string();
  EXPECT_FALSE(std::binary_search(topics->begin(), topics->end(), std::string("GONE")));
  // Deleting again succeeds (nothing to delete); an unknown cluster is named.
  EXPECT_TRUE(run(a.delete_topic_in_cluster("DefaultCluster", "GONE")).ok());
  Status unknown = run(a.delete_topic_in_cluster("NoSuchCluster", "GONE"));
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().code, Errc::not_found);
  EXPECT_NE(unknown.error().detail.find("NoSuchCluster"), std::string::npos) << unknown.error().detail;
  // A system topic is refused by the broker, which the error names with the reply code.
  Status sys = run(a.delete_topic_in_broker(broker_addr(0), "TBW102"));
  ASSERT_FALSE(sys.ok());
  EXPECT_NE(sys.error().detail.find(broker_addr(0)), std::string::npos) << sys.error().detail;
  EXPECT_EQ(reply_code_of(sys.error()), std::optional<std::int32_t>(1));
}

TEST_F(ClientTest, AdminFindsMessagesByOffsetIdAndKey) {
  boot({"broker-a"}, {{"Q", 2}});
  Producer& p = producer();
  Message m = text_message("Q", "findme", "TagA");
  m.set_keys("order-1 order-2");
  Result<SendResult> r = run(p.send(m));
  ASSERT_TRUE(r.ok());
  cluster().run_for(1s);  // the index is built by dispatch
  Result<MessageExt> viewed = run(admin().view_message(r->offset_msg_id));
  ASSERT_TRUE(viewed.ok()) << viewed.error().to_string();
  EXPECT_EQ(body_text(*viewed), "findme");
  EXPECT_EQ(viewed->uniq_key(), std::optional<std::string_view>(r->msg_id));

  Result<std::vector<MessageExt>> by_key = run(admin().query_message("Q", "order-2", 32, 0, client_rt().wall_ms() + 60'000));
  ASSERT_TRUE(by_key.ok()) << by_key.error().to_string();
  ASSERT_EQ(by_key->size(), 1u);
  EXPECT_EQ(body_text(by_key->front()), "findme");
  Result<std::vector<MessageExt>> by_id = run(admin().query_message("Q", r->msg_id, 32, 0, INT64_MAX, true));
  ASSERT_TRUE(by_id.ok()) << by_id.error().to_string();
  ASSERT_EQ(by_id->size(), 1u);
  Result<std::vector<MessageExt>> none = run(admin().query_message("Q", "nope", 32, 0, INT64_MAX));
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.error().code, Errc::not_found);
}

TEST_F(ClientTest, PullFiltersTagsAndReportsOffsets) {
  boot({"broker-a"}, {{"P", 1}});
  Producer& p = producer();
  for (int i = 0; i < 6; ++i) ASSERT_TRUE(run(p.send(text_message("P", numbered("m", i), i % 2 ? "Odd" : "Even"))).ok());
  cluster().run_for(1s);
  MessageQueue mq{"P", "broker-a", QueueId(0)};
  auto odd = pull_all(mq, QueueOffset(0), "Odd");
  ASSERT_EQ(odd.size(), 3u);
  for (const auto& m : odd) EXPECT_EQ(m.tags(), std::optional<std::string_view>("Odd"));
  PullRequest q;
  q.group = "CG";
  q.queue = mq;
  q.offset = QueueOffset(6);
  Result<PullResult> at_end = run(puller().pull(q));
  ASSERT_TRUE(at_end.ok()) << at_end.error().to_string();
  EXPECT_EQ(at_end->status, PullStatus::NO_NEW_MSG);
  EXPECT_EQ(at_end->next_begin_offset.value(), 6);
  EXPECT_EQ(at_end->max_offset.value(), 6);
  q.offset = QueueOffset(100);
  Result<PullResult> beyond = run(puller().pull(q));
  ASSERT_TRUE(beyond.ok());
  EXPECT_EQ(beyond->status, PullStatus::OFFSET_ILLEGAL);
  EXPECT_EQ(beyond->next_begin_offset.value(), 6);
  // Committing an offset with a pull shows up in the consumer progress.
  q.offset = QueueOffset(0);
  q.commit_offset = QueueOffset(4);
  ASSERT_TRUE(run(puller().pull(q)).ok());
  Result<std::vector<QueueProgress>> prog = run(admin().consumer_progress("CG", "P"));
  ASSERT_TRUE(prog.ok()) << prog.error().to_string();
  ASSERT_EQ(prog->size(), 1u);
  EXPECT_EQ(prog->front().broker_offset.value(), 6);
  EXPECT_EQ(prog->front().consumer_offset.value(), 4);
  EXPECT_EQ(prog->front().lag(), 2);
}

// A push consumer's pull carries the offset it had consumed when the pull was sent; the broker
// may serve that pull after a later UPDATE_CONSUMER_OFFSET from the same consumer (a graceful
// shutdown persists, then an older pull in flight is served: two-way requests keep no order).
// The older offset must not move the committed one back, or a graceful restart re-delivers.
TEST_F(ClientTest, APullsCommitOffsetNeverMovesTheCommittedOffsetBack) {
  boot({"broker-a"}, {{"P", 1}});
  Producer& p = producer();
  for (int i = 0; i < 6; ++i) ASSERT_TRUE(run(p.send(text_message("P", numbered("m", i)))).ok());
  const MessageQueue mq{"P", "broker-a", QueueId(0)};
  const Status updated = run(update_consumer_offset_oneway(instance(), "CG", mq, QueueOffset(5)));
  ASSERT_TRUE(updated.ok()) << updated.error().to_string();
  cluster().run_for(1s);
  PullRequest q;
  q.group = "CG";
  q.queue = mq;
  q.offset = QueueOffset(3);
  q.commit_offset = QueueOffset(3);  // sent before the update, served after it
  ASSERT_TRUE(run(puller().pull(q)).ok());
  Result<std::vector<QueueProgress>> prog = run(admin().consumer_progress("CG", "P"));
  ASSERT_TRUE(prog.ok()) << prog.error().to_string();
  ASSERT_EQ(prog->size(), 1u);
  EXPECT_EQ(prog->front().consumer_offset.value(), 5) << "a pull's older commit offset moved the committed one back";
  // A newer one moves it on.
  q.commit_offset = QueueOffset(6);
  ASSERT_TRUE(run(puller().pull(q)).ok());
  prog = run(admin().consumer_progress("CG", "P"));
  ASSERT_TRUE(prog.ok()) << prog.error().to_string();
  ASSERT_EQ(prog->size(), 1u);
  EXPECT_EQ(prog->front().consumer_offset.value(), 6);
}

}  // namespace
}  // namespace ferry::client::testing
