// A simulated cluster for client tests: NameServer nodes (src/namesrv), Broker nodes (src/broker)
// registering with them, and a bare client node on which the test builds a ClientInstance, its
// producers, an AdminClient and a PullAPI. `run(task)` runs one coroutine to completion on the
// client node and returns its value, so assertions stay outside coroutines.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "broker/broker.h"
#include "client/admin_client.h"
#include "client/client_instance.h"
#include "client/producer.h"
#include "client/pull_api.h"
#include "namesrv/name_server.h"
#include "runtime/log.h"
#include "sim/net/network.h"
#include "sim/node.h"
#include "sim/world.h"
#include "tests/support/sim_trace_log.h"

namespace ferry::client::testing {

inline store::StoreConfig small_store() {
  store::StoreConfig c;
  c.commit_log_file_size_bytes = 1 << 20;
  c.message_size_max_bytes = 64 * 1024;
  c.consume_queue_units_per_file = 1000;
  c.index_geometry = store::IndexGeometry{64, 1024};
  return c;
}

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

class ClientTest : public ::testing::Test {
 protected:
  static sim::WorldOptions options(std::uint64_t seed) {
    if (std::getenv("FERRY_LOG") == nullptr) set_default_log_level(spdlog::level::warn);
    sim::WorldOptions o;
    o.seed = seed;
    return o;
  }

  explicit ClientTest(std::uint64_t seed = 11) : world_(options(seed)) {}

  ~ClientTest() override {
    ferry::testing::record_trace(world_);
    // Client objects reference the client node's runtime: destroy them before the world.
    admin_.reset();
    pull_.reset();
    producers_.clear();
    instance_.reset();
  }

  // Starts `namesrvs` NameServers and brokers named `brokers` (one node each), waits until every
  // broker runs and has registered, and builds the client node.
  void boot(std::vector<std::string> brokers = {"broker-a", "broker-b"}, std::size_t namesrvs = 1) {
    for (std::size_t i = 0; i < namesrvs; ++i) {
      auto id = world_.add_node(numbered("namesrv-", static_cast<int>(i)), [](Runtime& rt) {
        namesrv::NameServerConfig c;
        c.listen_host = rt.network().host();
        auto ns = std::make_unique<namesrv::NameServer>(rt, c);
        Status s = ns->start();
        FERRY_ASSERT(s.ok(), "namesrv: {}", s.ok() ? "" : s.error().to_string());
        return sim::hosted(std::move(ns));
      });
      ns_nodes_.push_back(id);
      ns_addrs_.push_back(world_.node(id).host() + ":9876");
    }
    for (const std::string& name : brokers) {
      broker::BrokerConfig cfg = broker_config_;
      cfg.broker_name = name;
      cfg.namesrv_addr = ns_addrs_;
      cfg.store = small_store();
      auto id = world_.add_node(name, [cfg](Runtime& rt) {
        auto b = std::make_unique<broker::Broker>(rt, cfg);
        b->launch();
        return sim::hosted(std::move(b));
      });
      broker_nodes_.push_back(id);
    }
    for (std::size_t i = 0; i < broker_nodes_.size(); ++i) wait_running(i);
    client_node_ = world_.add_node("client");
  }

  void wait_running(std::size_t i) {
    auto r = world_.run_until(
        [&] {
          auto s = broker(i).state();
          return s != broker::Broker::State::starting && s != broker::Broker::State::created &&
                 broker(i).registrar().rounds() > 0 && !broker(i).registrar().successes().empty();
        },
        std::chrono::seconds(30));
    ASSERT_TRUE(r.ok()) << r.message;
    ASSERT_EQ(broker(i).state(), broker::Broker::State::running);
  }

  broker::Broker& broker(std::size_t i) {
    auto* p = dynamic_cast<sim::Hosted<broker::Broker>*>(world_.node(broker_nodes_.at(i)).process());
    FERRY_ASSERT(p != nullptr, "broker {} is down", i);
    return p->get();
  }
  std::string broker_addr(std::size_t i) { return world_.node(broker_nodes_.at(i)).host() + ":10911"; }
  Runtime& client_rt() { return world_.node(client_node_); }

  ClientConfig client_config() {
    ClientConfig c;
    c.namesrv_addrs = ns_addrs_;
    c.instance_name = "test";
    c.uniq_id_pid = 4242;
    c.uniq_id_process_hash = 0x1234;
    return c;
  }
  ClientInstance& instance() {
    if (!instance_) instance_ = std::make_unique<ClientInstance>(client_rt(), client_config_ ? *client_config_ : client_config());
    return *instance_;
  }
  Producer& producer(ProducerConfig cfg = {}) {
    if (cfg.group == "DEFAULT_PRODUCER") cfg.group = "PG";
    producers_.push_back(std::make_unique<Producer>(instance(), cfg));
    Status s = producers_.back()->start();
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

  // Runs `task` on the client node until it finishes (a test failure if it does not).
  template <typename T>
  T run(Task<T> task, Duration limit = std::chrono::seconds(60)) {
    auto r = world_.run_task(client_node_, std::move(task), limit);
    EXPECT_TRUE(r.ok()) << r.report.message << " seed " << world_.options().seed << " trace " << world_.trace_hash();
    FERRY_ASSERT(r.value.has_value(), "task did not finish: {}", r.report.message);
    if constexpr (!std::is_void_v<T>) return std::move(*r.value);
  }

  // Creates `topic` with `queues` read/write queues on every broker, and waits until the client
  // can see its route.
  void create_topic(const std::string& topic, std::int32_t queues) {
    for (std::size_t i = 0; i < broker_nodes_.size(); ++i) {
      remoting::body::TopicConfig t;
      t.topic_name = topic;
      t.read_queue_nums = queues;
      t.write_queue_nums = queues;
      t.perm = 6;
      Status s = run(admin().create_topic(broker_addr(i), t));
      ASSERT_TRUE(s.ok()) << s.error().to_string();
    }
    world_.run_for(std::chrono::seconds(2));  // the brokers re-register with the NameServers
  }

  std::vector<MessageExt> pull_all(const MessageQueue& mq, QueueOffset from = QueueOffset(0), std::string expr = "*") {
    PullRequest q;
    q.group = "CG";
    q.queue = mq;
    q.offset = from;
    q.sub_expression = std::move(expr);
    Result<PullResult> r = run(puller().pull(q));
    EXPECT_TRUE(r.ok()) << r.error().to_string();
    return r.ok() ? std::move(r->messages) : std::vector<MessageExt>();
  }

  sim::World world_;
  broker::BrokerConfig broker_config_;
  std::optional<ClientConfig> client_config_;
  std::vector<sim::NodeId> ns_nodes_;
  std::vector<std::string> ns_addrs_;
  std::vector<sim::NodeId> broker_nodes_;
  sim::NodeId client_node_{};
  std::unique_ptr<ClientInstance> instance_;
  std::vector<std::unique_ptr<Producer>> producers_;
  std::unique_ptr<AdminClient> admin_;
  std::unique_ptr<PullAPI> pull_;
};

}  // namespace ferry::client::testing
