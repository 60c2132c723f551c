// NameServer tests on the cluster harness (sim/cluster): a NameServer-only Cluster (the tests play
// the brokers) whose client nodes talk to it with real remoting frames (RpcClient); the requests
// brokers and tools send are the test kit's (tests/support/requests.h). Fault-free on the test's
// seed (42 unless it says), or under sim::swarm_options with FERRY_SIM_SWARM=N
// (tests/support/swarm_env.h); every failure names the world seed and the replay.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/crc.h"
#include "namesrv/name_server.h"
#include "namesrv/namesrv_codes.h"
#include "remoting/body/cluster_info.h"
#include "remoting/body/register_broker_body.h"
#include "remoting/body/topic_list.h"
#include "remoting/body/topic_route_data.h"
#include "remoting/header/broker_registration_header.h"
#include "remoting/header/kv_config_header.h"
#include "remoting/header/route_header.h"
#include "remoting/request_code.h"
#include "remoting/response_code.h"
#include "remoting/rpc/rpc_client.h"
#include "runtime/log.h"
#include "sim/cluster/cluster.h"
#include "sim/node.h"
#include "sim/process.h"
#include "tests/support/requests.h"
#include "tests/support/sim_trace_log.h"
#include "tests/support/swarm_env.h"

namespace ferry::namesrv::testing {

namespace rc = remoting::request_code;
namespace resp = remoting::response_code;
namespace body = remoting::body;
using remoting::RemotingCommand;
using remoting::RpcClient;
using sim::NodeId;

// The requests the tests send (tests/support/requests.h).
using ferry::testing::BrokerSpec, ferry::testing::register_request, ferry::testing::unregister_request,
    ferry::testing::route_request, ferry::testing::plain_request;

// What a call came back with (failures to get any reply are test failures).
struct Reply {
  bool ok = false;
  std::string failure;  // why there was no reply
  std::int32_t code = -1;
  std::string remark;
  remoting::ExtFields fields;
  std::vector<std::uint8_t> body;

  std::string body_text() const { return std::string(body.begin(), body.end()); }
};

inline body::TopicConfig topic(std::string name, std::int32_t queues, std::int32_t perm = 6) {
  body::TopicConfig t;
  t.topic_name = std::move(name);
  t.read_queue_nums = queues;
  t.write_queue_nums = queues;
  t.perm = perm;
  return t;
}

class NamesrvTest : public ::testing::Test {
 protected:
  void SetUp() override { make_cluster(NameServerConfig{}); }
  void TearDown() override {
    if (cluster_) ferry::testing::record_trace(cluster_->world());
  }

  // Replaces the cluster with a NameServer-only one: `namesrvs` NameServers using `config`, on
  // world seed `seed` (fault-free) or its swarm draw under FERRY_SIM_SWARM.
  void make_cluster(NameServerConfig config, std::uint64_t seed = 42, std::size_t namesrvs = 1) {
    if (std::getenv("FERRY_LOG") == nullptr) set_default_log_level(spdlog::level::warn);
    replay_.reset();
    cluster_.reset();
    sim::WorldOptions fault_free;
    fault_free.seed = seed;
    const sim::WorldOptions options = ferry::testing::world_options(fault_free);
    replay_.emplace(options);
    sim::cluster::ClusterSpec spec;
    spec.namesrvs = namesrvs;
    spec.namesrv_config = std::move(config);
    spec.brokers.clear();
    cluster_ = std::make_unique<sim::cluster::Cluster>(options, std::move(spec));
    ns_node_ = cluster_->namesrv_node(0);
    ns_addr_ = cluster_->namesrv_addrs().at(0);
    if (cluster_->namesrv(0) == nullptr) ADD_FAILURE() << "the NameServer did not start (see the log)";
  }

  sim::cluster::Cluster& cluster() { return *cluster_; }
  MonoTime now() { return cluster_->world().now(); }
  void run_for(Duration d) { cluster_->run_for(d); }

  NodeId add_client(const std::string& name) {
    return cluster_->add_node(name, [](Runtime& rt) { return sim::hosted(std::make_unique<RpcClient>(rt)); });
  }
  // The RpcClient of a client node. A test that reaches it while the node is down fails
  // (GoogleTest reports the exception and goes on with the next test).
  RpcClient& client(NodeId id) {
    auto* p = dynamic_cast<sim::Hosted<RpcClient>*>(cluster_->world().node(id).process());
    if (p == nullptr) throw std::runtime_error(fmt::format("client node {} is down", id.value));
    return p->get();
  }
  // NameServer `i` of the cluster; a test that reaches it while it is down fails.
  NameServer& name_server(std::size_t i = 0) {
    NameServer* ns = cluster_->namesrv(i);
    if (ns == nullptr) throw std::runtime_error(fmt::format("NameServer {} is down", i));
    return *ns;
  }
  std::string host_of(NodeId id) { return cluster_->world().node(id).host(); }

  // A broker spec whose addresses are those of client node `id`.
  BrokerSpec broker_on(NodeId id, std::string name, std::vector<body::TopicConfig> topics = {}) {
    BrokerSpec b;
    b.name = std::move(name);
    b.addr = host_of(id) + ":10911";
    b.ha_addr = host_of(id) + ":10912";
    b.topics = std::move(topics);
    return b;
  }

  // Sends `request` from client node `from` and runs the world until the reply is in.
  Reply call(NodeId from, RemotingCommand request) {
    Reply out;
    auto run = cluster_->run_task(from, client(from).invoke(ns_addr_, std::move(request), std::chrono::seconds(3)),
                                std::chrono::seconds(10));
    if (!run.value) {
      out.failure = "no result: " + run.report.message;
      return out;
    }
    Result<RemotingCommand>& r = *run.value;
    if (!r.ok()) {
      out.failure = r.error().to_string();
      return out;
    }
    out.ok = true;
    out.code = r->code;
    out.remark = r->remark.value_or("");
    out.fields = r->ext_fields;
    out.body = r->body;
    return out;
  }

  // Calls that must get a reply with `code`.
  Reply expect_code(NodeId from, RemotingCommand request, std::int32_t code) {
    Reply r = call(from, std::move(request));
    EXPECT_TRUE(r.ok) << r.failure;
    EXPECT_EQ(r.code, code) << "remark: " << r.remark;
    return r;
  }
  Reply register_broker(NodeId from, const BrokerSpec& b) {
    return expect_code(from, register_request(b), resp::SUCCESS);
  }
  std::optional<body::TopicRouteData> route(NodeId from, const std::string& topic_name) {
    Reply r = call(from, route_request(topic_name));
    EXPECT_TRUE(r.ok) << r.failure;
    if (r.code != resp::SUCCESS) return std::nullopt;
    auto decoded = body::TopicRouteData::decode(r.body);
    EXPECT_TRUE(decoded.ok()) << decoded.error().to_string() << " in " << r.body_text();
    if (!decoded.ok()) return std::nullopt;
    return std::move(*decoded);
  }
  body::ClusterInfo cluster_info(NodeId from) {
    Reply r = expect_code(from, plain_request(rc::GET_BROKER_CLUSTER_INFO), resp::SUCCESS);
    auto decoded = body::ClusterInfo::decode(r.body);
    EXPECT_TRUE(decoded.ok()) << decoded.error().to_string() << " in " << r.body_text();
    return decoded.ok() ? std::move(*decoded) : body::ClusterInfo{};
  }
  std::vector<std::string> topic_list(NodeId from, RemotingCommand request) {
    Reply r = expect_code(from, std::move(request), resp::SUCCESS);
    auto decoded = body::TopicList::decode(r.body);
    EXPECT_TRUE(decoded.ok()) << decoded.error().to_string() << " in " << r.body_text();
    return decoded.ok() ? decoded->topic_list : std::vector<std::string>{};
  }

  std::optional<ferry::testing::ReplayTrace> replay_;  // every failure says the seed and how to replay
  std::unique_ptr<sim::cluster::Cluster> cluster_;
  NodeId ns_node_;
  std::string ns_addr_;
};

inline body::QueueData queue(std::string broker, std::int32_t queues, std::int32_t perm = 6) {
  body::QueueData q;
  q.broker_name = std::move(broker);
  q.read_queue_nums = queues;
  q.write_queue_nums = queues;
  q.perm = perm;
  return q;
}

inline body::BrokerData broker_data(std::string cluster, std::string name, std::map<std::int64_t, std::string> addrs) {
  body::BrokerData b;
  b.cluster = std::move(cluster);
  b.broker_name = std::move(name);
  b.broker_addrs = std::move(addrs);
  return b;
}

}  // namespace ferry::namesrv::testing

// Readable GoogleTest output for the route types.
namespace ferry::remoting::body {
inline void PrintTo(const QueueData& q, std::ostream* os) {
  *os << "{" << q.broker_name << " r" << q.read_queue_nums << " w" << q.write_queue_nums << " perm" << q.perm
      << " sys" << q.topic_sys_flag << "}";
}
inline void PrintTo(const BrokerData& b, std::ostream* os) {
  *os << "{" << b.cluster << "/" << b.broker_name << " [";
  for (const auto& [id, addr] : b.broker_addrs) *os << " " << id << "=" << addr;
  *os << " ]}";
}
}  // namespace ferry::remoting::body
