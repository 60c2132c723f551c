// A slave and its master in the simulator (sim/cluster, one group with slaves = 1, a real
// NameServer): the slave's registrar learns its master's addresses from the REGISTER_BROKER
// replies and follows the master away and back; SlaveSync copies topics, consumer offsets, delay
// offsets and subscription groups within one sync; the copies are on the slave's disk, stay while
// the master is down and survive the slave's restart; a master serving malformed bodies changes
// nothing on the slave.
#include <algorithm>

#include "remoting/header/consumer_offset_header.h"
#include "remoting/header/topic_admin_header.h"
#include "tests/broker/broker_fixture.h"
#include "tests/support/broker_inspector.h"

using ferry::testing::BrokerInspector;

namespace ferry::broker::testing {
namespace {

using namespace std::chrono_literals;
using Part = SlaveSync::Part;

class SlaveSyncTest : public ::testing::Test {
 protected:
  static sim::WorldOptions options() {
    if (std::getenv("FERRY_LOG") == nullptr) set_default_log_level(spdlog::level::warn);
    sim::WorldOptions fault_free;
    fault_free.seed = 14;
    sim::WorldOptions o = ferry::testing::world_options(fault_free);
    o.disk.eio_on_sync_ppm = 0;  // as BrokerTest: a failed sync stops a store by design
    return o;
  }

  SlaveSyncTest() : options_(options()), replay_(options_) {}

  void boot() {
    sim::cluster::ClusterSpec spec;
    spec.brokers.at(0).slaves = 1;
    spec.topics.push_back(sim::cluster::TopicSpec{.name = "T", .queues = 4});
    cluster_ = std::make_unique<sim::cluster::Cluster>(options_, spec);
    const Status booted = cluster_->boot(60s);
    ASSERT_TRUE(booted.ok()) << booted.error().to_string();
    slave_ = *cluster_->slave_index(0);
    client_node_ = cluster_->add_bare("admin");
    client_ = std::make_unique<remoting::RpcClient>(cluster_->world().node(client_node_));
    // The slave may have registered before its master: it learns the master at its next
    // registration (every 30 s). Syncing starts from there.
    const std::string master_addr = cluster_->broker_addr(0);
    run_until([&] { return slave().registrar().master_address() == master_addr; }, one_registration(), "the slave learns its master");
  }

  void TearDown() override {
    if (cluster_) ferry::testing::record_trace(cluster_->world());
    if (client_) client_->shutdown();
    client_.reset();
  }

  sim::cluster::Cluster& cluster() { return *cluster_; }
  Broker& master() { return component(0); }
  Broker& slave() { return component(slave_); }
  Broker& component(std::size_t i) {
    Broker* b = cluster_->broker(i);
    if (b == nullptr) throw std::runtime_error(cluster_->broker_label(i) + " is down");
    return *b;
  }
  bool running(std::size_t i) {
    Broker* b = cluster_->broker(i);
    return b != nullptr && b->state() == Broker::State::running;
  }

  // One request to the master from the admin node.
  Call call_master(RemotingCommand req) {
    auto r = cluster_->run_task(client_node_, invoke(client_.get(), cluster_->broker_addr(0), std::move(req), 5s), 30s);
    EXPECT_TRUE(r.ok()) << r.report.message;
    if (!r.value) return Call{};
    EXPECT_TRUE(r.value->ok) << r.value->error;
    return std::move(*r.value);
  }

  // Runs until `goal` holds, at most `limit`; a miss is a failure naming `what`.
  void run_until(const std::function<bool()>& goal, Duration limit, std::string_view what) {
    sim::RunReport r = cluster_->run_until(goal, limit);
    EXPECT_TRUE(r.ok()) << what << ": " << r.message << " (" << cluster_->describe() << ")";
  }

  // How long the slave's registrar may take to see a change the NameServer already has: its next
  // registration comes within a period, or two when buggify skips one, each call bounded by the
  // registration timeout.
  Duration one_registration() const {
    const BrokerConfig c;
    return 2 * c.register_name_server_period + c.register_broker_timeout;
  }

  // How long one sync may take once the master has the change: the next round starts within an
  // interval, and its four calls are each bounded by the call timeout.
  Duration one_sync() const { return BrokerConfig{}.slave_sync_interval + 4 * SlaveSync::kCallTimeout; }

  // Runs until the slave has finished a round that started after this call: whatever the master
  // held before is then applied and written on the slave (a round awaits its writes).
  void wait_for_complete_round() {
    const std::uint64_t seen = BrokerInspector(slave()).slave_sync().counters().rounds;
    run_until([&] { return running(slave_) && BrokerInspector(slave()).slave_sync().counters().rounds_complete > seen; },
              one_sync() + 10s, "a complete sync round");
  }

  Status create_topic(const std::string& name, std::int32_t queues) {
    Call c = call_master(create_topic_request(topic_header(name, queues)));
    if (c.reply.code != code::SUCCESS) return Error(Errc::invalid_argument, c.remark());
    return Status();
  }
  Status commit_offset(const std::string& group, const std::string& topic, std::int32_t queue, std::int64_t offset) {
    Call c = call_master(update_offset_request(group, topic, queue, offset));
    if (c.reply.code != code::SUCCESS) return Error(Errc::invalid_argument, c.remark());
    return Status();
  }
  Status put_group(const SubscriptionGroupConfig& g) {
    RemotingCommand req = remoting::make_request(rc::UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, 0);
    req.body = remoting::body::write_body([&](remoting::json::Writer& w) { g.write(w); });
    Call c = call_master(std::move(req));
    if (c.reply.code != code::SUCCESS) return Error(Errc::invalid_argument, c.remark());
    return Status();
  }

  // What a user compares between the two brokers.
  struct Snapshot {
    TopicTable topics;
    DataVersion topics_version;
    OffsetTable offsets;
    DelayOffsetTable delay_offsets;
    SubscriptionGroupTable groups;
    DataVersion groups_version;
    bool operator==(const Snapshot&) const = default;
    // For failure messages.
    friend void PrintTo(const Snapshot& s, std::ostream* os) {
      *os << TopicConfigManager::encode(s.topics, s.topics_version) << "\n"
          << ConsumerOffsetManager::encode(s.offsets) << "\n"
          << ScheduleMessageService::encode(s.delay_offsets) << "\n"
          << SubscriptionGroupManager::encode(s.groups, s.groups_version);
    }
  };
  static Snapshot snapshot(Broker& b) {
    return Snapshot{BrokerInspector(b).topics().table(), BrokerInspector(b).topics().data_version(), b.offsets().table(),
                    BrokerInspector(b).consumer_services().schedule().offsets(), BrokerInspector(b).consumer_services().groups().table(),
                    BrokerInspector(b).consumer_services().groups().data_version()};
  }

  // Master and slave tables agree (offsets: every pair the master has, as the master has it).
  static bool in_sync(Broker& m, Broker& s) {
    const Snapshot a = snapshot(m);
    const Snapshot b = snapshot(s);
    const bool offsets = std::all_of(a.offsets.begin(), a.offsets.end(), [&](const auto& e) {
      auto it = b.offsets.find(e.first);
      return it != b.offsets.end() && it->second == e.second;
    });
    return a.topics == b.topics && a.topics_version == b.topics_version && offsets &&
           a.delay_offsets == b.delay_offsets && a.groups == b.groups && a.groups_version == b.groups_version;
  }

  sim::WorldOptions options_;
  ferry::testing::ReplayTrace replay_;
  std::unique_ptr<sim::cluster::Cluster> cluster_;
  std::size_t slave_ = 0;
  sim::NodeId client_node_{};
  std::unique_ptr<remoting::RpcClient> client_;
};

// ---- the registrar learns the master ----------------------------------------------------------

TEST_F(SlaveSyncTest, SlaveRegistrarFollowsTheMasterAwayAndBack) {
  boot();
  const std::string master_addr = cluster().broker_addr(0);
  const std::string master_ha = fmt::format("{}:{}", cluster().world().node(cluster().broker_node(0)).host(),
                                            cluster().broker_config(0).listen_port + 1);
  run_until([&] { return slave().registrar().master_address() == master_addr; }, one_registration(), "the slave learns its master");
  EXPECT_EQ(slave().registrar().master_ha_address(), master_ha);
  EXPECT_EQ(master().registrar().master_address(), std::nullopt) << "a master has no master";
  EXPECT_EQ(master().registrar().master_ha_address(), std::nullopt);

  // What the hook sees from now on (it still wakes the slave's sync, as the Broker's hook does).
  auto seen = std::make_shared<std::vector<std::optional<std::string>>>();
  const NameServerRegistrar& reg = slave().registrar();
  BrokerInspector(slave()).set_on_master_changed([seen, &reg, this] {
    seen->push_back(reg.master_address());
    BrokerInspector(slave()).slave_master_changed();
  });

  // The master stops gracefully (unregisters): the slave's next registration says "no master".
  auto stopped = cluster().run_task(cluster().broker_node(0), master().stop(), 30s);
  ASSERT_TRUE(stopped.ok()) << stopped.report.message;
  cluster().power_off(cluster().broker_node(0));
  run_until([&] { return !slave().registrar().master_address().has_value(); }, one_registration(),
            "the slave forgets the master");
  EXPECT_EQ(slave().registrar().master_ha_address(), std::nullopt);

  // It comes back: the slave learns it again.
  cluster().start(cluster().broker_node(0));
  run_until([&] { return slave().registrar().master_address() == master_addr; }, one_registration() + 30s, "the slave learns it again");
  EXPECT_EQ(slave().registrar().master_ha_address(), master_ha);

  // Gone dark (no unregistration, no closed connection): the NameServer expires it after 120 s.
  cluster().silence(cluster().broker_node(0));
  const Duration expiry = cluster().spec().namesrv_config.broker_expiry + cluster().spec().namesrv_config.scan_interval;
  run_until([&] { return !slave().registrar().master_address().has_value(); }, expiry + one_registration(),
            "the slave forgets the expired master");
  cluster().heal_all();
  run_until([&] { return slave().registrar().master_address() == master_addr; }, one_registration() + 30s,
            "the slave learns the master after it is heard again");

  EXPECT_EQ(*seen, (std::vector<std::optional<std::string>>{std::nullopt, master_addr, std::nullopt, master_addr}))
      << "the hook runs once per change, and only on a change";
}

// ---- what the slave copies ---------------------------------------------------------------------

TEST_F(SlaveSyncTest, TopicsOffsetsGroupsAndDelayOffsetsReachTheSlaveWithinOneSync) {
  boot();
  // Each change is made on the master, then must be on the slave within one sync.
  ASSERT_TRUE(create_topic("NewTopic", 3).ok());
  run_until([&] { return BrokerInspector(slave()).topics().find("NewTopic") != nullptr; }, one_sync(), "the topic on the slave");
  ASSERT_NE(BrokerInspector(slave()).topics().find("NewTopic"), nullptr);
  EXPECT_EQ(*BrokerInspector(slave()).topics().find("NewTopic"), *BrokerInspector(master()).topics().find("NewTopic"));
  EXPECT_EQ(BrokerInspector(slave()).topics().data_version(), BrokerInspector(master()).topics().data_version()) << "the master's dataVersion, as is";

  ASSERT_TRUE(commit_offset("CG", "T", 2, 17).ok());
  run_until([&] { return slave().offsets().query("CG", "T", QueueId(2)) == QueueOffset(17); }, one_sync(),
            "the offset on the slave");

  SubscriptionGroupConfig g;
  g.group_name = "GroupX";
  g.retry_max_times = 3;
  g.consume_broadcast_enable = false;
  ASSERT_TRUE(put_group(g).ok());
  run_until([&] { return BrokerInspector(slave()).consumer_services().groups().find("GroupX") != nullptr; }, one_sync(),
            "the group on the slave");
  ASSERT_NE(BrokerInspector(slave()).consumer_services().groups().find("GroupX"), nullptr);
  EXPECT_EQ(*BrokerInspector(slave()).consumer_services().groups().find("GroupX"), g);

  // A level-1 message: the master delivers it after 1 s and moves level 1's offset to 1.
  Msg delayed;
  delayed.set("DELAY", "1");
  auto sent = cluster().run_task(client_node_, invoke(client_.get(), cluster().broker_addr(0), send_request(delayed), 5s), 30s);
  ASSERT_TRUE(sent.ok() && sent.value && sent.value->reply.code == code::SUCCESS);
  run_until([&] { return BrokerInspector(master()).consumer_services().schedule().offsets().contains(1) &&
                         BrokerInspector(master()).consumer_services().schedule().offsets().at(1) == 1; },
            30s, "the master delivers");
  const DelayOffsetTable on_master = BrokerInspector(master()).consumer_services().schedule().offsets();
  run_until([&] { return BrokerInspector(slave()).consumer_services().schedule().offsets() == on_master; }, one_sync(),
            "the delay offsets on the slave");

  wait_for_complete_round();
  EXPECT_TRUE(in_sync(master(), slave()));
  for (Part p : {Part::topics, Part::consumer_offsets, Part::delay_offsets, Part::subscription_groups}) {
    EXPECT_GE(BrokerInspector(slave()).slave_sync().counters().applied[static_cast<std::size_t>(p)], 1u) << SlaveSync::name(p);
    EXPECT_EQ(BrokerInspector(slave()).slave_sync().counters().refused[static_cast<std::size_t>(p)], 0u) << SlaveSync::name(p);
  }
}

TEST_F(SlaveSyncTest, SlaveKeepsItsCopyWhileTheMasterIsDownAndAcrossItsOwnRestart) {
  boot();
  ASSERT_TRUE(create_topic("Kept", 2).ok());
  ASSERT_TRUE(commit_offset("CG", "T", 1, 5).ok());
  SubscriptionGroupConfig g;
  g.group_name = "KeptGroup";
  g.retry_queue_nums = 2;
  ASSERT_TRUE(put_group(g).ok());
  run_until([&] { return in_sync(master(), slave()); }, one_sync(), "the slave in sync");
  wait_for_complete_round();  // and written
  const Snapshot copied = snapshot(slave());
  ASSERT_NE(copied.topics.find("Kept"), copied.topics.end());

  // The master dies (power loss: the NameServer hears nothing for 120 s); rounds fail meanwhile.
  cluster().power_off(cluster().broker_node(0));
  cluster().run_for(45s);
  EXPECT_EQ(snapshot(slave()), copied) << "failed rounds change nothing";

  // The slave loses power too and comes back: everything it copied is on its disk.
  cluster().power_off(cluster().broker_node(slave_));
  cluster().start(cluster().broker_node(slave_));
  run_until([&] { return running(slave_); }, 30s, "the slave restarts");
  EXPECT_EQ(snapshot(slave()), copied);

  // The master returns with its tables; the slave stays in step with it.
  cluster().start(cluster().broker_node(0));
  run_until([&] { return running(0); }, 30s, "the master restarts");
  ASSERT_TRUE(commit_offset("CG", "T", 1, 9).ok());
  run_until([&] { return slave().offsets().query("CG", "T", QueueId(1)) == QueueOffset(9); }, one_registration() + one_sync(),
            "the slave copies the returned master");
  EXPECT_TRUE(in_sync(master(), slave()));
}

// ---- what the slave refuses --------------------------------------------------------------------

// A broker that registers as the master of broker-a and answers every metadata request with a
// malformed body of that kind.
class BadMaster {
 public:
  BadMaster(Runtime& rt, std::vector<std::string> namesrvs) : server_(rt), client_(rt) {
    server_.register_processor(rc::GET_ALL_TOPIC_CONFIG, [](remoting::RequestContext ctx) {
      // The entry's name is not its key.
      return answer(std::move(ctx), R"({"dataVersion":{"counter":99,"timestamp":1},"topicConfigTable":)"
                                    R"({"X":{"topicName":"Y","readQueueNums":1,"writeQueueNums":1,"perm":6}}})");
    });
    server_.register_processor(rc::GET_ALL_CONSUMER_OFFSET, [](remoting::RequestContext ctx) {
      return answer(std::move(ctx), R"({"offsetTable":{"T@CG":{"0":-5}}})");  // a negative offset
    });
    server_.register_processor(rc::GET_ALL_DELAY_OFFSET, [](remoting::RequestContext ctx) {
      return answer(std::move(ctx), R"({"offsetTable":{"19":4}})");  // no level 19
    });
    server_.register_processor(rc::GET_ALL_SUBSCRIPTIONGROUP_CONFIG, [](remoting::RequestContext ctx) {
      return answer(std::move(ctx), R"({"dataVersion":{"counter":99,"timestamp":1},"subscriptionGroupTable":{)");
    });
    const Status s = server_.start(Endpoint{rt.network().host(), 10911});
    if (!s.ok()) ADD_FAILURE() << "the bad master does not listen: " << s.error().to_string();
    remoting::RegisterBrokerRequestHeader h;
    h.broker_name = "broker-a";
    h.broker_addr = fmt::format("{}:10911", rt.network().host());
    h.cluster_name = "DefaultCluster";
    h.ha_server_addr = fmt::format("{}:10912", rt.network().host());
    h.broker_id = 0;
    for (const std::string& ns : namesrvs) {
      RemotingCommand req = remoting::make_request(rc::REGISTER_BROKER, 0);
      req.ext_fields = h.to_fields();
      client_.invoke_async(ns, std::move(req), 5s, [](Result<RemotingCommand> r) {
        if (!r || r->code != code::SUCCESS) ADD_FAILURE() << "the bad master did not register";
      });
    }
  }
  ~BadMaster() {
    server_.stop();
    client_.shutdown();
  }

 private:
  static Task<std::optional<RemotingCommand>> answer(remoting::RequestContext ctx, std::string body) {
    RemotingCommand r = remoting::make_response(ctx.request, code::SUCCESS);
    r.body.assign(body.begin(), body.end());
    co_return r;
  }

  remoting::RpcServer server_;
  remoting::RpcClient client_;  // its connection keeps the registration alive
};

TEST_F(SlaveSyncTest, MalformedBodiesFromTheMasterChangeNothing) {
  boot();
  ASSERT_TRUE(create_topic("Before", 2).ok());
  ASSERT_TRUE(commit_offset("CG", "T", 0, 4).ok());
  SubscriptionGroupConfig g;
  g.group_name = "GroupBefore";
  ASSERT_TRUE(put_group(g).ok());
  run_until([&] { return in_sync(master(), slave()); }, one_sync(), "the slave in sync");
  wait_for_complete_round();
  const Snapshot before = snapshot(slave());

  // The master leaves (unregisters); an impostor serving malformed bodies takes its place.
  auto stopped = cluster().run_task(cluster().broker_node(0), master().stop(), 30s);
  ASSERT_TRUE(stopped.ok()) << stopped.report.message;
  cluster().power_off(cluster().broker_node(0));
  const std::vector<std::string> namesrvs = cluster().namesrv_addrs();
  const sim::NodeId bad = cluster().add_node("bad-master", [namesrvs](Runtime& rt) {
    return sim::hosted(std::make_unique<BadMaster>(rt, namesrvs));
  });
  const std::string bad_addr = fmt::format("{}:10911", cluster().world().node(bad).host());
  run_until([&] { return slave().registrar().master_address() == bad_addr; }, one_registration(),
            "the slave follows the impostor");

  const SlaveSync::Counters at_start = BrokerInspector(slave()).slave_sync().counters();
  run_until(
      [&] {
        const SlaveSync::Counters& now = BrokerInspector(slave()).slave_sync().counters();
        for (std::size_t i = 0; i < SlaveSync::kParts; ++i) {
          if (now.refused[i] < at_start.refused[i] + 2) return false;
        }
        return true;
      },
      3 * one_sync(), "two rounds of refusals");
  EXPECT_EQ(snapshot(slave()), before);
  EXPECT_EQ(BrokerInspector(slave()).slave_sync().counters().applied, at_start.applied);

  // And on its disk: a restart loads what it had.
  cluster().power_off(cluster().broker_node(slave_));
  cluster().kill(bad);
  cluster().start(cluster().broker_node(slave_));
  run_until([&] { return running(slave_); }, 30s, "the slave restarts");
  EXPECT_EQ(snapshot(slave()), before);
}

// Every strict prefix of a body the master sends is refused and changes nothing (the decode path,
// on the slave's own SlaveSync).
TEST_F(SlaveSyncTest, EveryTruncatedBodyIsRefused) {
  boot();
  ASSERT_TRUE(commit_offset("CG", "T", 0, 3).ok());
  run_until([&] { return in_sync(master(), slave()); }, one_sync(), "the slave in sync");
  // The bodies the master serves, from the master's tables after more changes.
  ASSERT_TRUE(create_topic("Later", 1).ok());
  ASSERT_TRUE(commit_offset("CG", "T", 0, 8).ok());
  const std::map<Part, std::string> bodies = {
      {Part::topics, TopicConfigManager::encode(BrokerInspector(master()).topics().table(), BrokerInspector(master()).topics().data_version())},
      {Part::consumer_offsets, ConsumerOffsetManager::encode(master().offsets().table())},
      {Part::delay_offsets, R"({"offsetTable":{"1":4,"2":7}})"},
      {Part::subscription_groups,
       SubscriptionGroupManager::encode(BrokerInspector(master()).consumer_services().groups().table(),
                                        BrokerInspector(master()).consumer_services().groups().data_version())}};
  BrokerInspector(slave()).set_slave_sync_enabled(false);  // only this test changes the slave's tables now
  const Snapshot before = snapshot(slave());
  for (const auto& [part, body] : bodies) {
    for (std::size_t n = 0; n < body.size(); ++n) {
      Result<bool> r = BrokerInspector(slave()).apply_slave_sync(part, std::string_view(body).substr(0, n));
      ASSERT_FALSE(r.ok()) << SlaveSync::name(part) << ": the first " << n << " bytes were taken: " << body.substr(0, n);
      EXPECT_FALSE(r.error().detail.empty());
    }
  }
  EXPECT_EQ(snapshot(slave()), before);
  // The whole bodies are taken.
  for (const auto& [part, body] : bodies) {
    Result<bool> r = BrokerInspector(slave()).apply_slave_sync(part, body);
    ASSERT_TRUE(r.ok()) << SlaveSync::name(part) << ": " << r.error().to_string();
  }
  EXPECT_NE(BrokerInspector(slave()).topics().find("Later"), nullptr);
  EXPECT_EQ(slave().offsets().query("CG", "T", QueueId(0)), QueueOffset(8));
  EXPECT_EQ(BrokerInspector(slave()).consumer_services().schedule().offsets(), (DelayOffsetTable{{1, 4}, {2, 7}}));
}

// The master-side bodies, as RocketMQ 4.9 writes them.
TEST_F(SlaveSyncTest, MasterServesItsWholeTables) {
  boot();
  ASSERT_TRUE(commit_offset("CG", "T", 3, 12).ok());
  Call topics = call_master(remoting::make_request(rc::GET_ALL_TOPIC_CONFIG, 0));
  ASSERT_EQ(topics.reply.code, code::SUCCESS) << topics.remark();
  TopicTable table;
  DataVersion version;
  ASSERT_TRUE(TopicConfigManager::decode(std::string(topics.reply.body.begin(), topics.reply.body.end()), table, version).ok());
  EXPECT_EQ(table, BrokerInspector(master()).topics().table());
  EXPECT_EQ(version, BrokerInspector(master()).topics().data_version());

  Call offsets = call_master(remoting::make_request(rc::GET_ALL_CONSUMER_OFFSET, 0));
  ASSERT_EQ(offsets.reply.code, code::SUCCESS) << offsets.remark();
  const std::string offsets_text(offsets.reply.body.begin(), offsets.reply.body.end());
  EXPECT_NE(offsets_text.find(R"("offsetTable":{"T@CG":{"3":12}})"), std::string::npos) << offsets_text;

  Call delay = call_master(remoting::make_request(rc::GET_ALL_DELAY_OFFSET, 0));
  ASSERT_EQ(delay.reply.code, code::SUCCESS) << delay.remark();
  EXPECT_EQ(std::string(delay.reply.body.begin(), delay.reply.body.end()), R"({"offsetTable":{}})");
}

}  // namespace
}  // namespace ferry::broker::testing
