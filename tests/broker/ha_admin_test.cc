// The operator's view of replication in the simulator, over the wire as `mqadmin` sends it
// (AdminClient on an operator node): GET_BROKER_HA_STATUS shows a connected slave with its acked
// offset and no lag once it caught up, and the lag while it is partitioned away from its master;
// GET_BROKER_RUNTIME_INFO carries the same figures; FERRY_PROMOTE_SLAVE turns the slave of a dead
// master into the group's master: it registers as brokerId 0, takes sends, and is still the master
// after a restart (config/ha_role.json).
//
//   build/bin/sim_ha_admin_test
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <set>
#include <string>

#include "client/admin_client.h"
#include "client/client_instance.h"
#include "client/pop_consumer.h"
#include "common/record_reader.h"
#include "remoting/body/ha_runtime_info.h"
#include "remoting/body/kv_table.h"
#include "remoting/request_code.h"
#include "sim/cluster/cluster.h"
#include "sim/cluster/workload.h"
#include "tests/support/broker_inspector.h"
#include "tests/support/sim_test_util.h"
#include "tests/support/sim_trace_log.h"
#include "tests/support/swarm_env.h"

using ferry::testing::BrokerInspector;

namespace ferry::sim::cluster {
namespace {

using namespace std::chrono_literals;
using remoting::body::HaRuntimeInfo;

constexpr const char* kTopic = "Ledger";

ClusterSpec ha_spec(store::FlushMode flush, broker::BrokerRole role) {
  ClusterSpec s;
  BrokerGroupSpec& g = s.brokers.front();
  g.slaves = 1;
  g.flush = flush;
  g.role = role;
  s.topics.push_back(TopicSpec{kTopic, 4});
  return s;
}

// ---- the operator's calls, each on a fresh ClientInstance of the operator node ----------------

Task<Result<HaRuntimeInfo>> ha_status_call(Runtime* rt, client::ClientConfig config, std::string addr) {
  client::ClientInstance ci(*rt, config);
  client::AdminClient admin(ci);
  Task<Result<HaRuntimeInfo>> t = admin.ha_status(addr);
  Result<HaRuntimeInfo> r = co_await std::move(t);
  co_await ci.shutdown();
  co_return r;
}

Task<Result<remoting::body::EpochAcks>> epoch_acks_call(Runtime* rt, client::ClientConfig config, std::string addr) {
  client::ClientInstance ci(*rt, config);
  client::AdminClient admin(ci);
  Task<Result<remoting::body::EpochAcks>> t = admin.epoch_acks(addr);
  Result<remoting::body::EpochAcks> r = co_await std::move(t);
  co_await ci.shutdown();
  co_return r;
}

Task<Status> promote_call(Runtime* rt, client::ClientConfig config, std::string addr, std::string role) {
  client::ClientInstance ci(*rt, config);
  client::AdminClient admin(ci);
  Task<Status> t = admin.promote_slave(addr, role);
  Status s = co_await std::move(t);
  co_await ci.shutdown();
  co_return s;
}

Task<Result<remoting::body::KvTable>> runtime_info_call(Runtime* rt, client::ClientConfig config, std::string addr) {
  client::ClientInstance ci(*rt, config);
  Result<remoting::RemotingCommand> r = co_await ci.rpc().invoke(
      addr, remoting::make_request(remoting::request_code::GET_BROKER_RUNTIME_INFO, 0), config.api_timeout);
  co_await ci.shutdown();
  if (!r.ok()) co_return std::move(r).error();
  co_return remoting::body::KvTable::decode(r->body);
}

// The address broker-a's id 0 has in the topic's route, "" when none.
Task<Result<std::string>> master_in_route_call(Runtime* rt, client::ClientConfig config) {
  client::ClientInstance ci(*rt, config);
  client::AdminClient admin(ci);
  Task<Result<remoting::body::TopicRouteData>> t = admin.topic_route(kTopic);
  Result<remoting::body::TopicRouteData> route = co_await std::move(t);
  co_await ci.shutdown();
  if (!route.ok()) co_return std::move(route).error();
  for (const auto& b : route->broker_datas) {
    auto it = b.broker_addrs.find(0);
    if (b.broker_name == "broker-a" && it != b.broker_addrs.end()) co_return it->second;
  }
  co_return std::string();
}

class Operator {
 public:
  explicit Operator(Cluster& c) : c_(c), node_(c.add_bare("operator")) {}

  HaRuntimeInfo ha_status(std::size_t broker) {
    auto r = c_.run_task(node_, ha_status_call(&c_.world().node(node_), config(), c_.broker_addr(broker)), 30s);
    EXPECT_TRUE(r.ok()) << r.report.message;
    if (!r.ok()) return {};
    EXPECT_TRUE(r.value->ok()) << r.value->error().to_string();
    return r.value->ok() ? **r.value : HaRuntimeInfo{};
  }
  remoting::body::EpochAcks epoch_acks(std::size_t broker) {
    auto r = c_.run_task(node_, epoch_acks_call(&c_.world().node(node_), config(), c_.broker_addr(broker)), 30s);
    EXPECT_TRUE(r.ok()) << r.report.message;
    if (!r.ok()) return {};
    EXPECT_TRUE(r.value->ok()) << r.value->error().to_string();
    return r.value->ok() ? **r.value : remoting::body::EpochAcks{};
  }
  remoting::body::KvTable runtime_info(std::size_t broker) {
    auto r = c_.run_task(node_, runtime_info_call(&c_.world().node(node_), config(), c_.broker_addr(broker)), 30s);
    EXPECT_TRUE(r.ok()) << r.report.message;
    if (!r.ok()) return {};
    EXPECT_TRUE(r.value->ok()) << r.value->error().to_string();
    return r.value->ok() ? **r.value : remoting::body::KvTable{};
  }
  Status promote(std::size_t broker, const std::string& role) {
    auto r = c_.run_task(node_, promote_call(&c_.world().node(node_), config(), c_.broker_addr(broker), role), 30s);
    if (!r.ok()) return Error(Errc::timed_out, r.report.message);
    return *r.value;
  }
  // Polls the NameServers' route (every second, `limit` at most) until broker-a's id 0 is `addr`.
  bool wait_master_in_route(const std::string& addr, Duration limit) {
    const MonoTime deadline = c_.world().now() + limit;
    while (c_.world().now() < deadline) {
      auto r = c_.run_task(node_, master_in_route_call(&c_.world().node(node_), config()), 30s);
      if (r.ok() && r.value->ok() && **r.value == addr) return true;
      c_.run_for(1s);
    }
    return false;
  }

 private:
  client::ClientConfig config() const { return c_.client_config("operator"); }
  Cluster& c_;
  NodeId node_;
};

std::string ha_address_of(Cluster& c, std::size_t broker) {
  return fmt::format("{}:{}", c.world().node(c.broker_node(broker)).host(), c.broker_config(broker).listen_port + 1);
}

bool caught_up(Cluster& c, std::size_t slave) {
  broker::Broker* m = c.broker(0);
  broker::Broker* s = c.broker(slave);
  return m && s && s->state() == broker::Broker::State::running &&
         s->store().max_phy_offset() == m->store().max_phy_offset() &&
         s->store().reput_offset() == s->store().max_phy_offset();
}

NodeId send_messages(Cluster& c, const std::string& name, std::uint64_t messages, std::shared_ptr<History> history) {
  ProducerSpec p;
  p.topic = kTopic;
  p.messages = messages;
  p.interval = 100ms;
  return c.add_client(name, producer_app(p, history));
}

// The sequence number of the intact workload message at (queue, offset) of `b`'s store, if any.
std::optional<std::uint64_t> stored_seq(broker::Broker& b, const MessageQueue& q, QueueOffset offset) {
  auto got = BrokerInspector(b).get_messages(q.topic, q.queue_id, offset, 1);
  if (got.status != store::GetStatus::found || got.messages.empty()) return std::nullopt;
  const RecordRead r = decode_record(got.messages.front().bytes());
  if (r.kind != RecordKind::message) return std::nullopt;
  auto body = parse_body(std::string_view(reinterpret_cast<const char*>(r.fields.body.data()), r.fields.body.size()));
  if (!body) return std::nullopt;
  return body->seq;
}

// Every send of `h` was acknowledged and is in `b`'s store at its queue offset.
void expect_all_acked_and_stored(const History& h, broker::Broker& b, std::size_t expected) {
  EXPECT_EQ(h.sends.size(), expected);
  for (const SendRecord& r : h.sends) {
    ASSERT_EQ(r.outcome, SendOutcome::ok) << r.producer << "#" << r.seq << ": " << r.detail;
    EXPECT_EQ(stored_seq(b, r.queue, r.queue_offset), r.seq)
        << r.producer << "#" << r.seq << " at " << r.queue.to_string() << ":" << r.queue_offset.value();
  }
}

class HaAdminSim : public ::testing::Test {
 protected:
  HaAdminSim() : options_(ferry::testing::world_options(sim::testing::test_options(23))), trace_(options_) {}
  WorldOptions options_;
  ferry::testing::ReplayTrace trace_;
};

TEST_F(HaAdminSim, HaStatusShowsTheSlavesAckedOffsetNoLagWhenCaughtUpAndTheLagWhilePartitioned) {
  SKIP_UNDER_SWARM("the test partitions the pair itself and reads exact figures");
  Cluster c(options_, ha_spec(store::FlushMode::async_flush, broker::BrokerRole::async_master));
  const ferry::testing::TraceOnExit traced(c.world());
  ASSERT_TRUE(c.boot().ok()) << c.describe();
  const std::size_t slave = *c.slave_index(0);
  Operator op(c);
  auto before = std::make_shared<History>();
  const NodeId p1 = send_messages(c, "producer-1", 30, before);
  ASSERT_TRUE(c.run_until([&] { return producer_done(c, p1) && caught_up(c, slave); }, 2min).ok()) << c.describe();
  const PhysicalOffset end = c.broker(0)->store().max_phy_offset();
  ASSERT_GT(end.value(), 0);

  // Caught up: the master lists the slave at the master's end, in sync, no lag.
  HaRuntimeInfo m = op.ha_status(0);
  EXPECT_TRUE(m.master);
  EXPECT_EQ(m.broker_role, "ASYNC_MASTER");
  EXPECT_EQ(m.master_commit_log_max_offset, end);
  ASSERT_EQ(m.ha_connection_info.size(), 1u);
  const remoting::body::HaConnectionRuntimeInfo link = m.ha_connection_info[0];  // m is reused below
  EXPECT_EQ(link.slave_ack_offset, end);
  EXPECT_EQ(link.diff_bytes, 0);
  EXPECT_EQ(link.diff_ms, 0);
  EXPECT_TRUE(link.in_sync);
  EXPECT_EQ(link.transfer_from_where, end);
  EXPECT_EQ(m.in_sync_slave_nums, 1);
  EXPECT_EQ(m.links_dropped, 0u);
  // The slave's own view names its master and the address the master lists it under.
  HaRuntimeInfo s = op.ha_status(slave);
  EXPECT_FALSE(s.master);
  EXPECT_EQ(s.broker_role, "SLAVE");
  EXPECT_TRUE(s.ha_client_runtime_info.connected);
  EXPECT_EQ(s.ha_client_runtime_info.master_addr, ha_address_of(c, 0));
  EXPECT_EQ(s.ha_client_runtime_info.max_offset, end);
  EXPECT_EQ(s.ha_client_runtime_info.local_addr, link.addr);
  EXPECT_GT(s.ha_client_runtime_info.last_read_timestamp_ms, 0);
  // brokerStatus's keys say the same.
  remoting::body::KvTable mk = op.runtime_info(0);
  EXPECT_EQ(mk.get("slaveNum"), "1");
  EXPECT_EQ(mk.get("inSyncSlaveNums"), "1");
  EXPECT_EQ(mk.get("slaveAckOffset"), std::to_string(end.value()));
  EXPECT_EQ(mk.get("diff"), "0");
  EXPECT_EQ(mk.get("haReplicatedOffset"), std::to_string(end.value()));
  remoting::body::KvTable sk = op.runtime_info(slave);
  EXPECT_EQ(sk.get("haConnected"), "true");
  EXPECT_EQ(sk.get("masterAddr"), ha_address_of(c, 0));
  EXPECT_EQ(sk.get("slaveNum"), std::nullopt);
  // Outside controller mode every SEND_OK counts in epoch 0, on the master only.
  const remoting::body::EpochAcks acks = op.epoch_acks(0);
  EXPECT_EQ(acks.last_epoch, 0);
  EXPECT_EQ(acks.acked_by_epoch, (std::map<std::int32_t, std::int64_t>{{0, 30}}));
  EXPECT_TRUE(op.epoch_acks(slave).acked_by_epoch.empty());

  // Partitioned away, the slave falls behind by what the master took since.
  c.partition(c.broker_node(0), c.broker_node(slave));
  auto during = std::make_shared<History>();
  const NodeId p2 = send_messages(c, "producer-2", 20, during);
  ASSERT_TRUE(c.run_until([&] { return producer_done(c, p2); }, 1min).ok()) << c.describe();
  ASSERT_EQ(during->acked().size(), 20u);
  const PhysicalOffset end2 = c.broker(0)->store().max_phy_offset();
  ASSERT_GT(end2, end);
  m = op.ha_status(0);
  ASSERT_EQ(m.ha_connection_info.size(), 1u) << "the link lives until 20 s of silence";
  EXPECT_EQ(m.master_commit_log_max_offset, end2);
  EXPECT_EQ(m.ha_connection_info[0].slave_ack_offset, end);
  EXPECT_EQ(m.ha_connection_info[0].diff_bytes, end2 - end);
  EXPECT_GT(m.ha_connection_info[0].diff_ms, 0) << "the oldest message the slave lacks has an age";
  s = op.ha_status(slave);
  EXPECT_EQ(s.ha_client_runtime_info.max_offset, end);
  // After 20 s of silence both ends drop the link, and say so.
  ASSERT_TRUE(c.run_until([&] { return BrokerInspector(*c.broker(0)).ha_master().slave_count() == 0 &&
                                       !BrokerInspector(*c.broker(slave)).ha_slave().status().connected; },
                          1min)
                  .ok())
      << c.describe();
  m = op.ha_status(0);
  EXPECT_TRUE(m.ha_connection_info.empty());
  EXPECT_EQ(m.in_sync_slave_nums, 0);
  EXPECT_EQ(m.links_dropped, 1u);
  EXPECT_NE(m.last_drop.find(link.addr), std::string::npos) << m.last_drop;
  s = op.ha_status(slave);
  EXPECT_FALSE(s.ha_client_runtime_info.connected);
  EXPECT_FALSE(s.ha_client_runtime_info.last_drop.empty());
  EXPECT_EQ(op.runtime_info(0).get("slaveNum"), "0");
  EXPECT_EQ(op.runtime_info(slave).get("haConnected"), "false");

  // Healed, it catches up and the lag is gone.
  c.heal(c.broker_node(0), c.broker_node(slave));
  ASSERT_TRUE(c.run_until([&] { return caught_up(c, slave) && BrokerInspector(*c.broker(0)).ha_master().slave_count() == 1; }, 1min).ok())
      << c.describe();
  ASSERT_TRUE(c.run_until([&] { return BrokerInspector(*c.broker(0)).ha_master().replicated_offset() == end2; }, 30s).ok())
      << c.describe();
  m = op.ha_status(0);
  ASSERT_EQ(m.ha_connection_info.size(), 1u);
  EXPECT_EQ(m.ha_connection_info[0].slave_ack_offset, end2);
  EXPECT_EQ(m.ha_connection_info[0].diff_bytes, 0);
  EXPECT_EQ(m.ha_connection_info[0].diff_ms, 0);
  EXPECT_TRUE(op.ha_status(slave).ha_client_runtime_info.connected);
}

TEST_F(HaAdminSim, PromoteSlaveOverTheWireMakesItTheMasterThatTakesSendsAndStaysMasterAfterARestart) {
  SKIP_UNDER_SWARM("the test kills the master itself and checks every send");
  Cluster c(options_, ha_spec(store::FlushMode::sync_flush, broker::BrokerRole::sync_master));
  const ferry::testing::TraceOnExit traced(c.world());
  ASSERT_TRUE(c.boot().ok()) << c.describe();
  const std::size_t slave = *c.slave_index(0);
  const std::string slave_addr = c.broker_addr(slave);
  Operator op(c);
  ASSERT_TRUE(c.run_until([&] { return BrokerInspector(*c.broker(slave)).ha_slave().status().connected; }, 1min).ok()) << c.describe();
  auto before = std::make_shared<History>();
  const NodeId p1 = send_messages(c, "producer-1", 30, before);
  ASSERT_TRUE(c.run_until([&] { return producer_done(c, p1) && caught_up(c, slave); }, 2min).ok()) << c.describe();
  ASSERT_EQ(before->acked().size(), 30u);

  // A role other than a master's is refused.
  Status bad = op.promote(slave, "SLAVE");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().detail.find("SYNC_MASTER or ASYNC_MASTER"), std::string::npos) << bad.error().to_string();
  // A master refuses.
  Status refused = op.promote(0, "ASYNC_MASTER");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().detail.find("already a master"), std::string::npos) << refused.error().to_string();

  c.kill(c.broker_node(0));
  Status promoted = op.promote(slave, "ASYNC_MASTER");
  ASSERT_TRUE(promoted.ok()) << promoted.error().to_string();
  EXPECT_EQ(c.broker(slave)->config().broker_role, broker::BrokerRole::async_master);
  EXPECT_EQ(c.broker(slave)->config().broker_id, 0);
  HaRuntimeInfo h = op.ha_status(slave);
  EXPECT_TRUE(h.master);
  EXPECT_EQ(h.broker_role, "ASYNC_MASTER");
  // Registered as the group's master at once (the dead master's entry is replaced, not expired).
  EXPECT_TRUE(op.wait_master_in_route(slave_addr, 10s)) << c.describe();
  // Everything acknowledged under SYNC_MASTER is there, and new sends are taken.
  expect_all_acked_and_stored(*before, *c.broker(slave), 30);
  auto after = std::make_shared<History>();
  const NodeId p2 = send_messages(c, "producer-2", 20, after);
  ASSERT_TRUE(c.run_until([&] { return producer_done(c, p2); }, 1min).ok()) << c.describe();
  expect_all_acked_and_stored(*after, *c.broker(slave), 20);
  // Promoting again is refused: it is a master now.
  EXPECT_FALSE(op.promote(slave, "ASYNC_MASTER").ok());

  // Restarted (its broker.conf still says SLAVE, brokerId 1), it comes back as the master.
  c.restart(c.broker_node(slave), CrashKind::process_kill, 1s);
  ASSERT_TRUE(c.run_until([&] { return c.broker(slave) != nullptr && c.broker(slave)->state() == broker::Broker::State::running; },
                          1min)
                  .ok())
      << c.describe();
  EXPECT_EQ(c.broker_config(slave).broker_role, broker::BrokerRole::slave) << "the configured role";
  EXPECT_EQ(c.broker(slave)->config().broker_role, broker::BrokerRole::async_master);
  EXPECT_EQ(c.broker(slave)->config().broker_id, 0);
  EXPECT_TRUE(op.ha_status(slave).master);
  EXPECT_TRUE(op.wait_master_in_route(slave_addr, 10s)) << c.describe();
  expect_all_acked_and_stored(*after, *c.broker(slave), 20);
  auto restarted = std::make_shared<History>();
  const NodeId p3 = send_messages(c, "producer-3", 10, restarted);
  ASSERT_TRUE(c.run_until([&] { return producer_done(c, p3); }, 1min).ok()) << c.describe();
  expect_all_acked_and_stored(*restarted, *c.broker(slave), 10);
}

// Every intact workload message of `topic` in `b`'s store, as the sequence numbers of its bodies.
std::vector<std::uint64_t> stored_seqs(broker::Broker& b, const std::string& topic, std::int32_t queues) {
  std::vector<std::uint64_t> out;
  for (std::int32_t q = 0; q < queues; ++q) {
    QueueOffset at(0);
    for (int pages = 0; pages < 1000; ++pages) {
      auto got = BrokerInspector(b).get_messages(topic, QueueId(q), at, 32);
      for (const auto& view : got.messages) {
        const RecordRead r = decode_record(view.bytes());
        if (r.kind != RecordKind::message) continue;
        auto body = parse_body(std::string_view(reinterpret_cast<const char*>(r.fields.body.data()), r.fields.body.size()));
        if (body) out.push_back(body->seq);
      }
      if (got.status != store::GetStatus::found || got.next_begin_offset <= at) break;
      at = got.next_begin_offset;
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A slave promoted after its master died delivers the timers the master still had pending, and
// not those the master delivered (their copies came with the log): each timer exactly once.
TEST_F(HaAdminSim, APromotedSlaveDeliversTheDeadMastersPendingTimersEachOnce) {
  SKIP_UNDER_SWARM("the test kills the master itself and checks every timer");
  Cluster c(options_, ha_spec(store::FlushMode::sync_flush, broker::BrokerRole::sync_master));
  const ferry::testing::TraceOnExit traced(c.world());
  ASSERT_TRUE(c.boot().ok()) << c.describe();
  const std::size_t slave = *c.slave_index(0);
  Operator op(c);
  ASSERT_TRUE(c.run_until([&] { return BrokerInspector(*c.broker(slave)).ha_slave().status().connected; }, 1min).ok()) << c.describe();
  auto history = std::make_shared<History>();
  ProducerSpec p;
  p.topic = kTopic;
  p.messages = 30;
  p.interval = 100ms;
  p.timers = ProducerSpec::Timers{2s, 20s};
  const MonoTime start = c.world().now();
  const NodeId producer = c.add_client("scheduler", producer_app(p, history));
  ASSERT_TRUE(c.run_until([&] { return producer_done(c, producer) && caught_up(c, slave); }, 2min).ok()) << c.describe();
  ASSERT_EQ(history->acked().size(), 30u);
  c.run_for(start + 9s - c.world().now());
  ASSERT_TRUE(c.run_until([&] { return caught_up(c, slave); }, 1min).ok()) << c.describe();
  const std::uint64_t delivered_by_master = BrokerInspector(*c.broker(0)).consumer_services().timers().delivered();
  EXPECT_GT(delivered_by_master, 0u);
  EXPECT_LT(delivered_by_master, 30u) << "some timers were still pending when the master died";

  c.kill(c.broker_node(0));
  ASSERT_TRUE(op.promote(slave, "ASYNC_MASTER").ok());
  c.run_for(30s);
  std::vector<std::uint64_t> want;
  for (std::uint64_t i = 0; i < 30; ++i) want.push_back(i);
  EXPECT_EQ(stored_seqs(*c.broker(slave), kTopic, 4), want) << "every timer once on the promoted slave";
  const auto& timers = BrokerInspector(*c.broker(slave)).consumer_services().timers();
  EXPECT_EQ(timers.skipped_as_delivered(), delivered_by_master) << "the master's deliveries, found in the log";
  EXPECT_EQ(timers.delivered(), 30u - delivered_by_master);
}

// One round of a POP consumer (its own ClientInstance, so that it reads the route afresh): receives
// `topic` for `group` until `want` messages came or `patience` passed, acknowledging those whose
// producer seq `ack` names. Returns (seq, reconsumeTimes) of each message received.
Task<std::vector<std::pair<std::uint64_t, std::int32_t>>> pop_round(Runtime* rt, client::ClientConfig config,
                                                                    std::string group, std::size_t want, Duration patience,
                                                                    std::function<bool(std::uint64_t)> ack) {
  client::ClientInstance ci(*rt, config);
  ci.start();
  client::PopConsumer pc(ci, client::PopConsumerConfig{.group = group, .max_messages = 16, .invisible_time = 20s,
                                                       .poll_time = 1s, .from_first = true});
  std::vector<std::pair<std::uint64_t, std::int32_t>> out;
  if (pc.subscribe(kTopic, client::MessageSelector::by_tag("*")).ok()) {
    const MonoTime until = rt->now() + patience;
    while (out.size() < want && rt->now() < until) {
      Task<Result<client::PopResult>> receiving = pc.receive(kTopic);
      Result<client::PopResult> r = co_await std::move(receiving);
      if (!r.ok()) {
        co_await rt->sleep(1s);  // the master is gone: the route names the new one soon
        continue;
      }
      for (const MessageExt& m : r->messages) {
        const auto f = parse_body(std::string_view(reinterpret_cast<const char*>(m.body.data()), m.body.size()));
        if (!f) continue;
        out.emplace_back(f->seq, m.reconsume_times);
        if (!ack(f->seq)) continue;
        Task<Status> acking = pc.ack(m);
        (void)co_await std::move(acking);
      }
    }
  }
  co_await ci.shutdown();
  co_return out;
}

// A slave promoted after its master died brings back what the master had handed out by POP and
// nobody acknowledged: its revive log came with the replicated CommitLog, its progress offsets
// and the group's POP offsets with SlaveSync. Acknowledged messages stay gone.
TEST_F(HaAdminSim, APromotedSlaveBringsBackWhatPopConsumersDidNotAcknowledge) {
  SKIP_UNDER_SWARM("the test kills the master itself and checks every message");
  Cluster c(options_, ha_spec(store::FlushMode::sync_flush, broker::BrokerRole::sync_master));
  const ferry::testing::TraceOnExit traced(c.world());
  ASSERT_TRUE(c.boot().ok()) << c.describe();
  const std::size_t slave = *c.slave_index(0);
  Operator op(c);
  ASSERT_TRUE(c.run_until([&] { return BrokerInspector(*c.broker(slave)).ha_slave().status().connected; }, 1min).ok()) << c.describe();
  auto history = std::make_shared<History>();
  ProducerSpec p;
  p.topic = kTopic;
  p.messages = 12;
  p.interval = 50ms;
  const NodeId producer = c.add_client("producer", producer_app(p, history));
  ASSERT_TRUE(c.run_until([&] { return producer_done(c, producer) && caught_up(c, slave); }, 2min).ok()) << c.describe();
  ASSERT_EQ(history->acked().size(), 12u);

  const NodeId popper = c.add_bare("popper");
  auto first = c.run_task(popper, pop_round(&c.world().node(popper), c.client_config("popper-1"), "PopHA", 12, 60s,
                                            [](std::uint64_t seq) { return seq < 5; }),
                          2min);
  ASSERT_TRUE(first.ok() && first.value) << first.report.message;
  ASSERT_EQ(first.value->size(), 12u);
  const MonoTime popped = c.world().now();
  // The revive log and the acks replicated; the offsets the POPs moved copied (every 10 s).
  c.run_for(12s);
  ASSERT_TRUE(c.run_until([&] { return caught_up(c, slave); }, 1min).ok()) << c.describe();

  c.kill(c.broker_node(0));
  ASSERT_TRUE(op.promote(slave, "ASYNC_MASTER").ok());
  EXPECT_GE(BrokerInspector(*c.broker(slave)).pop().revive().open_count(), 1u) << "replayed on promotion";
  c.run_for(popped + 25s - c.world().now());
  auto back = c.run_task(popper, pop_round(&c.world().node(popper), c.client_config("popper-2"), "PopHA", 7, 90s,
                                           [](std::uint64_t) { return true; }),
                         3min);
  ASSERT_TRUE(back.ok() && back.value) << back.report.message;
  std::set<std::uint64_t> seqs;
  for (const auto& [seq, reconsumed] : *back.value) {
    seqs.insert(seq);
    EXPECT_EQ(reconsumed, 1) << "seq " << seq;
  }
  EXPECT_EQ(seqs, (std::set<std::uint64_t>{5, 6, 7, 8, 9, 10, 11})) << "each unacknowledged one back, no acknowledged one";
  EXPECT_EQ(back.value->size(), 7u);
  EXPECT_EQ(BrokerInspector(*c.broker(slave)).pop().revive().revived_messages(), 7u);
}

}  // namespace
}  // namespace ferry::sim::cluster
