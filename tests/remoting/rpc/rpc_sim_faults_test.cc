// RPC under simulated faults: a partition makes calls time out (and only those calls), healing
// restores service on the same connection; a server crash mid-call fails the call with an error
// value; a restarted server is reached again by reconnecting.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "remoting/request_code.h"
#include "remoting/response_code.h"
#include "remoting/rpc/rpc_client.h"
#include "remoting/rpc/rpc_server.h"
#include "sim/net/network.h"
#include "sim/node.h"
#include "sim/world.h"

namespace ferry::remoting {
namespace {

constexpr std::int32_t kEcho = 9101;
constexpr std::int32_t kSlow = 9102;
constexpr std::int32_t kSpoof = 9103;
constexpr std::uint16_t kPort = 10911;

// The server node's component: an RpcServer with an echo and a slow processor.
class EchoServer {
 public:
  explicit EchoServer(Runtime& rt) : rt_(rt), server_(rt) {
    server_.register_processor(kEcho, [](RequestContext ctx) { return echo(std::move(ctx)); });
    server_.register_processor(kSlow, [this](RequestContext ctx) { return slow(&rt_, std::move(ctx)); });
    Status s = server_.start(Endpoint{rt.network().host(), kPort});
    if (!s.ok()) ADD_FAILURE() << "listen: " << s.error().to_string();
  }

 private:
  static Task<std::optional<RemotingCommand>> echo(RequestContext ctx) {
    RemotingCommand reply = make_response(ctx.request, 0);
    reply.body = std::move(ctx.request.body);
    co_return reply;
  }
  static Task<std::optional<RemotingCommand>> slow(Runtime* rt, RequestContext ctx) {
    co_await rt->sleep(std::chrono::seconds(10));
    co_return make_response(ctx.request, 0);
  }
  Runtime& rt_;
  RpcServer server_;
};

struct Outcome {
  bool ok = false;
  Errc err = Errc::ok;
  std::string text;
};

Task<Outcome> call(RpcClient* client, std::string addr, std::int32_t code, Duration timeout) {
  RemotingCommand req = make_request(code, 0);
  req.body = {'h', 'i'};
  Result<RemotingCommand> r = co_await client->invoke(addr, std::move(req), timeout);
  Outcome o;
  o.ok = r.ok();
  if (!r.ok()) {
    o.err = r.error().code;
    o.text = r.error().to_string();
  }
  co_return o;
}

class RpcSimFaults : public ::testing::TestWithParam<std::uint64_t> {
 protected:
  void SetUp() override {
    sim::WorldOptions o;
    o.seed = GetParam();
    world_ = std::make_unique<sim::World>(o);
    server_ = world_->add_node("server", [](Runtime& rt) { return sim::hosted(std::make_unique<EchoServer>(rt)); });
    client_node_ = world_->add_node("client");
    client_ = std::make_unique<RpcClient>(world_->node(client_node_));
    addr_ = world_->net().host_of(server_) + ":" + std::to_string(kPort);
    world_->run_for(std::chrono::milliseconds(10));
  }
  void TearDown() override {
    client_->shutdown();
    world_->kill(client_node_);  // destroys the client's tasks before the client object
    client_.reset();
    world_.reset();
  }
  // A kSlow call (10 s of processing, 30 s timeout) running on the client node: its outcome, and
  // whether it finished.
  std::pair<std::shared_ptr<Outcome>, std::shared_ptr<bool>> start_slow_call() {
    auto out = std::make_shared<Outcome>();
    auto done = std::make_shared<bool>(false);
    struct Run {
      static Task<void> go(RpcClient* c, std::string addr, std::shared_ptr<Outcome> out, std::shared_ptr<bool> done) {
        *out = co_await call(c, addr, kSlow, std::chrono::seconds(30));
        *done = true;
      }
    };
    world_->node(client_node_).spawn(Run::go(client_.get(), addr_, out, done), "slow-call");
    return {out, done};
  }

  Outcome run_call(std::int32_t code, Duration timeout) {
    auto r = world_->run_task(client_node_, call(client_.get(), addr_, code, timeout), std::chrono::minutes(5));
    EXPECT_TRUE(r.ok()) << r.report.message << " (seed " << GetParam() << ")";
    return r.value.value_or(Outcome{});
  }

  std::unique_ptr<sim::World> world_;
  sim::NodeId server_{};
  sim::NodeId client_node_{};
  std::unique_ptr<RpcClient> client_;
  std::string addr_;
};

TEST_P(RpcSimFaults, PartitionTimesOutCallsAndHealRestoresService) {
  Outcome before = run_call(kEcho, std::chrono::seconds(3));
  ASSERT_TRUE(before.ok) << before.text;

  world_->net().partition(server_, client_node_);
  Outcome during = run_call(kEcho, std::chrono::seconds(3));
  EXPECT_FALSE(during.ok);
  EXPECT_EQ(during.err, Errc::timed_out) << during.text;
  EXPECT_EQ(client_->pending_calls(), 0u) << "a timed-out call must leave the pending table";

  world_->net().heal_all();
  Outcome after = run_call(kEcho, std::chrono::seconds(3));
  EXPECT_TRUE(after.ok) << after.text << " (seed " << GetParam() << ")";
}

TEST_P(RpcSimFaults, ServerCrashMidCallFailsTheCallAndRestartIsReachedAgain) {
  // Start a slow call, crash the server while it is being processed.
  auto [slow, done] = start_slow_call();
  world_->run_for(std::chrono::seconds(1));
  ASSERT_FALSE(*done) << "the slow call must still be in progress";
  world_->kill(server_);
  auto r = world_->run_until([&] { return *done; }, std::chrono::seconds(20));
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_FALSE(slow->ok);
  EXPECT_EQ(slow->err, Errc::reset) << slow->text;

  world_->start(server_);
  world_->run_for(std::chrono::milliseconds(10));
  Outcome again = run_call(kEcho, std::chrono::seconds(3));
  EXPECT_TRUE(again.ok) << again.text;
}

TEST_P(RpcSimFaults, DestroyingAClientFailsItsCallsAndNothingResumesIntoIt) {
  auto [slow, done] = start_slow_call();
  world_->run_for(std::chrono::seconds(1));
  ASSERT_FALSE(*done);
  client_.reset();  // the node (and the task awaiting the call) lives on
  world_->run_for(std::chrono::seconds(15));
  EXPECT_TRUE(*done);
  EXPECT_FALSE(slow->ok);
  EXPECT_EQ(slow->err, Errc::closed) << slow->text;
  client_ = std::make_unique<RpcClient>(world_->node(client_node_));  // for TearDown
}

INSTANTIATE_TEST_SUITE_P(Seeds, RpcSimFaults, ::testing::Values(1, 2, 3, 4, 5));

// The reply codes of `n` pulls, one after another.
Task<std::vector<std::int32_t>> pull_codes(RpcClient* client, std::string addr, int n) {
  std::vector<std::int32_t> codes;
  for (int i = 0; i < n; ++i) {
    Result<RemotingCommand> r = co_await client->invoke(addr, make_request(request_code::PULL_MESSAGE, 0),
                                                        std::chrono::seconds(5));
    codes.push_back(r.ok() ? r->code : -1);
  }
  co_return codes;
}

// Regression: the busy-refusal buggify site answered SYSTEM_BUSY to a pull on a server with no
// pull processor (the broker's VIP port), where RocketMQ answers REQUEST_CODE_NOT_SUPPORTED,
// whatever its load. Every site on, firing on every call.
TEST(RpcBuggify, APullNobodyServesIsNotSupportedNeverBusy) {
  sim::WorldOptions o;
  o.seed = 11;
  o.buggify.enabled = true;
  o.buggify.site_enabled_ppm = 1'000'000;
  o.buggify.fire_ppm = 1'000'000;
  sim::World world(o);
  const sim::NodeId server = world.add_node("server", [](Runtime& rt) { return sim::hosted(std::make_unique<EchoServer>(rt)); });
  const sim::NodeId client_node = world.add_node("client");
  auto client = std::make_unique<RpcClient>(world.node(client_node));
  const std::string addr = world.net().host_of(server) + ":" + std::to_string(kPort);
  auto r = world.run_task(client_node, pull_codes(client.get(), addr, 200), std::chrono::hours(1));
  ASSERT_TRUE(r.ok()) << r.report.message;
  ASSERT_EQ(r.value->size(), 200u);
  for (std::size_t i = 0; i < r.value->size(); ++i) {
    EXPECT_EQ((*r.value)[i], response_code::REQUEST_CODE_NOT_SUPPORTED) << "pull " << i;
  }
  client->shutdown();
  world.kill(client_node);  // destroys the client's tasks before the client object
}

// A server that answers kSpoof by first sending, on the same connection, a "reply" with the
// opaque just below the request's own (another call of the client's, which went out on another
// connection), then its own reply; and kSlow after 1 s with its name in the body.
class SpoofServer {
 public:
  SpoofServer(Runtime& rt, std::string name) : rt_(rt), name_(std::move(name)), server_(rt) {
    server_.register_processor(kSpoof, [](RequestContext ctx) { return spoof(std::move(ctx)); });
    server_.register_processor(kSlow, [this](RequestContext ctx) { return slow(&rt_, name_, std::move(ctx)); });
    Status s = server_.start(Endpoint{rt.network().host(), kPort});
    if (!s.ok()) ADD_FAILURE() << "listen: " << s.error().to_string();
  }

 private:
  static Task<std::optional<RemotingCommand>> spoof(RequestContext ctx) {
    RemotingCommand fake = make_response(ctx.request, 0);
    fake.opaque = ctx.request.opaque - 1;
    fake.body = {'f', 'a', 'k', 'e'};
    Status sent = co_await ctx.channel->send(std::move(fake));
    EXPECT_TRUE(sent.ok());
    co_return make_response(ctx.request, 0);
  }
  static Task<std::optional<RemotingCommand>> slow(Runtime* rt, std::string name, RequestContext ctx) {
    co_await rt->sleep(std::chrono::seconds(1));
    RemotingCommand reply = make_response(ctx.request, 0);
    reply.body.assign(name.begin(), name.end());
    co_return reply;
  }
  Runtime& rt_;
  std::string name_;
  RpcServer server_;
};

struct TwoCalls {
  std::string slow_body;
  bool slow_ok = false;
  bool spoof_ok = false;
};

Task<TwoCalls> slow_then_spoof(RpcClient* client, std::string a, std::string b) {
  struct Slow {
    static Task<void> go(RpcClient* c, std::string addr, std::shared_ptr<TwoCalls> out, std::shared_ptr<bool> done) {
      Result<RemotingCommand> r = co_await c->invoke(addr, make_request(kSlow, 0), std::chrono::seconds(5));
      out->slow_ok = r.ok();
      if (r.ok()) out->slow_body.assign(r->body.begin(), r->body.end());
      *done = true;
    }
  };
  auto out = std::make_shared<TwoCalls>();
  auto done = std::make_shared<bool>(false);
  client->runtime().spawn(Slow::go(client, a, out, done), "slow");
  co_await client->runtime().sleep(std::chrono::milliseconds(100));  // the slow call is out (opaque n)
  Result<RemotingCommand> spoofed = co_await client->invoke(b, make_request(kSpoof, 0), std::chrono::seconds(5));
  out->spoof_ok = spoofed.ok();
  while (!*done) co_await client->runtime().sleep(std::chrono::milliseconds(100));
  co_return *out;
}

// A reply is tied to the connection its call went out on: a reply with the opaque of a call to
// server A, arriving from server B, is dropped (and counted); A's own reply still completes it.
TEST(RpcReplies, AReplyOnAnotherConnectionIsDropped) {
  sim::World world(sim::WorldOptions{});
  const sim::NodeId a = world.add_node("a", [](Runtime& rt) { return sim::hosted(std::make_unique<SpoofServer>(rt, "from-a")); });
  const sim::NodeId b = world.add_node("b", [](Runtime& rt) { return sim::hosted(std::make_unique<SpoofServer>(rt, "from-b")); });
  const sim::NodeId client_node = world.add_node("client");
  auto client = std::make_unique<RpcClient>(world.node(client_node));
  const std::string addr_a = world.net().host_of(a) + ":" + std::to_string(kPort);
  const std::string addr_b = world.net().host_of(b) + ":" + std::to_string(kPort);
  // Connect to B first, so that the spoofing request is the next opaque after the slow call's.
  auto warm = world.run_task(client_node, client->channel(addr_b, std::chrono::seconds(3)), std::chrono::minutes(1));
  ASSERT_TRUE(warm.ok()) << warm.report.message;
  auto r = world.run_task(client_node, slow_then_spoof(client.get(), addr_a, addr_b), std::chrono::minutes(1));
  ASSERT_TRUE(r.ok()) << r.report.message;
  EXPECT_TRUE(r.value->spoof_ok);
  EXPECT_TRUE(r.value->slow_ok);
  EXPECT_EQ(r.value->slow_body, "from-a");  // not B's "fake"
  EXPECT_EQ(client->misrouted_replies(), 1u);
  client->shutdown();
  world.kill(client_node);
}

}  // namespace
}  // namespace ferry::remoting
