// Pull replies and slaves: suggestWhichBrokerId as RocketMQ 4.9's PullMessageProcessor computes
// it (slaveReadEnable, the subscription group's brokerId / whichBrokerWhenConsumeSlowly, a
// consumer lagging more than accessMessageInMemoryMaxRatio % of memory), and what a slave does
// with the pulls that reach it.
#include "broker/subscription_group_manager.h"
#include "remoting/body/body_json.h"
#include "remoting/header/consumer_offset_header.h"
#include "tests/broker/broker_fixture.h"
#include "tests/support/broker_inspector.h"

using ferry::testing::BrokerInspector;

namespace ferry::broker::testing {
namespace {

// 20 messages of about 150 record bytes each: about 3,000 bytes of CommitLog.
constexpr int kMessages = 20;
// 40% of 1,000 bytes: a read more than 400 bytes behind the log end is a lagging one; a read of
// the last message (one record behind) is not, one of the first ones (19 records) is.
constexpr std::int64_t kTotalMemoryBytes = 1000;

class SlaveReadTest : public BrokerTest {
 protected:
  SlaveReadTest() {
    config_.total_memory_bytes = kTotalMemoryBytes;
    config_.access_message_in_memory_max_ratio = 40;
  }

  void send_messages() {
    for (int i = 0; i < kMessages; ++i) {
      Msg m;
      m.body = fmt::format("message-{:02}-{}", i, std::string(40, 'x'));
      ASSERT_EQ(send(m).reply.code, code::SUCCESS);
    }
  }

  // A pull of one message at `offset`, as a consumer pulls when it lags (offset 0) or keeps up
  // (the last message).
  Call pull_one(std::int64_t offset, std::optional<std::int64_t> commit = std::nullopt) {
    Pull p;
    p.offset = offset;
    p.max = 1;
    p.commit_offset = commit;
    return pull(p);
  }

  // The broker id a pull reply suggests to a lagging consumer (one at offset 0) and to one keeping
  // up (at the last message).
  void expect_suggestions(const std::string& lagging_id, const std::string& keeping_up_id) {
    const Call lagging = pull_one(0);
    ASSERT_EQ(lagging.reply.code, code::SUCCESS) << lagging.remark();
    EXPECT_EQ(lagging.field("suggestWhichBrokerId"), lagging_id) << "lagging";
    const Call keeping_up = pull_one(kMessages - 1);
    ASSERT_EQ(keeping_up.reply.code, code::SUCCESS) << keeping_up.remark();
    EXPECT_EQ(keeping_up.field("suggestWhichBrokerId"), keeping_up_id) << "keeping up";
  }

  // UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, as mqadmin updateSubGroup -i <id> -w <slow id> sends it.
  void set_group(std::int64_t broker_id, std::int64_t which_broker_when_consume_slowly) {
    remoting::body::SubscriptionGroupConfig g;
    g.group_name = "CG";
    g.broker_id = broker_id;
    g.which_broker_when_consume_slowly = which_broker_when_consume_slowly;
    RemotingCommand up = remoting::make_request(rc::UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, 0);
    up.body = remoting::body::write_body([&](remoting::json::Writer& w) { g.write(w); });
    ASSERT_EQ(call(std::move(up)).reply.code, code::SUCCESS);
  }

  // The records a slave's store holds once replication copied them; until the HA link lands the
  // test writes them into the store itself, as the link will (a slave refuses sends).
  void store_on_slave(Broker& slave) {
    TopicConfig t;
    t.topic_name = "T";
    t.read_queue_nums = 4;
    t.write_queue_nums = 4;
    t.perm = 6;
    ASSERT_TRUE(BrokerInspector(slave).put_topic(t).ok());
    const std::string props = *encode_properties(Properties());
    for (int i = 0; i < kMessages; ++i) {
      const std::string body = fmt::format("message-{:02}-{}", i, std::string(40, 'x'));
      store::PutRequest r;
      r.topic = "T";
      r.queue_id = QueueId(0);
      r.body = Bytes(reinterpret_cast<const std::uint8_t*>(body.data()), body.size());
      r.properties = props;
      r.born_timestamp_ms = 1'767'225'600'000;
      r.born_host = HostPort::v4(10, 0, 0, 1, 5555);
      ASSERT_TRUE(BrokerInspector(slave).put_message(r).stored());
    }
    ASSERT_TRUE(cluster().run_until([&slave] { return slave.store().max_offset("T", QueueId(0)) == QueueOffset(kMessages); },
                                    std::chrono::seconds(10))
                    .ok());
  }
};

TEST_F(SlaveReadTest, WithoutSlaveReadsTheMasterAlwaysSuggestsItself) {
  boot();
  set_group(3, 2);
  send_messages();
  expect_suggestions("0", "0");
}

TEST_F(SlaveReadTest, WithSlaveReadsALaggingConsumerIsSentToTheGroupsSlowConsumerBroker) {
  config_.slave_read_enable = true;
  boot();
  send_messages();
  // The defaults: whichBrokerWhenConsumeSlowly 1 for a lagging read, brokerId 0 otherwise.
  expect_suggestions("1", "0");
  // Nothing new: a consumer at the end keeps reading where it is told to.
  const Call at_end = pull_one(kMessages);
  ASSERT_EQ(at_end.reply.code, code::PULL_NOT_FOUND) << at_end.remark();
  EXPECT_EQ(at_end.field("suggestWhichBrokerId"), "0");

  // The group's own choices, as updateSubGroup sets them.
  set_group(3, 2);
  EXPECT_EQ(pull_one(0).field("suggestWhichBrokerId"), "2");
  EXPECT_EQ(pull_one(kMessages - 1).field("suggestWhichBrokerId"), "3");
}

TEST_F(SlaveReadTest, AllTheMemoryIsNeverLagging) {
  config_.slave_read_enable = true;
  config_.total_memory_bytes = std::int64_t{8} << 30;
  boot();
  send_messages();
  EXPECT_EQ(pull_one(0).field("suggestWhichBrokerId"), "0");
}

TEST_F(SlaveReadTest, AMasterStoresTheCommitOffsetCarriedInAPull) {
  boot();
  send_messages();
  ASSERT_EQ(pull_one(5, 5).reply.code, code::SUCCESS);
  EXPECT_EQ(broker().offsets().query("CG", "T", QueueId(0)), std::optional<QueueOffset>(QueueOffset(5)));
}

// The slave of a master/slave group (the fake NameServer records both); calls go to the slave.
class SlaveBrokerTest : public SlaveReadTest {
 protected:
  void boot() {
    sim::cluster::ClusterSpec spec;
    sim::cluster::BrokerGroupSpec& g = spec.brokers.at(0);
    g.name = config_.broker_name;
    g.slaves = 1;
    g.store = config_.store;
    g.config = config_;
    auto log = names_;
    cluster_ = std::make_unique<sim::cluster::Cluster>(options_, spec, [log](Runtime& rt) {
      return sim::hosted(std::make_unique<FakeNameServer>(rt, log));
    });
    slave_ = *cluster_->slave_index(0);
    broker_ = cluster_->broker_node(slave_);
    client_node_ = cluster_->add_bare("client");
    client_ = std::make_unique<remoting::RpcClient>(node(client_node_));
    const Status booted = cluster_->boot(std::chrono::seconds(30));
    ASSERT_TRUE(booted.ok()) << booted.error().to_string();
    ASSERT_EQ(slave().config().broker_role, BrokerRole::slave);
    addr_ = slave().address();
  }
  Broker& slave() {
    Broker* b = cluster().broker(slave_);
    if (b == nullptr) throw std::runtime_error("the slave's node is down");
    return *b;
  }
  std::size_t slave_ = 0;
};

TEST_F(SlaveBrokerTest, WithoutSlaveReadsASlaveServesWhatItHoldsAndSendsTheConsumerBackToTheMaster) {
  boot();
  store_on_slave(slave());
  // Served (RocketMQ 4.9's slave answers from its store too): a consumer whose master is gone
  // goes on from here, and nothing is skipped.
  const Call lagging = pull_one(0);
  ASSERT_EQ(lagging.reply.code, code::SUCCESS) << lagging.remark();
  ASSERT_EQ(messages_of(lagging.reply).size(), 1u);
  EXPECT_EQ(body_text(messages_of(lagging.reply).front()).substr(0, 10), "message-00");
  EXPECT_EQ(lagging.field("suggestWhichBrokerId"), "0");
  EXPECT_EQ(all_of("T").size(), static_cast<std::size_t>(kMessages));
  const Call at_end = pull_one(kMessages);
  EXPECT_EQ(at_end.reply.code, code::PULL_NOT_FOUND) << at_end.remark();
  EXPECT_EQ(at_end.field("suggestWhichBrokerId"), "0");
  EXPECT_GE(slave().stats().totals().pull_looks_found, 1);
  EXPECT_GE(slave().stats().totals().pull_looks_missed, 1);
}

TEST_F(SlaveBrokerTest, WithSlaveReadsASlaveKeepsALaggingConsumer) {
  config_.slave_read_enable = true;
  boot();
  store_on_slave(slave());
  expect_suggestions("1", "0");
}

TEST_F(SlaveReadTest, AMasterCorrectsAnOffsetPastItsQueue) {
  boot();
  send_messages();
  const Call past = pull_one(kMessages + 5);
  EXPECT_EQ(past.reply.code, code::PULL_OFFSET_MOVED) << past.remark();
  EXPECT_EQ(past.field("nextBeginOffset"), std::to_string(kMessages));
}

// A slave behind the consumer (replication lags, or has not started) keeps the consumer where it
// is: no skip, no rewind, and a long poll waits for the slave to catch up.
TEST_F(SlaveBrokerTest, ASlaveCorrectsNoOffset) {
  boot();
  TopicConfig t;
  t.topic_name = "T";
  t.read_queue_nums = 4;
  t.write_queue_nums = 4;
  t.perm = 6;
  ASSERT_TRUE(BrokerInspector(slave()).put_topic(t).ok());
  const Call empty = pull_one(5);
  EXPECT_EQ(empty.reply.code, code::PULL_NOT_FOUND) << empty.remark();
  EXPECT_EQ(empty.field("nextBeginOffset"), "5");

  store_on_slave(slave());
  const Call past = pull_one(kMessages + 5);
  EXPECT_EQ(past.reply.code, code::PULL_NOT_FOUND) << past.remark();
  EXPECT_EQ(past.field("nextBeginOffset"), std::to_string(kMessages + 5));
}

TEST_F(SlaveBrokerTest, ASlaveNeverStoresTheCommitOffsetCarriedInAPull) {
  boot();
  store_on_slave(slave());
  ASSERT_EQ(pull_one(5, 5).reply.code, code::SUCCESS);
  EXPECT_EQ(slave().offsets().query("CG", "T", QueueId(0)), std::nullopt);
  // What a consumer commits while its master is away (UPDATE_CONSUMER_OFFSET) it does keep.
  ASSERT_EQ(call(update_offset_request("CG", "T", 0, 7)).reply.code, code::SUCCESS);
  EXPECT_EQ(slave().offsets().query("CG", "T", QueueId(0)), std::optional<QueueOffset>(QueueOffset(7)));
  ASSERT_EQ(pull_one(9, 9).reply.code, code::SUCCESS);
  EXPECT_EQ(slave().offsets().query("CG", "T", QueueId(0)), std::optional<QueueOffset>(QueueOffset(7)));
}

}  // namespace
}  // namespace ferry::broker::testing
