// Client tests on a simulated cluster (sim::cluster::Cluster): boot() builds the cluster from a
// ClusterSpec (cluster_spec() makes the usual one: broker groups by name, topics, NameServers)
// and starts it, and a bare node "client" carries the test's own ClientInstance, producers,
// AdminClient and PullAPI. Faults go through the Cluster's handles (cluster().kill(n),
// partition, isolate, ...). `run(task)` runs one coroutine to completion on the client node and
// returns its value, so assertions stay outside coroutines (STYLE.md item 14).
//
// Faults in the background: under FERRY_SIM_SWARM=<N> the World takes swarm options
// (tests/support/swarm_env.h); every failure carries the seed and the line that replays the test,
// and the final hash of every test is recorded for the same-seed rerun
// (tests/support/sim_trace_log.h). A test whose whole point is a fault-free property starts with
// SKIP_UNDER_SWARM("why").
//
// A test that asserts one specific path which a buggify site legitimately changes (the exact
// mechanism taken, a count of a fallback, that path's fault-free timing) calls
// without_buggify("why") before boot(): swarm's other faults stay on.
//
// A test that cannot go on (a cluster that does not boot, a task that does not finish, a
// component that is down) fails with a gtest failure saying why and an exception
// (TestCannotContinue) that ends the test: never by aborting the binary.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "broker/broker.h"
#include "client/admin_client.h"
#include "client/client_instance.h"
#include "client/producer.h"
#include "client/pull_api.h"
#include "runtime/log.h"
#include "sim/cluster/cluster.h"
#include "tests/support/sim_trace_log.h"
#include "tests/support/swarm_env.h"

namespace ferry::client::testing {

inline Message text_message(std::string topic, std::string body, std::string tag = {}) {
  Message m;
  m.topic = std::move(topic);
  m.body.assign(body.begin(), body.end());
  if (!tag.empty()) m.set_tags(tag);
  return m;
}

// "prefix" + i (GCC 12 warns falsely on `"literal" + std::to_string(i)` under -O3).
inline std::string numbered(std::string_view prefix, int i) { return fmt::format("{}{}", prefix, i); }

inline std::string body_text(const MessageExt& m) { return std::string(m.body.begin(), m.body.end()); }

// Thrown (after a gtest failure saying why) when a test cannot go on; gtest reports it.
struct TestCannotContinue : std::runtime_error {
  using std::runtime_error::runtime_error;
};

using sim::cluster::TopicSpec;

class ClientTest : public ::testing::Test {
 protected:
  explicit ClientTest(std::uint64_t seed = 11) : options_(fault_free(seed)), replay_(options_) {
    if (std::getenv("FERRY_LOG") == nullptr) set_default_log_level(spdlog::level::warn);
  }

  ~ClientTest() override {
    if (!cluster_) return;
    ferry::testing::record_trace(cluster_->world());
    // Client objects reference the client node's runtime: destroy them before the cluster.
    admin_.reset();
    pull_.reset();
    producers_.clear();
    instance_.reset();
  }

  // ---- the cluster -------------------------------------------------------------------------

  // One master per broker group name (settings from broker_config_), `topics` on every group,
  // `namesrvs` NameServers.
  sim::cluster::ClusterSpec cluster_spec(std::vector<std::string> brokers, std::vector<TopicSpec> topics,
                                         std::size_t namesrvs) const {
    sim::cluster::ClusterSpec spec;
    spec.namesrvs = namesrvs;
    spec.brokers.clear();
    for (std::string& name : brokers) {
      sim::cluster::BrokerGroupSpec g;
      g.name = std::move(name);
      g.config = broker_config_;
      spec.brokers.push_back(std::move(g));
    }
    spec.topics = std::move(topics);
    return spec;
  }

  // Builds and boots the cluster (every broker running and registered, every topic routed by
  // every NameServer), then adds the client node.
  void boot(sim::cluster::ClusterSpec spec) {
    if (cluster_) cannot_continue("boot() called twice");
    cluster_ = std::make_unique<sim::cluster::Cluster>(options_, std::move(spec));
    const Status booted = cluster_->boot();
    if (!booted.ok()) cannot_continue("the cluster did not boot: " + booted.error().to_string());
    client_node_ = cluster_->add_bare("client");
  }
  void boot(std::vector<std::string> brokers = {"broker-a", "broker-b"}, std::vector<TopicSpec> topics = {},
            std::size_t namesrvs = 1) {
    boot(cluster_spec(std::move(brokers), std::move(topics), namesrvs));
  }

  // Before boot(): this test runs with buggify off, every other swarm fault as drawn. Say why:
  // without_buggify("counts the broker's send-backs; the fallback path is another test's").
  void without_buggify(const std::string& why) {
    if (cluster_) cannot_continue("without_buggify() after boot()");
    options_.buggify.enabled = false;
    RecordProperty("without_buggify", why);
  }

  sim::cluster::Cluster& cluster() {
    if (!cluster_) cannot_continue("the cluster is not booted");
    return *cluster_;
  }
  sim::World& world() { return cluster().world(); }

  // Runs until broker `i` (again) runs and has registered with a NameServer.
  void wait_running(std::size_t i, Duration limit = std::chrono::seconds(60)) {
    const sim::RunReport r = cluster().run_until(
        [&] {
          broker::Broker* b = cluster().broker(i);
          return b != nullptr && b->state() == broker::Broker::State::running && !b->registrar().successes().empty();
        },
        limit);
    if (!r.ok()) cannot_continue(fmt::format("broker {} is not running and registered: {}", i, r.message));
  }

  // The broker of group `i` (the test cannot go on when its node is down).
  broker::Broker& broker(std::size_t i) {
    broker::Broker* b = cluster().broker(i);
    if (b == nullptr) cannot_continue(fmt::format("broker {} is down", i));
    return *b;
  }
  std::string broker_addr(std::size_t i) { return cluster().broker_addr(i); }
  Runtime& client_rt() { return world().node(client_node_); }

  // ---- the client node ---------------------------------------------------------------------

  ClientInstance& instance() {
    if (!instance_) instance_ = std::make_unique<ClientInstance>(client_rt(), cluster().client_config("test"));
    return *instance_;
  }
  Producer& producer(ProducerConfig cfg = {}) {
    if (cfg.group == "DEFAULT_PRODUCER") cfg.group = "PG";
    producers_.push_back(std::make_unique<Producer>(instance(), cfg));
    const Status s = producers_.back()->start();
    EXPECT_TRUE(s.ok()) << s.error().to_string();
    return *producers_.back();
  }
  AdminClient& admin() {
    if (!admin_) admin_ = std::make_unique<AdminClient>(instance());
    return *admin_;
  }
  PullAPI& puller() {
    if (!pull_) pull_ = std::make_unique<PullAPI>(instance());
    return *pull_;
  }

  // Runs `task` on the client node until it finishes; the test cannot go on if it does not.
  template <typename T>
  T run(Task<T> task, Duration limit = std::chrono::seconds(60)) {
    auto r = cluster().run_task(client_node_, std::move(task), limit);
    if (!r.value.has_value()) cannot_continue("a task on the client node did not finish: " + r.report.message);
    if constexpr (!std::is_void_v<T>) return std::move(*r.value);
  }

  // Runs until `goal` holds; false (and the goal unmet) after `limit`.
  bool eventually(const std::function<bool()>& goal, Duration limit) { return cluster().run_until(goal, limit).ok(); }

  // Every message of `mq` from `from` on (matching `expr`), the way a user pulls a queue out: a
  // pull may return fewer messages than there are (pull again from next_begin_offset) or be
  // refused busy (pull again after a second).
  std::vector<MessageExt> pull_all(const MessageQueue& mq, QueueOffset from = QueueOffset(0), std::string expr = "*") {
    PullRequest q;
    q.group = "CG";
    q.queue = mq;
    q.offset = from;
    q.sub_expression = std::move(expr);
    std::vector<MessageExt> all;
    int busy = 0;
    for (;;) {
      Result<PullResult> r = run(puller().pull(q));
      if (!r.ok() && r.error().code == Errc::busy && ++busy <= 30) {
        cluster().run_for(std::chrono::seconds(1));
        continue;
      }
      EXPECT_TRUE(r.ok()) << r.error().to_string() << seed_text();
      if (!r.ok()) return all;
      for (MessageExt& m : r->messages) all.push_back(std::move(m));
      if (r->status == PullStatus::OFFSET_ILLEGAL || r->next_begin_offset <= q.offset) return all;
      q.offset = r->next_begin_offset;
    }
  }

  // How far `d` on one node's clock may be from `d` on another's: their monotonic clocks run at
  // (1 + drift) x virtual time, each drift within ±drift_max_ppm (zero fault-free).
  Duration drift_allowance(Duration d) const {
    return std::chrono::duration_cast<Duration>(d * (2 * options_.clock.drift_max_ppm) / 1'000'000);
  }

  // " (seed 1011, trace …, virtual time …)": for assertion messages.
  std::string seed_text() const {
    return cluster_ ? " (" + cluster_->describe() + ")" : fmt::format(" (seed {})", options_.seed);
  }

  // A failure saying why, then the end of the test.
  [[noreturn]] void cannot_continue(const std::string& why) const {
    ADD_FAILURE() << why << seed_text();
    throw TestCannotContinue(why);
  }

  sim::WorldOptions options_;
  ferry::testing::ReplayTrace replay_;  // every failure of the test says its seed and replay line
  broker::BrokerConfig broker_config_;  // of every broker group of cluster_spec()
  std::unique_ptr<sim::cluster::Cluster> cluster_;
  sim::NodeId client_node_{};
  std::unique_ptr<ClientInstance> instance_;
  std::vector<std::unique_ptr<Producer>> producers_;
  std::unique_ptr<AdminClient> admin_;
  std::unique_ptr<PullAPI> pull_;

 private:
  static sim::WorldOptions fault_free(std::uint64_t seed) {
    sim::WorldOptions o;
    o.seed = seed;
    return ferry::testing::world_options(o);
  }
};

}  // namespace ferry::client::testing
