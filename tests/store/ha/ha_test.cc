// Master/slave replication in the simulator (issue "High availability"): a broker group of a
// master and a slave under traffic, faults and crashes, in the four combinations of flush mode and
// replication mode. What a user checks: the slave's CommitLog is the master's byte for byte up to
// what it confirmed; under SYNC_MASTER every acknowledged message is on the slave when the master
// dies; under ASYNC_MASTER the loss is bounded by the replication lag (printed as a figure).
//
//   build/bin/sim_ha_test                      # fault-free, each test on its own seed
//   FERRY_SIM_SWARM=3 build/bin/sim_ha_test    # the same tests under swarm faults
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <memory>
#include <string>

#include "sim/cluster/cluster.h"
#include "sim/cluster/workload.h"
#include "tests/support/broker_inspector.h"
#include "tests/support/replica_logs.h"
#include "tests/support/sim_test_util.h"
#include "tests/support/sim_trace_log.h"
#include "tests/support/swarm_env.h"

using ferry::testing::BrokerInspector;
using ferry::testing::first_difference;
using ferry::testing::stored_message;

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

// What an operator does for a broker group under swarm faults: a broker whose store refuses
// writes after a failed sync is restarted; a slave whose log diverged from its master's (the
// master lost unsynced data it had already replicated, under a failing disk) is wiped and
// restarted, and then copies the master's last file onward. Returns true when it wiped the slave.
bool operate(Cluster& c, std::size_t slave, std::size_t& seen_diverged) {
  bool wiped = false;
  for (std::size_t i : {std::size_t{0}, slave}) {
    broker::Broker* b = c.broker(i);
    if (b != nullptr && b->state() == broker::Broker::State::running && b->store().write_refusal()) {
      c.restart(c.broker_node(i), CrashKind::process_kill, 1s);
    }
  }
  broker::Broker* m = c.broker(0);
  if (m != nullptr && BrokerInspector(*m).ha_master().diverged_links() > seen_diverged) {
    seen_diverged = BrokerInspector(*m).ha_master().diverged_links();
    c.restart(c.broker_node(slave), CrashKind::process_kill, 1s, /*wipe=*/true);
    wiped = true;
  }
  return wiped;
}

// Runs until `producer` has sent everything and the slave holds and has indexed the master's
// whole log, operating the group meanwhile. Returns whether the slave was wiped.
bool run_until_replicated(Cluster& c, NodeId producer, std::size_t slave, const History& history) {
  std::size_t diverged = 0;
  bool wiped = false;
  auto caught_up = [&] {
    broker::Broker* m = c.broker(0);
    broker::Broker* s = c.broker(slave);
    return m && s && s->state() == broker::Broker::State::running && m->state() == broker::Broker::State::running &&
           s->store().max_phy_offset() == m->store().max_phy_offset() &&
           s->store().reput_offset() == s->store().max_phy_offset() &&
           // (a SYNC_FLUSH master indexes only what it synced: after a failed sync, not its tail
           // until the operator restarts it)
           m->store().reput_offset() == m->store().max_phy_offset();
  };
  const MonoTime deadline = c.world().now() + 10min;  // swarm's latency tails slow a producer down a lot
  while (!(producer_done(c, producer) && caught_up()) && c.world().now() < deadline) {
    c.run_for(1s);
    wiped = operate(c, slave, diverged) || wiped;
  }
  std::map<std::string, std::size_t> outcomes;
  for (const SendRecord& r : history.sends) ++outcomes[outcome_name(r.outcome)];
  EXPECT_TRUE(producer_done(c, producer)) << "the producer did not finish: " << history.sends.size() << " sends "
                                          << fmt::format("{}", outcomes) << "; " << c.describe();
  EXPECT_TRUE(caught_up()) << "the slave did not catch up: " << c.describe();
  return wiped;
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
  const ferry::testing::TraceOnExit traced(c.world());
  ASSERT_TRUE(c.boot().ok()) << c.describe();
  const std::size_t slave = *c.slave_index(0);
  // The slave learns where to replicate from in a registration reply (it asks every 5 s until one
  // names its master).
  ASSERT_TRUE(c.run_until([&] { return BrokerInspector(*c.broker(slave)).ha_slave().status().connected; }, 2min).ok()) << c.describe();
  EXPECT_EQ(BrokerInspector(*c.broker(slave)).ha_slave().master(), ha_address_of(c, 0));
  auto history = std::make_shared<History>();
  ProducerSpec p;
  p.topic = kTopic;
  p.messages = 800;
  p.interval = 10ms;
  p.body_bytes = 3000;  // several CommitLog files of the small store
  const NodeId producer = c.add_client("producer", producer_app(p, history));
  // Faults on the way: the link to the slave cut (sometimes past the 20 s after which both ends
  // drop it), the slave killed or powered off and started again; each time it resumes from its
  // own log end.
  Random& r = c.world().random();
  for (int i = 0; i < 4; ++i) {
    c.run_for(std::chrono::milliseconds(r.between(500, 2000)));
    if (r.one_in(2)) {
      c.partition(c.broker_node(0), c.broker_node(slave));
      c.run_for(std::chrono::milliseconds(r.between(1000, 25'000)));
      c.heal(c.broker_node(0), c.broker_node(slave));
    } else {
      c.restart(c.broker_node(slave), r.one_in(2) ? CrashKind::power_loss : CrashKind::process_kill,
                std::chrono::milliseconds(r.between(100, 3000)));
    }
  }
  const bool wiped = run_until_replicated(c, producer, slave, *history);
  if (::testing::Test::HasFailure()) return;
  broker::Broker* m = c.broker(0);
  broker::Broker* s = c.broker(slave);
  if (!ferry::testing::under_swarm()) {  // swarm's failing disks fail sends, and nothing resends them
    EXPECT_GT(m->store().commit_log().files().file_count(), 2u) << "the test should span several files";
  }
  const auto diff = first_difference(m->store().commit_log(), s->store().commit_log(), s->store().min_phy_offset(),
                                     m->store().max_phy_offset());
  EXPECT_FALSE(diff.has_value()) << "logs differ at " << *diff;
  if (!wiped) {
    EXPECT_EQ(s->store().min_phy_offset(), m->store().min_phy_offset()) << "the slave followed from the start";
  }
  // Every acknowledged message the master still holds is on the slave at the same queue offset
  // (a wiped slave holds the master's last file onward).
  std::size_t found = 0;
  for (const SendRecord& r : history->sends) {
    if (r.outcome != SendOutcome::ok) continue;
    auto on_master = stored_message(*m, r.queue, r.queue_offset);
    if (!on_master || on_master->producer != r.producer || on_master->seq != r.seq) continue;
    if (wiped && r.queue_offset < s->store().min_offset(r.queue.topic, r.queue.queue_id)) continue;
    auto body = stored_message(*s, r.queue, r.queue_offset);
    ASSERT_TRUE(body.has_value()) << "acknowledged " << r.producer << "#" << r.seq << " at " << r.queue.to_string()
                                  << ":" << r.queue_offset.value() << " is not on the slave";
    EXPECT_EQ(body->seq, r.seq);
    ++found;
  }
  if (!ferry::testing::under_swarm()) {
    EXPECT_EQ(found, history->acked().size());
    EXPECT_GE(found, 700u) << c.describe();
  }
  for (std::int32_t q = 0; q < 4; ++q) {
    EXPECT_EQ(s->store().max_offset(kTopic, QueueId(q)), m->store().max_offset(kTopic, QueueId(q))) << "queue " << q;
  }
  // The slave's own index serves queries by key as the master's does.
  auto on_master = m->store().query_by_key(kTopic, "key-1", 64, 0, INT64_MAX);
  auto on_slave = s->store().query_by_key(kTopic, "key-1", 64, 0, INT64_MAX);
  ASSERT_TRUE(on_master.ok() && on_slave.ok());
  EXPECT_FALSE(on_slave->messages.empty());
  EXPECT_EQ(on_slave->messages.size(), on_master->messages.size());
}

INSTANTIATE_TEST_SUITE_P(Modes, HaSim,
                         ::testing::Values(Modes{store::FlushMode::async_flush, broker::BrokerRole::async_master},
                                           Modes{store::FlushMode::async_flush, broker::BrokerRole::sync_master},
                                           Modes{store::FlushMode::sync_flush, broker::BrokerRole::async_master},
                                           Modes{store::FlushMode::sync_flush, broker::BrokerRole::sync_master}),
                         [](const auto& info) { return info.param.name(); });

// ---- a SYNC_FLUSH master ships only what it synced ------------------------------------------

class HaSyncFlushSim : public ::testing::TestWithParam<Modes> {};

// Under SYNC_FLUSH the slave never holds a byte the master has not synced: a power loss of the
// master (which keeps exactly what it synced) then never leaves the slave ahead of it with bytes
// the master no longer has. It used to ship its page cache; after a power loss it came back
// shorter, took new records of the same size at the same places, the resume check passed and the
// slave spliced the two histories (Guarantees.PerQueueFifo, seed 144: a ConsumeQueue gap aborted
// the process; tests/sim/property/failures/sync-flush-master-shipped-unsynced-bytes.toml).
TEST_P(HaSyncFlushSim, SlaveNeverHoldsBytesTheMasterHasNotSynced) {
  WorldOptions options = ferry::testing::world_options(sim::testing::test_options(23));
  options.disk.sync_latency = 20ms;  // a wide window between a put's append and its sync
  ferry::testing::ReplayTrace trace(options);
  Cluster c(options, ha_spec(GetParam()));
  const ferry::testing::TraceOnExit traced(c.world());
  ASSERT_TRUE(c.boot().ok()) << c.describe();
  const std::size_t slave = *c.slave_index(0);
  ASSERT_TRUE(c.run_until([&] { return BrokerInspector(*c.broker(slave)).ha_slave().status().connected; }, 2min).ok()) << c.describe();
  auto history = std::make_shared<History>();
  ProducerSpec p;
  p.topic = kTopic;
  p.messages = 300;
  p.interval = 2ms;
  p.body_bytes = 200;
  const NodeId producer = c.add_client("producer", producer_app(p, history));
  std::string ahead;  // the first time the slave held more than the master had synced
  std::size_t checks = 0;
  auto slave_ahead = [&] {
    broker::Broker* m = c.broker(0);
    broker::Broker* s = c.broker(slave);
    if (m == nullptr || s == nullptr || m->state() != broker::Broker::State::running ||
        s->state() != broker::Broker::State::running) {
      return false;
    }
    ++checks;
    const PhysicalOffset synced = m->store().commit_log().flushed_offset();
    if (s->store().max_phy_offset() > synced && ahead.empty()) {
      ahead = fmt::format("at {} ms the slave held up to {}, the master had synced up to {} (log end {})",
                          to_ms(c.world().now() - MonoTime{}), s->store().max_phy_offset().value(), synced.value(),
                          m->store().max_phy_offset().value());
    }
    return !ahead.empty();
  };
  // The master loses power mid-traffic and comes back: the slave resumes on its log, byte for byte.
  (void)c.run_until([&] { return slave_ahead() || history->sends.size() >= p.messages / 2; }, 2min);
  EXPECT_GE(history->sends.size(), p.messages / 2) << c.describe();
  c.restart(c.broker_node(0), CrashKind::power_loss, 2s);
  (void)c.run_until([&] { return slave_ahead() || producer_done(c, producer); }, 2min);
  EXPECT_TRUE(ahead.empty()) << ahead << "; " << c.describe();
  EXPECT_GT(checks, 100u) << "the invariant was hardly checked";
  (void)run_until_replicated(c, producer, slave, *history);
  if (::testing::Test::HasFailure()) return;
  broker::Broker* m = c.broker(0);
  broker::Broker* s = c.broker(slave);
  EXPECT_EQ(BrokerInspector(*m).ha_master().diverged_links(), 0u) << c.describe();
  const auto diff = first_difference(m->store().commit_log(), s->store().commit_log(), s->store().min_phy_offset(),
                                     m->store().max_phy_offset());
  EXPECT_FALSE(diff.has_value()) << "logs differ at " << *diff;
}

INSTANTIATE_TEST_SUITE_P(Modes, HaSyncFlushSim,
                         ::testing::Values(Modes{store::FlushMode::sync_flush, broker::BrokerRole::async_master},
                                           Modes{store::FlushMode::sync_flush, broker::BrokerRole::sync_master}),
                         [](const auto& info) { return info.param.name(); });

// ---- the master dies -----------------------------------------------------------------------

// Message records in `log` from `from` to its end (BLANKs skipped).
std::size_t records_from(const store::CommitLog& log, PhysicalOffset from) {
  std::size_t n = 0;
  PhysicalOffset at = std::max(from, log.min_offset());
  while (at < log.max_offset()) {
    auto v = log.view_to_file_end(at);
    if (!v.ok()) break;
    const RecordRead r = decode_record(v->bytes());
    if (r.kind == RecordKind::blank) {
      at = log.next_file_start(at);
    } else if (r.kind == RecordKind::message) {
      ++n;
      at += static_cast<std::int64_t>(r.size_bytes);
    } else {
      break;
    }
  }
  return n;
}

struct CrashCase {
  Modes modes;
  CrashKind kind;
  std::string name() const {
    return fmt::format("{}_{}", modes.name(), kind == CrashKind::power_loss ? "PowerLoss" : "ProcessKill");
  }
};

struct CrashOutcome {
  std::size_t acked = 0;
  std::size_t lost = 0;          // acknowledged, not on the slave
  std::int64_t lag_bytes = 0;    // master's log end - the slave's last whole record, at the crash
  std::size_t lag_records = 0;   // message records in that lag
  std::string first_lost;
};

class HaCrashSim : public ::testing::TestWithParam<CrashCase> {};

// The master dies (killed or powered off) at a random point under traffic and never comes back.
// SYNC_MASTER: every acknowledged message is on the slave; after the operator promotes it, a
// consumer group reads every one of them from it. ASYNC_MASTER: what is lost is at most what had
// not reached the slave at the crash (printed as a figure).
TEST_P(HaCrashSim, AcknowledgedMessagesOnTheSlaveWhenTheMasterDies) {
  const CrashCase cc = GetParam();
  const bool sync_master = cc.modes.role == broker::BrokerRole::sync_master;
  CrashOutcome total;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    const WorldOptions options = ferry::testing::world_options(sim::testing::test_options(100 + seed));
    ferry::testing::ReplayTrace trace(options);
    Cluster c(options, ha_spec(cc.modes));
    const ferry::testing::TraceOnExit traced(c.world(), fmt::format("seed{}", seed));
    ASSERT_TRUE(c.boot().ok()) << c.describe();
    const std::size_t slave = *c.slave_index(0);
    ASSERT_TRUE(c.run_until([&] { return BrokerInspector(*c.broker(slave)).ha_slave().status().connected; }, 2min).ok()) << c.describe();
    auto history = std::make_shared<History>();
    ProducerSpec p;
    p.topic = kTopic;
    p.messages = 600;
    p.interval = 5ms;
    p.body_bytes = 500;
    c.add_client("producer", producer_app(p, history));
    c.run_for(std::chrono::milliseconds(c.world().random().between(500, 2500)));
    // A slow link to the slave for the last moments: the slave lags, and the crash catches it behind.
    c.clog(c.broker_node(0), c.broker_node(slave), std::chrono::milliseconds(c.world().random().between(20, 300)));
    c.run_for(std::chrono::milliseconds(c.world().random().between(100, 1000)));
    broker::Broker* m = c.broker(0);
    broker::Broker* s = c.broker(slave);
    ASSERT_TRUE(m != nullptr && s != nullptr) << c.describe();
    CrashOutcome o;
    // From the slave's last whole record (what it reported may end inside one).
    o.lag_bytes = m->store().max_phy_offset() - s->store().reput_offset();
    o.lag_records = records_from(m->store().commit_log(), s->store().reput_offset());
    c.crash(c.broker_node(0), cc.kind);
    c.run_for(5s);  // the producer keeps trying; nothing more is acknowledged by the dead master
    s = c.broker(slave);
    ASSERT_NE(s, nullptr);
    for (const SendRecord& r : history->sends) {
      if (r.outcome != SendOutcome::ok) continue;
      ++o.acked;
      auto body = stored_message(*s, r.queue, r.queue_offset);
      if (!body || body->producer != r.producer || body->seq != r.seq) {
        if (o.lost++ == 0) {
          o.first_lost = fmt::format("{}#{} acknowledged at {} ms as {}:{}; the slave's queue holds [{}, {}), there: {}", r.producer,
                                     r.seq, to_ms(r.done_at - MonoTime{}), r.queue.to_string(), r.queue_offset.value(),
                                     s->store().min_offset(r.queue.topic, r.queue.queue_id).value(),
                                     s->store().max_offset(r.queue.topic, r.queue.queue_id).value(),
                                     body ? fmt::format("{}#{}", body->producer, body->seq) : "nothing");
        }
      }
    }
    if (!ferry::testing::under_swarm()) {  // swarm's latency may leave a seed little time before its crash
      EXPECT_GE(o.acked, 20u) << "too little traffic before the crash to mean anything; " << c.describe();
    }
    if (sync_master) {
      EXPECT_EQ(o.lost, 0u) << "SYNC_MASTER acknowledged messages the slave does not hold; first: " << o.first_lost << "; "
                            << c.describe();
      // The operator promotes the slave; a consumer group then reads everything from it. Under
      // swarm a sync of the slave's disk may fail (EIO) during the promotion, which then fails
      // honestly; the operator restarts the slave (its recovery syncs what it holds again) and
      // promotes it again.
      auto promoted = c.run_task(c.broker_node(slave), s->promote(broker::BrokerRole::sync_master), 10s);
      for (int attempt = 1; attempt < 4 && ferry::testing::under_swarm() && promoted.ok() && !promoted.value->ok() &&
                            promoted.value->error().is(Errc::io_error);
           ++attempt) {
        c.restart(c.broker_node(slave), CrashKind::process_kill, 1s);
        ASSERT_TRUE(c.run_until([&] {
                       broker::Broker* b = c.broker(slave);
                       return b != nullptr && b->state() == broker::Broker::State::running;
                     }, 1min).ok()) << c.describe();
        s = c.broker(slave);
        promoted = c.run_task(c.broker_node(slave), s->promote(broker::BrokerRole::sync_master), 10s);
      }
      ASSERT_TRUE(promoted.ok() && promoted.value->ok())
          << (promoted.ok() ? promoted.value->error().to_string() : promoted.report.message) << "; " << c.describe();
      ConsumerSpec cs;
      cs.topic = kTopic;
      cs.group = "after-failover";
      cs.config.consume_from_where = client::ConsumeFromWhere::CONSUME_FROM_FIRST_OFFSET;
      c.add_client("consumer", consumer_app(cs, history));
      auto got = all_acked_consumed(history, cs.group);
      ASSERT_TRUE(c.run_until([&] { return !got.pending().has_value(); }, 2min).ok())
          << *got.pending() << "; " << c.describe();
    } else {
      EXPECT_LE(o.lost, o.lag_records) << "lost more than had not reached the slave at the crash (" << o.lag_bytes
                                       << " bytes); first: " << o.first_lost << "; " << c.describe();
    }
    total.acked += o.acked;
    total.lost += o.lost;
    total.lag_bytes += o.lag_bytes;
    total.lag_records += o.lag_records;
  }
  EXPECT_GE(total.acked, 60u) << "too little traffic before the crashes to mean anything";
  std::printf("%s: over 6 seeds %zu acknowledged, %zu lost (replication lag at the crash: %lld bytes, %zu records in all)\n",
              cc.name().c_str(), total.acked, total.lost, static_cast<long long>(total.lag_bytes), total.lag_records);
}

// A topic the master created for a send (auto-creation) and the master killed before the slave's
// metadata copy ran (set to an hour here): the slave learns the topic from the data it
// replicates, so a consumer reads every acknowledged message from it. (RocketMQ 4.9's slave
// answers TOPIC_NOT_EXIST until its next copy.)
TEST(HaTopicWithData, ASlaveServesATopicItsMasterCreatedBeforeTheMetadataCopy) {
  const WorldOptions options = ferry::testing::world_options(sim::testing::test_options(21));
  ferry::testing::ReplayTrace trace(options);
  ClusterSpec spec = ha_spec(Modes{store::FlushMode::async_flush, broker::BrokerRole::sync_master});
  spec.brokers.front().config.slave_sync_interval = std::chrono::hours(1);
  Cluster c(options, spec);
  const ferry::testing::TraceOnExit traced(c.world());
  ASSERT_TRUE(c.boot().ok()) << c.describe();
  const std::size_t slave = *c.slave_index(0);
  ASSERT_TRUE(c.run_until([&] { return BrokerInspector(*c.broker(slave)).ha_slave().status().connected; }, 2min).ok());
  auto history = std::make_shared<History>();
  ProducerSpec p;
  p.topic = "Fresh";
  p.messages = 300;
  p.interval = 5ms;
  const NodeId producer = c.add_client("producer", producer_app(p, history));
  ASSERT_TRUE(c.run_until([&] { return producer_done(c, producer); }, 2min).ok()) << c.describe();
  c.kill(c.broker_node(0));
  EXPECT_EQ(history->acked().size(), 300u);
  const broker::TopicConfig* learned = BrokerInspector(*c.broker(slave)).topics().find("Fresh");
  ASSERT_NE(learned, nullptr) << "the slave does not know the topic its log holds";
  ConsumerSpec cs;
  cs.group = "fresh-readers";
  cs.topic = "Fresh";
  cs.config.consume_from_where = client::ConsumeFromWhere::CONSUME_FROM_FIRST_OFFSET;
  c.add_client("consumer", consumer_app(cs, history));
  auto got = all_acked_consumed(history, cs.group);
  ASSERT_TRUE(c.run_until([&] { return !got.pending().has_value(); }, 3min).ok()) << *got.pending() << "; " << c.describe();
}

INSTANTIATE_TEST_SUITE_P(
    Modes, HaCrashSim,
    ::testing::Values(CrashCase{{store::FlushMode::sync_flush, broker::BrokerRole::sync_master}, CrashKind::power_loss},
                      CrashCase{{store::FlushMode::sync_flush, broker::BrokerRole::sync_master}, CrashKind::process_kill},
                      CrashCase{{store::FlushMode::async_flush, broker::BrokerRole::sync_master}, CrashKind::power_loss},
                      CrashCase{{store::FlushMode::async_flush, broker::BrokerRole::async_master}, CrashKind::power_loss},
                      CrashCase{{store::FlushMode::sync_flush, broker::BrokerRole::async_master}, CrashKind::process_kill}),
    [](const auto& info) { return info.param.name(); });

}  // namespace
}  // namespace ferry::sim::cluster
