// Master/slave replication in the simulator (issue "High availability"): a broker group of a
// master and a slave under traffic, faults and crashes, in the four combinations of flush mode and
// replication mode. What a user checks: the slave's CommitLog is the master's byte for byte up to
// what it confirmed; under SYNC_MASTER every acknowledged message is on the slave when the master
// dies; under ASYNC_MASTER the loss is bounded by the replication lag (printed as a figure).
//
//   build/bin/sim_ha_test                      # fault-free, each test on its own seed
//   FERRY_SIM_SWARM=3 build/bin/sim_ha_test    # the same tests under swarm faults
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>

#include "sim/cluster/cluster.h"
#include "sim/cluster/workload.h"
#include "tests/sim/sim_test_util.h"
#include "tests/support/swarm_env.h"

namespace ferry::sim::cluster {
namespace {

using namespace std::chrono_literals;

constexpr const char* kTopic = "Ledger";

struct Modes {
  store::FlushMode flush;
  broker::BrokerRole role;
  std::string name() const {
    return fmt::format("{}_{}", flush == store::FlushMode::sync_flush ? "SyncFlush" : "AsyncFlush",
                       role == broker::BrokerRole::sync_master ? "SyncMaster" : "AsyncMaster");
  }
};

ClusterSpec ha_spec(const Modes& m) {
  ClusterSpec s;
  BrokerGroupSpec& g = s.brokers.front();
  g.slaves = 1;
  g.flush = m.flush;
  g.role = m.role;
  s.topics.push_back(TopicSpec{kTopic, 4});
  return s;
}

std::string ha_address_of(Cluster& c, std::size_t broker) {
  return fmt::format("{}:{}", c.world().node(c.broker_node(broker)).host(), c.broker_config(broker).listen_port + 1);
}

// The first byte at which the two logs differ in [from, to), or nullopt when they agree.
std::optional<std::int64_t> first_difference(store::CommitLog& a, store::CommitLog& b, PhysicalOffset from,
                                             PhysicalOffset to) {
  PhysicalOffset at = from;
  while (at < to) {
    auto va = a.view_to_file_end(at);
    auto vb = b.view_to_file_end(at);
    if (!va.ok() || !vb.ok()) return at.value();
    const std::size_t n = std::min<std::size_t>({va->size(), vb->size(), static_cast<std::size_t>(to - at)});
    if (n == 0) return at.value();
    const Bytes x = va->bytes().first(n), y = vb->bytes().first(n);
    for (std::size_t i = 0; i < n; ++i) {
      if (x[i] != y[i]) return at.value() + static_cast<std::int64_t>(i);
    }
    at += static_cast<std::int64_t>(n);
  }
  return std::nullopt;
}

// The intact workload message stored at (queue, offset) on `b`, if any.
std::optional<BodyFields> stored_message(broker::Broker& b, const MessageQueue& q, QueueOffset offset) {
  auto got = b.store().get_messages(q.topic, q.queue_id, offset, 1, nullptr);
  if (got.status != store::GetStatus::found || got.messages.empty()) return std::nullopt;
  const RecordRead r = decode_record(got.messages.front().bytes());
  if (r.kind != RecordKind::message) return std::nullopt;
  return parse_body(std::string_view(reinterpret_cast<const char*>(r.fields.body.data()), r.fields.body.size()));
}

class HaSim : public ::testing::TestWithParam<Modes> {
 protected:
  HaSim() : options_(ferry::testing::world_options(sim::testing::test_options(11))), trace_(options_) {}
  WorldOptions options_;
  ferry::testing::ReplayTrace trace_;
};

// The slave follows the master under traffic: its CommitLog is the master's byte for byte, its
// queues hold the same offsets, and it serves the messages.
TEST_P(HaSim, SlaveLogIsTheMastersByteForByteAndServesReads) {
  Cluster c(options_, ha_spec(GetParam()));
  ASSERT_TRUE(c.boot().ok()) << c.describe();
  const std::size_t slave = *c.slave_index(0);
  c.broker(slave)->ha_slave().set_master(ha_address_of(c, 0));
  auto history = std::make_shared<History>();
  ProducerSpec p;
  p.topic = kTopic;
  p.messages = 800;
  p.interval = 10ms;
  p.body_bytes = 3000;  // several CommitLog files of the small store
  const NodeId producer = c.add_client("producer", producer_app(p, history));
  ASSERT_TRUE(c.run_until([&] { return producer_done(c, producer); }, 2min).ok()) << c.describe();
  broker::Broker* m = c.broker(0);
  ASSERT_TRUE(c.run_until([&] {
                  broker::Broker* s = c.broker(slave);
                  return s && s->store().max_phy_offset() == m->store().max_phy_offset() &&
                         s->store().reput_offset() == s->store().max_phy_offset();
                }, 1min).ok())
      << "the slave did not catch up: " << c.describe();
  broker::Broker* s = c.broker(slave);
  EXPECT_GT(m->store().commit_log().files().file_count(), 2u) << "the test should span several files";
  const auto diff = first_difference(m->store().commit_log(), s->store().commit_log(), s->store().min_phy_offset(),
                                     m->store().max_phy_offset());
  EXPECT_FALSE(diff.has_value()) << "logs differ at " << *diff;
  EXPECT_EQ(s->store().min_phy_offset(), m->store().min_phy_offset()) << "a new slave starts at the master's first file here";
  std::size_t found = 0;
  for (const SendRecord& r : history->sends) {
    if (r.outcome != SendOutcome::ok) continue;
    auto body = stored_message(*s, r.queue, r.queue_offset);
    ASSERT_TRUE(body.has_value()) << "acknowledged " << r.producer << "#" << r.seq << " at " << r.queue.to_string()
                                  << ":" << r.queue_offset.value() << " is not on the slave";
    EXPECT_EQ(body->seq, r.seq);
    ++found;
  }
  EXPECT_EQ(found, history->acked().size());
  EXPECT_GE(found, 700u) << c.describe();
  for (std::int32_t q = 0; q < 4; ++q) {
    EXPECT_EQ(s->store().max_offset(kTopic, QueueId(q)), m->store().max_offset(kTopic, QueueId(q))) << "queue " << q;
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, HaSim,
                         ::testing::Values(Modes{store::FlushMode::async_flush, broker::BrokerRole::async_master},
                                           Modes{store::FlushMode::async_flush, broker::BrokerRole::sync_master},
                                           Modes{store::FlushMode::sync_flush, broker::BrokerRole::async_master},
                                           Modes{store::FlushMode::sync_flush, broker::BrokerRole::sync_master}),
                         [](const auto& info) { return info.param.name(); });

}  // namespace
}  // namespace ferry::sim::cluster
