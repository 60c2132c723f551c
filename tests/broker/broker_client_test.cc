// Client registrations: heartbeats register groups and subscriptions (and the pull path uses
// them), the consumer list, NOTIFY_CONSUMER_IDS_CHANGED on joins, leaves, closed connections and
// 120 s of silence, subscription groups (auto-create, consumeEnable, admin codes, persistence),
// and bad input.
#include "tests/broker/consumer_fixture.h"
#include "tests/support/broker_inspector.h"

using ferry::testing::BrokerInspector;

namespace ferry::broker::testing {
namespace {

using namespace std::chrono_literals;

TEST_F(ConsumerTest, HeartbeatRegistersGroupAndAPullWithoutTheSubscriptionFlagThenWorks) {
  boot();
  ASSERT_EQ(send(Msg{}).reply.code, code::SUCCESS);
  Msg tagged;
  tagged.body = "tagged";
  tagged.tag("TagA");
  ASSERT_EQ(send(tagged).reply.code, code::SUCCESS);

  Pull p;
  p.subscription = std::nullopt;
  Call before = pull(p);
  EXPECT_EQ(before.reply.code, code::SUBSCRIPTION_NOT_EXIST) << before.remark();

  TestClient& a = add_client("10.0.0.1@1");
  Call hb = heartbeat(a, "CG", "T", "TagA");
  ASSERT_EQ(hb.reply.code, code::SUCCESS) << hb.remark();
  // The subscription group and the retry topic exist now.
  ASSERT_NE(BrokerInspector(broker()).consumer_services().groups().find("CG"), nullptr);
  const TopicConfig* retry = BrokerInspector(broker()).topics().find("%RETRY%CG");
  ASSERT_NE(retry, nullptr);
  EXPECT_EQ(retry->read_queue_nums, 1);
  EXPECT_EQ(retry->write_queue_nums, 1);
  EXPECT_EQ(retry->perm, 6);

  const auto got = all_of(p);  // one pull may return fewer, or none that match (PULL_RETRY_IMMEDIATELY)
  ASSERT_EQ(got.size(), 1u);  // the heartbeat's filter (TagA) applies
  EXPECT_EQ(body_text(got[0]), "tagged");

  // A pull naming a newer subVersion than the heartbeat's gets 25.
  RemotingCommand newer = pull_request(p);
  newer.ext_fields.set("subVersion", "101");
  EXPECT_EQ(call_pull(newer).reply.code, code::SUBSCRIPTION_NOT_LATEST);
  // Another topic the group does not subscribe: 24.
  Pull other = p;
  other.topic = "Other";
  ASSERT_EQ(send(Msg{.topic = "Other"}).reply.code, code::SUCCESS);
  EXPECT_EQ(pull(other).reply.code, code::SUBSCRIPTION_NOT_EXIST);
}

TEST_F(ConsumerTest, ConsumerListHasEveryMemberSorted) {
  boot();
  TestClient& b = add_client("10.0.0.2@2");
  TestClient& a = add_client("10.0.0.1@1");
  ASSERT_EQ(heartbeat(b, "CG").reply.code, code::SUCCESS);
  ASSERT_EQ(heartbeat(a, "CG").reply.code, code::SUCCESS);
  EXPECT_EQ(consumer_list("CG"), (std::vector<std::string>{"10.0.0.1@1", "10.0.0.2@2"}));
  Call none = call(consumer_list_request("Nobody"));
  EXPECT_EQ(none.reply.code, code::SYSTEM_ERROR);
  EXPECT_NE(none.remark().find("no consumer"), std::string::npos) << none.remark();
}

TEST_F(ConsumerTest, NotifiesTheGroupWhenAMemberJoinsLeavesDisconnectsOrGoesSilent) {
  without_buggify("counts NOTIFY_CONSUMER_IDS_CHANGED, a oneway request buggify may drop (legally: clients "
                  "rebalance on their own timer too)");
  boot();
  TestClient& a = add_client("10.0.0.1@1");
  TestClient& b = add_client("10.0.0.2@2");
  ASSERT_EQ(heartbeat(a, "CG").reply.code, code::SUCCESS);
  run_for(1s);
  const std::size_t a0 = a.log->notified_groups.size();

  // b joins: a hears about it (oneway, consumerGroup CG).
  ASSERT_EQ(heartbeat(b, "CG").reply.code, code::SUCCESS);
  run_for(1s);
  ASSERT_EQ(a.log->notified_groups.size(), a0 + 1);
  EXPECT_EQ(a.log->notified_groups.back(), "CG");
  EXPECT_TRUE(a.log->notify_oneway.back());
  // A repeated heartbeat changes nothing: no notification.
  ASSERT_EQ(heartbeat(b, "CG").reply.code, code::SUCCESS);
  run_for(1s);
  EXPECT_EQ(a.log->notified_groups.size(), a0 + 1);

  // b unregisters.
  remoting::UnregisterClientRequestHeader u;
  u.client_id = b.client_id;
  u.consumer_group = "CG";
  RemotingCommand ur = remoting::make_request(rc::UNREGISTER_CLIENT, 0);
  ur.ext_fields = u.to_fields();
  ASSERT_EQ(call_from(b, std::move(ur)).reply.code, code::SUCCESS);
  run_for(1s);
  EXPECT_EQ(a.log->notified_groups.size(), a0 + 2);
  EXPECT_EQ(consumer_list("CG"), (std::vector<std::string>{"10.0.0.1@1"}));

  // b joins again and closes its connection: dropped at once.
  ASSERT_EQ(heartbeat(b, "CG").reply.code, code::SUCCESS);
  run_for(1s);
  EXPECT_EQ(a.log->notified_groups.size(), a0 + 3);
  b.rpc->close_channel(addr_);
  run_for(1s);
  EXPECT_EQ(a.log->notified_groups.size(), a0 + 4);
  EXPECT_EQ(consumer_list("CG"), (std::vector<std::string>{"10.0.0.1@1"}));

  // b joins again and goes silent; a keeps heartbeating every 10 s.
  ASSERT_EQ(heartbeat(b, "CG").reply.code, code::SUCCESS);
  run_for(1s);
  EXPECT_EQ(a.log->notified_groups.size(), a0 + 5);
  for (int i = 0; i < 11; ++i) {
    ASSERT_EQ(heartbeat(a, "CG").reply.code, code::SUCCESS);
    run_for(10s);
  }
  // ~111 s of silence: still a member.
  EXPECT_EQ(consumer_list("CG").size(), 2u);
  EXPECT_EQ(a.log->notified_groups.size(), a0 + 5);
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(heartbeat(a, "CG").reply.code, code::SUCCESS);
    run_for(10s);
  }
  EXPECT_EQ(consumer_list("CG"), (std::vector<std::string>{"10.0.0.1@1"}));
  EXPECT_EQ(a.log->notified_groups.size(), a0 + 6);
  EXPECT_EQ(BrokerInspector(broker()).consumer_services().consumers().registrations(), 1u);
}

TEST_F(ConsumerTest, SubscriptionGroupsAreAutoCreatedAdministeredAndPersisted) {
  boot();
  TestClient& a = add_client("10.0.0.1@1");
  ASSERT_EQ(heartbeat(a, "CG").reply.code, code::SUCCESS);
  const SubscriptionGroupConfig* g = BrokerInspector(broker()).consumer_services().groups().find("CG");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->retry_max_times, 16);
  EXPECT_TRUE(g->consume_enable);

  // 200: consumeEnable false → pulls get 16.
  SubscriptionGroupConfig off;
  off.group_name = "CG";
  off.consume_enable = false;
  off.retry_max_times = 3;
  RemotingCommand up = remoting::make_request(rc::UPDATE_AND_CREATE_SUBSCRIPTIONGROUP, 0);
  up.body = remoting::body::write_body([&](remoting::json::Writer& w) { off.write(w); });
  ASSERT_EQ(call(std::move(up)).reply.code, code::SUCCESS);
  ASSERT_EQ(send(Msg{}).reply.code, code::SUCCESS);
  Call denied = pull(Pull{});
  EXPECT_EQ(denied.reply.code, code::NO_PERMISSION) << denied.remark();

  // 201 lists it.
  Call all = call(remoting::make_request(rc::GET_ALL_SUBSCRIPTIONGROUP_CONFIG, 0));
  ASSERT_EQ(all.reply.code, code::SUCCESS);
  SubscriptionGroupTable table;
  remoting::body::DataVersion v;
  ASSERT_TRUE(SubscriptionGroupManager::decode(std::string(all.reply.body.begin(), all.reply.body.end()), table, v).ok());
  ASSERT_TRUE(table.contains("CG"));
  EXPECT_FALSE(table.at("CG").consume_enable);

  // Survives a restart (subscriptionGroup.json).
  graceful_restart();
  g = BrokerInspector(broker()).consumer_services().groups().find("CG");
  ASSERT_NE(g, nullptr);
  EXPECT_FALSE(g->consume_enable);
  EXPECT_EQ(g->retry_max_times, 3);

  // 207 deletes it; the next pull auto-creates it again with the defaults.
  RemotingCommand del = remoting::make_request(rc::DELETE_SUBSCRIPTIONGROUP, 0);
  del.ext_fields.set("groupName", "CG");
  ASSERT_EQ(call(std::move(del)).reply.code, code::SUCCESS);
  EXPECT_EQ(BrokerInspector(broker()).consumer_services().groups().find("CG"), nullptr);
  EXPECT_EQ(pull(Pull{}).reply.code, code::SUCCESS);
  ASSERT_NE(BrokerInspector(broker()).consumer_services().groups().find("CG"), nullptr);
}

TEST_F(ConsumerTest, GroupsThatCannotBeCreatedAreRefused) {
  config_.auto_create_subscription_group = false;
  boot();
  ASSERT_EQ(send(Msg{}).reply.code, code::SUCCESS);
  EXPECT_EQ(pull(Pull{}).reply.code, code::SUBSCRIPTION_GROUP_NOT_EXIST);
  EXPECT_EQ(call(send_back_request(0, "CG", 0)).reply.code, code::SUBSCRIPTION_GROUP_NOT_EXIST);
}

TEST_F(ConsumerTest, BadInputGetsAnErrorNamingTheField) {
  boot();
  RemotingCommand garbage = remoting::make_request(rc::HEART_BEAT, 0);
  garbage.body = {'{', 'x'};
  Call g = call(std::move(garbage));
  EXPECT_EQ(g.reply.code, code::SYSTEM_ERROR);

  Call empty_id = call(heartbeat_request(consumer_heartbeat("", "CG", "T")));
  EXPECT_EQ(empty_id.reply.code, code::SYSTEM_ERROR);
  EXPECT_NE(empty_id.remark().find("clientID"), std::string::npos) << empty_id.remark();

  Call bad_group = call(heartbeat_request(consumer_heartbeat("c@1", "bad group!", "T")));
  EXPECT_EQ(bad_group.reply.code, code::SYSTEM_ERROR);
  EXPECT_NE(bad_group.remark().find("groupName"), std::string::npos) << bad_group.remark();

  Call no_id = call(remoting::make_request(rc::UNREGISTER_CLIENT, 0));
  EXPECT_EQ(no_id.reply.code, code::SYSTEM_ERROR);
  EXPECT_NE(no_id.remark().find("clientID"), std::string::npos) << no_id.remark();

  Call no_group = call(remoting::make_request(rc::GET_CONSUMER_LIST_BY_GROUP, 0));
  EXPECT_NE(no_group.remark().find("consumerGroup"), std::string::npos) << no_group.remark();

  RemotingCommand sb = send_back_request(0, "CG", 0);
  (void)sb.ext_fields.erase("offset");
  Call no_offset = call(std::move(sb));
  EXPECT_EQ(no_offset.reply.code, code::SYSTEM_ERROR);
  EXPECT_NE(no_offset.remark().find("offset"), std::string::npos) << no_offset.remark();

  Call bad_offset = call(send_back_request(123456789, "CG", 0));
  EXPECT_EQ(bad_offset.reply.code, code::SYSTEM_ERROR);
  EXPECT_NE(bad_offset.remark().find("look message by offset failed"), std::string::npos) << bad_offset.remark();

  RemotingCommand lock = remoting::make_request(rc::LOCK_BATCH_MQ, 0);
  lock.body = {'[', ']'};
  EXPECT_EQ(call(std::move(lock)).reply.code, code::SYSTEM_ERROR);
  Call no_client = call(lock_request(rc::LOCK_BATCH_MQ, "CG", "", {0}));
  EXPECT_EQ(no_client.reply.code, code::SYSTEM_ERROR);
  EXPECT_NE(no_client.remark().find("clientId"), std::string::npos) << no_client.remark();

  RemotingCommand del = remoting::make_request(rc::DELETE_SUBSCRIPTIONGROUP, 0);
  Call no_name = call(std::move(del));
  EXPECT_NE(no_name.remark().find("groupName"), std::string::npos) << no_name.remark();
  // The broker still serves.
  EXPECT_EQ(send(Msg{}).reply.code, code::SUCCESS);
}


TEST_F(ConsumerTest, TheVipPortServesEverythingButPull) {
  without_buggify("counts the NOTIFY_CONSUMER_IDS_CHANGED a closed VIP channel causes, a oneway request buggify "
                  "may drop (legally); rpc_sim_faults_test covers the VIP port's pull under buggify");
  config_.vip_channel_enable = true;
  boot();
  const std::string vip = broker().vip_address();
  auto call_vip = [&](TestClient& c, RemotingCommand req) {
    return outcome(cluster().run_task(c.node, invoke(c.rpc.get(), vip, std::move(req), std::chrono::seconds(5)),
                                      std::chrono::seconds(60)));
  };
  TestClient& a = add_client("10.0.0.1@1");
  TestClient& b = add_client("10.0.0.2@2");
  EXPECT_EQ(call_vip(a, send_request(Msg{})).reply.code, code::SUCCESS);
  EXPECT_EQ(call_vip(a, pull_request(Pull{})).reply.code, code::REQUEST_CODE_NOT_SUPPORTED);
  EXPECT_EQ(pull(Pull{}).reply.code, code::SUCCESS);
  // Registrations from both ports are distinct members, even if their channel ids coincide.
  ASSERT_EQ(call_vip(a, heartbeat_request(consumer_heartbeat(a.client_id, "CG", "T"))).reply.code, code::SUCCESS);
  ASSERT_EQ(heartbeat(b, "CG").reply.code, code::SUCCESS);
  run_for(1s);
  EXPECT_EQ(consumer_list("CG"), (std::vector<std::string>{"10.0.0.1@1", "10.0.0.2@2"}));
  const std::size_t b0 = b.log->notified_groups.size();
  a.rpc->close_channel(vip);
  run_for(1s);
  EXPECT_EQ(consumer_list("CG"), (std::vector<std::string>{"10.0.0.2@2"}));
  EXPECT_EQ(b.log->notified_groups.size(), b0 + 1);
}

}  // namespace
}  // namespace ferry::broker::testing
