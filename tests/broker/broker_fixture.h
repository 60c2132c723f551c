// Broker tests on the cluster harness (sim/cluster): a Cluster of one broker group whose
// NameServer is a fake (an RpcServer recording REGISTER_BROKER / UNREGISTER_BROKER, through the
// harness's NameServer factory), plus a bare client node whose RpcClient sends real frames built
// by the test kit's builders (tests/support/requests.h). Helpers run one call to completion and
// return its outcome, so assertions stay outside coroutines. Fault-free on seed 7, or under sim::swarm_options(N) with
// FERRY_SIM_SWARM=N (tests/support/swarm_env.h); every failure names the seed and the replay.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "broker/broker.h"
#include "common/crc.h"
#include "common/message_decoder.h"
#include "common/properties.h"
#include "remoting/body/register_broker_body.h"
#include "remoting/header/broker_registration_header.h"
#include "remoting/header/pull_message_header.h"
#include "remoting/header/send_message_header.h"
#include "remoting/header/topic_admin_header.h"
#include "remoting/request_code.h"
#include "remoting/response_code.h"
#include "remoting/rpc/rpc_client.h"
#include "remoting/rpc/rpc_server.h"
#include "runtime/log.h"
#include "sim/cluster/cluster.h"
#include "sim/node.h"
#include "tests/support/requests.h"
#include "tests/support/swarm_env.h"
#include "tests/support/sim_trace_log.h"

namespace ferry::broker::testing {

using remoting::RemotingCommand;
namespace rc = remoting::request_code;
namespace code = remoting::response_code;

// The requests the tests send (tests/support/requests.h).
using ferry::testing::Msg, ferry::testing::Pull, ferry::testing::send_header, ferry::testing::send_request,
    ferry::testing::encode_batch, ferry::testing::batch_request, ferry::testing::pull_request,
    ferry::testing::query_offset_request, ferry::testing::update_offset_request, ferry::testing::max_offset_request,
    ferry::testing::view_request, ferry::testing::topic_header, ferry::testing::create_topic_request,
    ferry::testing::plain_request;

// What the fake NameServer saw.
struct NamesrvLog {
  std::vector<remoting::body::RegisterBrokerBody> registrations;
  std::vector<std::string> crc_problems;
  std::vector<std::string> unregistered;  // broker addresses
};

class FakeNameServer {
 public:
  FakeNameServer(Runtime& rt, std::shared_ptr<NamesrvLog> log) : server_(rt), log_(std::move(log)) {
    server_.register_processor(rc::REGISTER_BROKER, [this](remoting::RequestContext ctx) { return on_register(this, std::move(ctx)); });
    server_.register_processor(rc::UNREGISTER_BROKER, [this](remoting::RequestContext ctx) { return on_unregister(this, std::move(ctx)); });
    const Status s = server_.start(Endpoint{rt.network().host(), 9876});
    if (!s.ok()) ADD_FAILURE() << "the fake NameServer does not listen: " << s.error().to_string();
  }
  ~FakeNameServer() { server_.stop(); }

 private:
  static Task<std::optional<RemotingCommand>> on_register(FakeNameServer* self, remoting::RequestContext ctx) {
    auto h = remoting::RegisterBrokerRequestHeader::from_fields(ctx.request.ext_fields);
    const std::int32_t crc = body_crc(Bytes(ctx.request.body.data(), ctx.request.body.size()));
    if (!h || h->body_crc32 != crc) self->log_->crc_problems.push_back(h ? "crc mismatch" : h.error().to_string());
    auto body = remoting::body::RegisterBrokerBody::decode(ctx.request.body);
    if (body) self->log_->registrations.push_back(std::move(*body));
    co_return remoting::make_response(ctx.request, code::SUCCESS);
  }
  static Task<std::optional<RemotingCommand>> on_unregister(FakeNameServer* self, remoting::RequestContext ctx) {
    auto h = remoting::UnregisterBrokerRequestHeader::from_fields(ctx.request.ext_fields);
    if (h) self->log_->unregistered.push_back(h->broker_addr);
    co_return remoting::make_response(ctx.request, code::SUCCESS);
  }

  remoting::RpcServer server_;
  std::shared_ptr<NamesrvLog> log_;
};

// Outcome of one call, copied out of the coroutine.
struct Call {
  bool ok = false;  // a reply arrived
  std::string error;  // why none did; reply.code is then -1, so no code check passes by default
  RemotingCommand reply;
  std::string remark() const { return reply.remark.value_or(""); }
  const std::string& field(std::string_view k) const {
    static const std::string none = "<absent>";
    const std::string* v = reply.ext_fields.find(k);
    return v ? *v : none;
  }
};

inline Task<Call> invoke(remoting::RpcClient* client, std::string addr, RemotingCommand req, Duration timeout) {
  Call c;
  Result<RemotingCommand> r = co_await client->invoke(std::move(addr), std::move(req), timeout);
  if (r) {
    c.ok = true;
    c.reply = std::move(*r);
  } else {
    c.error = r.error().to_string();
    c.reply.code = -1;
  }
  co_return c;
}

inline std::vector<MessageExt> messages_of(const RemotingCommand& reply) {
  auto m = decode_messages(Bytes(reply.body.data(), reply.body.size()), MessagesDecodeOptions{.check_crc = true});
  EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error().to_string());
  return m.ok() ? std::move(*m) : std::vector<MessageExt>();
}

inline std::string body_text(const MessageExt& m) { return std::string(m.body.begin(), m.body.end()); }

class BrokerTest : public ::testing::Test {
 protected:
  // The fault-free world of these tests (seed 7); FERRY_SIM_SWARM=N replaces it with its swarm
  // draw (tests/support/swarm_env.h), less EIO on sync: a failed sync loses the writes it covered
  // and the store then refuses writes until a restart, by design (the store tests and
  // RuntimeInfoTest.SaysWhenAndWhyTheStoreRefusesWrites cover that), while every test here needs a
  // store that takes writes and keeps what it synced. `adjust`, when given, is applied last (a
  // fixture that needs, say, a slow disk whatever else is drawn).
  using Adjust = void (*)(sim::WorldOptions&);
  static sim::WorldOptions options(Adjust adjust = nullptr) {
    if (std::getenv("FERRY_LOG") == nullptr) set_default_log_level(spdlog::level::warn);
    sim::WorldOptions fault_free;
    fault_free.seed = 7;
    sim::WorldOptions o = ferry::testing::world_options(fault_free);
    o.disk.eio_on_sync_ppm = 0;
    if (adjust != nullptr) adjust(o);
    return o;
  }

  explicit BrokerTest(Adjust adjust = nullptr) : options_(options(adjust)), replay_(options_) {}

  // For a test of one mechanism's fault-free timing (how long a long poll is held, the
  // registration period), which a buggify site legitimately changes: the test runs with buggify
  // off and the rest of its swarm draw (latency, skew, drift, disk faults) on. Call it before
  // boot(), saying why; every other test keeps buggify.
  void without_buggify(std::string_view why) {
    if (cluster_) throw std::logic_error("without_buggify() after boot()");
    if (options_.buggify.enabled) RecordProperty("without_buggify", std::string(why));
    options_.buggify.enabled = false;
  }

  // Builds the cluster from config_ (adjust it first): the fake NameServer, the broker, a bare
  // client node; then runs until the broker serves and has registered.
  void boot() {
    sim::cluster::ClusterSpec spec;
    sim::cluster::BrokerGroupSpec& g = spec.brokers.at(0);
    g.name = config_.broker_name;
    g.cluster = config_.broker_cluster_name;
    g.flush = config_.flush_disk_type;
    g.role = config_.broker_role;
    g.store = config_.store;
    g.config = config_;
    auto log = names_;
    cluster_ = std::make_unique<sim::cluster::Cluster>(options_, spec, [log](Runtime& rt) {
      return sim::hosted(std::make_unique<FakeNameServer>(rt, log));
    });
    namesrv_ = cluster_->namesrv_node(0);
    broker_ = cluster_->broker_node(0);
    client_node_ = cluster_->add_bare("client");
    client_ = std::make_unique<remoting::RpcClient>(node(client_node_));
    const Status booted = cluster_->boot(std::chrono::seconds(30));
    ASSERT_TRUE(booted.ok()) << booted.error().to_string();
    addr_ = broker().address();
  }

  // Runs until the (re)started broker has finished starting; it must be running.
  void wait_running() {
    auto r = cluster().run_until(
        [this] {
          const Broker* b = cluster_->broker(0);
          return b != nullptr && b->state() != Broker::State::starting && b->state() != Broker::State::created;
        },
        std::chrono::seconds(30));
    ASSERT_TRUE(r.ok()) << r.message;
    ASSERT_EQ(broker().state(), Broker::State::running)
        << (broker().start_error() ? broker().start_error()->to_string() : "");
    addr_ = broker().address();
  }

  void TearDown() override {
    if (cluster_) ferry::testing::record_trace(cluster_->world());
    if (client_) client_->shutdown();
    client_.reset();
  }

  sim::cluster::Cluster& cluster() {
    if (!cluster_) throw std::logic_error("the test did not boot() its cluster");
    return *cluster_;
  }
  // The broker component. A test that reaches it while its node is down fails (GoogleTest
  // reports the exception and goes on with the next test).
  Broker& broker() {
    Broker* b = cluster().broker(0);
    if (b == nullptr) throw std::runtime_error("the broker node is down");
    return *b;
  }
  sim::SimNode& node(sim::NodeId n) { return cluster().world().node(n); }
  MonoTime now() { return cluster().world().now(); }
  void run_for(Duration d) { cluster().run_for(d); }
  // Runs until virtual time `t` (at once if it has passed): for "N s after the send" however long
  // the steps in between took.
  void run_until_time(MonoTime t) {
    if (t > now()) run_for(t - now());
  }
  // How far two nodes' clocks can disagree about an interval `d` (each drifts by up to the world's
  // drift_max_ppm, in either direction): the slack of a bound on a time one node measured for
  // another's timer.
  Duration drift_slack(Duration d) const {
    return std::chrono::duration_cast<Duration>(d * 2 * options_.clock.drift_max_ppm / 1'000'000);
  }
  // How long a durable write of a few syncs can take at most in this world (a config file: the
  // temporary file, the rename's directory).
  Duration sync_bound(int syncs = 3) const {
    return syncs * (options_.disk.sync_latency + (options_.disk.slow_sync_ppm > 0 ? options_.disk.slow_sync_latency : Duration{}));
  }

  Call call(RemotingCommand req, Duration timeout = std::chrono::seconds(5), Duration limit = std::chrono::seconds(60)) {
    auto r = cluster().run_task(client_node_, invoke(client_.get(), addr_, std::move(req), timeout), limit);
    return outcome(std::move(r));
  }
  // The Call a run_task of invoke() produced; a run that did not finish or a call without a
  // reply is a test failure.
  static Call outcome(sim::TaskRun<Call> r) {
    EXPECT_TRUE(r.ok()) << r.report.message;
    if (!r.value) {
      Call none;
      none.error = "the call did not finish: " + r.report.message;
      none.reply.code = -1;
      return none;
    }
    EXPECT_TRUE(r.value->ok) << "no reply: " << r.value->error;
    return std::move(*r.value);
  }
  Call send(const Msg& m, std::int32_t request_code = rc::SEND_MESSAGE_V2) { return call(send_request(m, request_code)); }
  // One pull request, sent again (as a consumer's pull loop does) while the broker answers
  // SYSTEM_BUSY: a busy refusal is legal for any pull, before its header is even read, and buggify
  // takes it. Nothing else is retried.
  Call call_pull(const RemotingCommand& req, Duration timeout = std::chrono::seconds(30)) {
    Call c = call(req, timeout);
    for (int again = 0; again < 100 && c.reply.code == code::SYSTEM_BUSY; ++again) c = call(req, timeout);
    return c;
  }
  Call pull(const Pull& p, Duration timeout = std::chrono::seconds(30)) { return call_pull(pull_request(p), timeout); }

  // Every message of topic-queue, pulled as a consumer would: from offset 0 on, following
  // nextBeginOffset until the broker has nothing more, pulling again after a busy refusal or a
  // short batch (both legal; buggify takes them).
  std::vector<MessageExt> all_of(const std::string& topic, std::int32_t queue = 0) {
    Pull p;
    p.topic = topic;
    p.queue_id = queue;
    p.group = "inspector";
    p.max = 64;
    return all_of(p);
  }
  // The same from p.offset on, for p's group and subscription.
  std::vector<MessageExt> all_of(Pull p) {
    const std::string topic = p.topic;
    const std::int32_t queue = p.queue_id;
    std::vector<MessageExt> out;
    for (int attempt = 0; attempt < 1000; ++attempt) {
      Call c = pull(p);
      const std::int32_t rc = c.reply.code;
      if (rc == code::SYSTEM_BUSY || rc == code::PULL_RETRY_IMMEDIATELY) {
        if (rc == code::PULL_RETRY_IMMEDIATELY) p.offset = std::stoll(c.field("nextBeginOffset"));
        continue;
      }
      if (rc != code::SUCCESS) return out;  // PULL_NOT_FOUND, offset moved: nothing more
      for (MessageExt& m : messages_of(c.reply)) out.push_back(std::move(m));
      p.offset = std::stoll(c.field("nextBeginOffset"));
    }
    ADD_FAILURE() << "all_of(" << topic << ", " << queue << ") did not reach the queue's end in 1000 pulls";
    return out;
  }

  // Graceful stop, then the machine goes down (what stop() did not make durable is lost) and the
  // broker starts again.
  void graceful_restart() {
    auto r = cluster().run_task(broker_, broker().stop(), std::chrono::seconds(30));
    ASSERT_TRUE(r.ok()) << r.report.message;
    cluster().power_off(broker_);
    cluster().start(broker_);
    wait_running();
    reconnect_clients();
  }
  void crash_restart() {
    cluster().power_off(broker_);
    cluster().start(broker_);
    wait_running();
    reconnect_clients();
  }
  // After a restart the clients' connections lead to the old incarnation: a powered-off host
  // told nobody, so the first request on one would meet a reset (or, with no latency, the reset
  // may already have arrived). Like a client that saw the reset and retried, they reconnect.
  virtual void reconnect_clients() {
    if (client_) client_->close_channel(addr_);
  }

  sim::WorldOptions options_;  // changed only by without_buggify(), before boot()
  ferry::testing::ReplayTrace replay_;  // every failure says the seed and how to replay
  BrokerConfig config_ = [] {
    BrokerConfig c;
    c.store = sim::cluster::small_store();
    return c;
  }();
  std::shared_ptr<NamesrvLog> names_ = std::make_shared<NamesrvLog>();
  std::unique_ptr<sim::cluster::Cluster> cluster_;
  sim::NodeId namesrv_{}, broker_{}, client_node_{};
  std::unique_ptr<remoting::RpcClient> client_;
  std::string addr_;
};

// A send from a second client node `after` a while, running while the test long-polls. It
// finishes before it is destroyed, however the test left (a failed ASSERT returns at once): the
// destructor shuts its client down (a call in flight fails at once) and runs the world until the
// task is done, so no task outlives the client and the flag it points to.
class SendLater {
 public:
  SendLater(sim::cluster::Cluster& cluster, const std::string& addr, Duration after, Msg m,
            const std::string& node_name = "sender")
      : cluster_(cluster), node_(cluster.add_bare(node_name)), client_(cluster.world().node(node_)) {
    sim::SimNode& n = cluster.world().node(node_);
    n.spawn(run(&client_, addr, &n, after, std::move(m), &done_, &sent_));
  }
  SendLater(const SendLater&) = delete;
  SendLater& operator=(const SendLater&) = delete;
  ~SendLater() {
    client_.shutdown();
    const auto r = cluster_.run_until([this] { return done_; }, std::chrono::seconds(10));
    EXPECT_TRUE(r.ok()) << "the sender's task did not finish: " << r.message;
  }

  bool done() const { return done_; }
  bool sent() const { return sent_; }  // the broker answered SUCCESS

 private:
  static Task<void> run(remoting::RpcClient* c, std::string addr, Runtime* rt, Duration after, Msg m, bool* done,
                        bool* sent) {
    co_await rt->sleep(after);
    Result<RemotingCommand> r = co_await c->invoke(addr, send_request(m), std::chrono::seconds(5));
    *sent = r.ok() && r->code == code::SUCCESS;
    *done = true;
  }

  sim::cluster::Cluster& cluster_;
  sim::NodeId node_;
  remoting::RpcClient client_;
  bool done_ = false;
  bool sent_ = false;
};

}  // namespace ferry::broker::testing
