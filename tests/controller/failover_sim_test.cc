// Automatic failover in the simulator (issue 32): three controllers and a broker group of three
// in controller mode (SYNC_MASTER, allAckInSyncStateSet), a producer sending throughout. What a
// user checks: the master dies and, with no operator, another replica is elected and takes writes;
// every send acknowledged SEND_OK is readable on the new master at its queue offset; the old
// master started again with its old log rejoins as a slave, cuts what its group never agreed on,
// and ends with the new master's log byte for byte. Prints the failover figures (death →
// election → first acknowledged send).
//
//   build/bin/controller_failover_test                     # fault-free
//   FERRY_SIM_SWARM=3 build/bin/controller_failover_test   # under swarm faults
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>

#include "sim/cluster/cluster.h"
#include "sim/cluster/workload.h"
#include "tests/support/broker_inspector.h"
#include "tests/support/replica_logs.h"
#include "tests/support/sim_test_util.h"
#include "tests/support/sim_trace_log.h"
#include "tests/support/swarm_env.h"

namespace ferry::sim::cluster {
namespace {

using namespace std::chrono_literals;
using ferry::testing::BrokerInspector;
using ferry::testing::first_difference;
using ferry::testing::stored_message;

constexpr const char* kTopic = "Ledger";

ClusterSpec failover_spec() {
  ClusterSpec s;
  s.controllers = 3;
  BrokerGroupSpec& g = s.brokers.front();
  g.slaves = 2;
  g.role = broker::BrokerRole::sync_master;
  g.controller_mode = true;
  g.config.ha.all_ack_in_sync_state_set = true;
  s.topics.push_back(TopicSpec{kTopic, 4});
  return s;
}

double seconds(Duration d) { return static_cast<double>(to_ms(d)) / 1000.0; }

class FailoverSim : public ::testing::TestWithParam<CrashKind> {
 protected:
  FailoverSim() : options_(ferry::testing::world_options(sim::testing::test_options(32))), trace_(options_) {}
  WorldOptions options_;
  ferry::testing::ReplayTrace trace_;
};

std::size_t sync_state_set_size(Cluster& c, std::size_t broker) {
  broker::Broker* b = c.broker(broker);
  if (b == nullptr || b->replicas() == nullptr || !b->replicas()->is_master()) return 0;
  return BrokerInspector(*b).ha_master().sync_state_set().size();
}

TEST_P(FailoverSim, TheMasterDiesAnotherIsElectedAndTheOldOneRejoinsAsASlave) {
  Cluster c(options_, failover_spec());
  const ferry::testing::TraceOnExit traced(c.world());
  ASSERT_TRUE(c.boot(2min).ok()) << c.describe();
  const std::size_t first = *c.master_of(0);
  // The slaves catch up and join the SyncStateSet (the master asks the controllers).
  ASSERT_TRUE(c.run_until([&] { return sync_state_set_size(c, first) == 3; }, 2min).ok())
      << "SyncStateSet of " << sync_state_set_size(c, first) << "; " << c.describe();

  auto history = std::make_shared<History>();
  ProducerSpec p;
  p.topic = kTopic;
  p.messages = 1500;  // 75 s of sends: the failover (and the producer's route poll) happens within
  p.interval = 50ms;
  p.body_bytes = 500;
  const NodeId producer = c.add_client("producer", producer_app(p, history));
  c.run_for(std::chrono::milliseconds(c.world().random().between(3000, 6000)));

  const MonoTime death = c.world().now();
  c.crash(c.broker_node(first), GetParam());
  ASSERT_TRUE(c.run_until([&] { return c.master_of(0).has_value() && *c.master_of(0) != first; }, 2min).ok())
      << "no new master; " << c.describe();
  const MonoTime elected = c.world().now();
  const std::size_t second = *c.master_of(0);
  // Writes resume: the first send acknowledged after the death.
  ASSERT_TRUE(c.run_until(
                   [&] {
                     for (const SendRecord& r : history->sends) {
                       if (r.outcome == SendOutcome::ok && r.sent_at > death) return true;
                     }
                     return false;
                   },
                   2min)
                  .ok())
      << c.describe();
  MonoTime resumed = c.world().now();
  for (const SendRecord& r : history->sends) {
    if (r.outcome == SendOutcome::ok && r.sent_at > death) resumed = std::min(resumed, r.done_at);
  }
  std::printf("failover (%s): death -> election %.3f s, death -> first acknowledged send %.3f s\n",
              crash_kind_name(GetParam()), seconds(elected - death), seconds(resumed - death));

  // The old master comes back with its old store.
  c.start(c.broker_node(first));
  auto caught_up = [&] {
    broker::Broker* m = c.broker(second);
    if (m == nullptr || !producer_done(c, producer)) return false;
    for (std::size_t i = 0; i < c.broker_count(); ++i) {
      broker::Broker* b = c.broker(i);
      if (b == nullptr || b->state() != broker::Broker::State::running) return false;
      if (b->store().max_phy_offset() != m->store().max_phy_offset()) return false;
    }
    return true;
  };
  ASSERT_TRUE(c.run_until(caught_up, 5min).ok()) << c.describe();
  broker::Broker* m = c.broker(second);
  ASSERT_EQ(c.master_of(0), second) << "the old master took the group back";

  // Every acknowledged send is on the new master where the producer was told it is.
  std::size_t acked = 0;
  for (const SendRecord& r : history->sends) {
    if (r.outcome != SendOutcome::ok) continue;
    auto body = stored_message(*m, r.queue, r.queue_offset);
    ASSERT_TRUE(body.has_value()) << "acknowledged " << r.id() << " at " << r.queue.to_string() << ":"
                                  << r.queue_offset.value() << " is not on the new master; " << c.describe();
    EXPECT_EQ(body->producer, r.producer);
    EXPECT_EQ(body->seq, r.seq);
    ++acked;
  }
  // Every replica, the old master included, holds the new master's log byte for byte and its
  // epochs.
  for (std::size_t i = 0; i < c.broker_count(); ++i) {
    if (i == second) continue;
    broker::Broker* b = c.broker(i);
    const PhysicalOffset from = std::max(b->store().min_phy_offset(), m->store().min_phy_offset());
    const auto diff = first_difference(b->store().commit_log(), m->store().commit_log(), from, m->store().max_phy_offset());
    EXPECT_FALSE(diff.has_value()) << c.broker_label(i) << " differs from the new master at " << *diff;
    EXPECT_EQ(b->replicas()->epochs().cache().entries(), m->replicas()->epochs().cache().entries()) << c.broker_label(i);
    EXPECT_EQ(b->config().broker_role, broker::BrokerRole::slave) << c.broker_label(i);
  }
  EXPECT_GE(m->replicas()->master_epoch(), 2);
  if (!ferry::testing::under_swarm()) {
    EXPECT_EQ(acked, history->acked().size());
    EXPECT_GE(acked, 1000u) << "most sends should be acknowledged; " << c.describe();
    // The failover bound with the defaults: the 10 s heartbeat timeout, one 5 s scan, and the
    // producer's next route poll (30 s) at worst.
    EXPECT_LE(elected - death, 16s);
  }
  std::printf("old master %s: truncations %llu\n", c.broker_label(first).c_str(),
              static_cast<unsigned long long>(BrokerInspector(*c.broker(first)).ha_slave().status().truncations));
}

INSTANTIATE_TEST_SUITE_P(Crashes, FailoverSim, ::testing::Values(CrashKind::process_kill, CrashKind::power_loss),
                         [](const ::testing::TestParamInfo<CrashKind>& info) {
                           return info.param == CrashKind::process_kill ? "Kill" : "PowerLoss";
                         });

}  // namespace
}  // namespace ferry::sim::cluster
