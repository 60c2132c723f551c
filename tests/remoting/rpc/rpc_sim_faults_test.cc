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

}  // namespace
}  // namespace ferry::remoting
