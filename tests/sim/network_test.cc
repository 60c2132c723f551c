// The simulated network: streams, eof, refusal, partitions and heal, resets, back-pressure, and
// what a crash does to connections and listeners.
#include <gtest/gtest.h>

#include "tests/support/sim_test_util.h"

namespace ferry::sim::testing {
namespace {

using Conns = std::vector<std::shared_ptr<Received>>;

// A world with a server node (listening on port 9000, draining every connection) and a client.
struct Pair {
  World world;
  NodeId server;
  NodeId client;
  std::shared_ptr<Conns> received = std::make_shared<Conns>();

  explicit Pair(WorldOptions o) : world(o) {
    server = world.add_node("server");
    client = world.add_node("client");
    listen();
  }
  void listen() {
    SimNode& s = world.node(server);
    auto l = s.network().listen(endpoint());
    if (!l.ok()) {
      ADD_FAILURE() << "listen: " << l.error().to_string();
      return;
    }
    s.spawn(accept_all(std::move(*l), &s, received), "accept_all");
  }
  Endpoint endpoint() { return Endpoint{world.node(server).network().host(), 9000}; }
  Runtime& client_rt() { return world.node(client); }
};

Task<Result<std::unique_ptr<Connection>>> dial(Runtime* rt, Endpoint to, Duration timeout) {
  co_return co_await rt->network().connect(to, timeout);
}

Task<Status> send_text(Connection* c, std::string text) {
  const auto bytes = bytes_of(text);
  co_return co_await c->write(view_of(bytes));
}

Task<void> send_pieces(Connection* c, std::vector<std::string> pieces) {
  for (const std::string& piece : pieces) {
    if (!(co_await send_text(c, piece)).ok()) co_return;
  }
}

std::unique_ptr<Connection> connect_now(Pair& p) {
  auto r = p.world.run_task(p.client, dial(&p.client_rt(), p.endpoint(), 1s), 2s);
  if (!r.ok() || !r.value->ok()) {
    ADD_FAILURE() << "connect: " << (r.ok() ? r.value->error().to_string() : r.report.message);
    return nullptr;
  }
  return std::move(**r.value);
}

void send_now(Pair& p, Connection* c, const std::string& text) {
  auto r = p.world.run_task(p.client, send_text(c, text), 10s);
  EXPECT_TRUE(r.ok() && r.value->ok())
      << "send of \"" << text << "\": " << (r.ok() ? r.value->error().to_string() : r.report.message);
}

TEST(SimNetwork, BytesArriveInOrderAndCloseGivesEof) {
  Pair p(test_options(1));
  auto conn = connect_now(p);
  ASSERT_NE(conn, nullptr);
  EXPECT_EQ(conn->peer(), p.endpoint());
  EXPECT_EQ(conn->local().host, p.client_rt().network().host());
  std::string sent;
  for (int i = 0; i < 50; ++i) {
    const std::string piece = fmt::format("msg-{};", i);
    send_now(p, conn.get(), piece);
    sent += piece;
  }
  conn->close();
  p.world.run_for(1s);
  ASSERT_EQ(p.received->size(), 1u);
  EXPECT_EQ((*p.received)[0]->bytes, sent);
  EXPECT_TRUE((*p.received)[0]->ended);
  EXPECT_EQ((*p.received)[0]->end, Errc::eof);
}

TEST(SimNetwork, ConnectToAClosedPortIsRefused) {
  Pair p(test_options(2));
  Endpoint nobody = p.endpoint();
  nobody.port = 9999;
  auto r = p.world.run_task(p.client, dial(&p.client_rt(), nobody, 5s), 10s);
  ASSERT_TRUE(r.ok()) << r.report.message;
  ASSERT_FALSE(r.value->ok());
  EXPECT_EQ(r.value->error().code, Errc::refused);
  EXPECT_GT(p.world.now(), MonoTime(0ns)) << "refusal takes a round trip";
  EXPECT_LT(p.world.now(), MonoTime(100ms)) << "and not the timeout";
}

TEST(SimNetwork, UnknownHostIsUnreachable) {
  Pair p(test_options(3));
  auto r = p.world.run_task(p.client, dial(&p.client_rt(), Endpoint{"10.9.9.9", 1}, 1s), 2s);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value->error().code, Errc::unreachable);
}

TEST(SimNetwork, PartitionHoldsBytesAndHealDeliversThemInOrder) {
  Pair p(test_options(4));
  auto conn = connect_now(p);
  ASSERT_NE(conn, nullptr);
  p.world.net().partition(p.server, p.client);
  std::string sent;
  for (int i = 0; i < 20; ++i) {
    const std::string piece = fmt::format("p{},", i);
    send_now(p, conn.get(), piece);
    sent += piece;
  }
  p.world.run_for(5s);
  ASSERT_EQ(p.received->size(), 1u);
  EXPECT_EQ((*p.received)[0]->bytes, "") << "nothing crosses a partition";

  // New connections time out across the partition.
  const MonoTime before = p.world.now();
  auto r = p.world.run_task(p.client, dial(&p.client_rt(), p.endpoint(), 700ms), 5s);
  ASSERT_TRUE(r.ok()) << r.report.message;
  EXPECT_EQ(r.value->error().code, Errc::timed_out);
  EXPECT_EQ(p.world.now() - before, 700ms);

  p.world.net().heal_all();
  p.world.run_for(1s);
  EXPECT_EQ((*p.received)[0]->bytes, sent) << "held bytes arrive after heal, in order";
  auto again = p.world.run_task(p.client, dial(&p.client_rt(), p.endpoint(), 1s), 2s);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again.value->ok()) << "new connections work after heal";
}

TEST(SimNetwork, OneWayPartitionCutsOneDirection) {
  Pair p(test_options(5));
  auto conn = connect_now(p);
  ASSERT_NE(conn, nullptr);
  p.world.net().partition_one_way(p.client, p.server);
  EXPECT_FALSE(p.world.net().link_up(p.client, p.server));
  EXPECT_TRUE(p.world.net().link_up(p.server, p.client));
  send_now(p, conn.get(), "held");
  p.world.run_for(1s);
  EXPECT_EQ((*p.received)[0]->bytes, "");
  p.world.net().heal(p.client, p.server);
  p.world.run_for(1s);
  EXPECT_EQ((*p.received)[0]->bytes, "held");
}

// Linux sends an unanswered SYN again 1, 3, 7, ... s after the first: a connect pending when a
// partition heals completes at its next SYN (as `mqsim run --real` measured), not at its timeout.
Task<void> heal_later(Pair* p, Duration after) {
  co_await p->world.node(p->server).sleep(after);
  p->world.net().heal_all();
}

// Every link heals `after` from now (while a test's task runs).
void heal_after(Pair& p, Duration after) { p.world.node(p.server).spawn(heal_later(&p, after), "heal"); }

TEST(SimNetwork, ASynAfterTheHealAnswersWithinTheConnectTimeout) {
  Pair p(test_options(22));
  p.world.net().partition(p.server, p.client);
  heal_after(p, 2500ms);
  const MonoTime before = p.world.now();
  auto r = p.world.run_task(p.client, dial(&p.client_rt(), p.endpoint(), 20s), 30s);
  ASSERT_TRUE(r.ok()) << r.report.message;
  ASSERT_TRUE(r.value->ok()) << r.value->error().to_string();
  const Duration took = p.world.now() - before;
  EXPECT_GE(took, 3s) << "the SYN 3 s after the first is the one that crosses";
  EXPECT_LT(took, 3500ms) << "and it does not wait for the 20 s timeout";
}

TEST(SimNetwork, ASynNobodyAnswersGivesUpAfter127Seconds) {
  Pair p(test_options(23));
  p.world.net().isolate(p.server);
  const MonoTime before = p.world.now();
  auto r = p.world.run_task(p.client, dial(&p.client_rt(), p.endpoint(), 10min), 11min);
  ASSERT_TRUE(r.ok()) << r.report.message;
  ASSERT_FALSE(r.value->ok());
  EXPECT_EQ(r.value->error().code, Errc::timed_out);
  EXPECT_EQ(p.world.now() - before, 127s) << "tcp_syn_retries = 6: " << r.value->error().to_string();
}

TEST(SimNetwork, ALostSynAckIsAskedForAgain) {
  Pair p(test_options(24));
  p.world.net().partition_one_way(p.server, p.client);  // the SYN arrives, its SYN-ACK does not
  heal_after(p, 1500ms);
  const MonoTime before = p.world.now();
  auto r = p.world.run_task(p.client, dial(&p.client_rt(), p.endpoint(), 20s), 30s);
  ASSERT_TRUE(r.ok()) << r.report.message;
  ASSERT_TRUE(r.value->ok()) << r.value->error().to_string();
  EXPECT_GE(p.world.now() - before, 3s);
  EXPECT_LT(p.world.now() - before, 3500ms);
  p.world.run_for(1s);
  EXPECT_EQ(p.received->size(), 1u) << "one connection on the server, not one per SYN";
}

TEST(SimNetwork, IsolatedNodeIsCutFromEveryone) {
  Pair p(test_options(6));
  const NodeId third = p.world.add_node("third");
  p.world.net().isolate(p.server);
  EXPECT_FALSE(p.world.net().link_up(p.client, p.server));
  EXPECT_FALSE(p.world.net().link_up(p.server, third));
  EXPECT_TRUE(p.world.net().link_up(p.client, third));
  auto r = p.world.run_task(p.client, dial(&p.client_rt(), p.endpoint(), 300ms), 1s);
  EXPECT_EQ(r.value->error().code, Errc::timed_out);
}

TEST(SimNetwork, ResetDeliversAPrefixThenReset) {
  int prefixes_seen = 0;
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    Pair p(test_options(seed));
    auto conn = connect_now(p);
    ASSERT_NE(conn, nullptr);
    // 30 segments, all in flight at the reset.
    std::vector<std::string> pieces;
    std::string sent;
    for (int i = 0; i < 30; ++i) {
      pieces.push_back(fmt::format("r{}.", i));
      sent += pieces.back();
    }
    p.world.node(p.client).spawn(send_pieces(conn.get(), pieces));
    p.world.run_for(1ns);  // the writes hand their bytes to the wire
    p.world.net().reset_between(p.client, p.server);
    p.world.run_for(1s);
    const Received& got = *(*p.received)[0];
    EXPECT_TRUE(got.ended);
    EXPECT_EQ(got.end, Errc::reset) << "seed " << seed;
    EXPECT_EQ(sent.substr(0, got.bytes.size()), got.bytes) << "a prefix, never a gap (seed " << seed << ")";
    if (!got.bytes.empty()) ++prefixes_seen;
    auto after = p.world.run_task(p.client, send_text(conn.get(), "x"), 1s);
    EXPECT_EQ(after.value->error().code, Errc::reset) << "the writer learns of the reset";
  }
  EXPECT_GT(prefixes_seen, 0);
}

TEST(SimNetwork, FullBufferMakesWritesWait) {
  WorldOptions o = test_options(7);
  o.network.pipe_buffer_bytes = 4096;
  World world(o);
  const NodeId server = world.add_node("server");
  const NodeId client = world.add_node("client");
  auto l = world.node(server).network().listen(Endpoint{world.node(server).network().host(), 9000});
  ASSERT_TRUE(l.ok());
  auto c = world.run_task(client, dial(&world.node(client), (*l)->local(), 1s), 2s);
  ASSERT_TRUE(c.ok() && c.value->ok());
  std::unique_ptr<Connection> conn = std::move(**c.value);

  auto done = std::make_shared<Status>(Errc::busy);
  struct Writer {
    static Task<void> run(Connection* c, std::shared_ptr<Status> out) {
      const std::vector<std::uint8_t> big(64 * 1024, 7);
      *out = co_await c->write(view_of(big));
    }
  };
  world.node(client).spawn(Writer::run(conn.get(), done));
  world.run_for(5s);
  EXPECT_EQ(done->error().code, Errc::busy) << "the write waits: nobody reads and the buffer is full";

  auto accepted = world.run_task(server, (*l)->accept(), 1s);
  ASSERT_TRUE(accepted.ok() && accepted.value->ok());
  auto received = std::make_shared<Received>();
  world.node(server).spawn(read_all(std::move(**accepted.value), received));
  world.run_for(5s);
  EXPECT_TRUE(done->ok()) << "reading frees the buffer";
  EXPECT_EQ(received->bytes.size(), 64u * 1024);
  conn.reset();
  l->reset();
}

TEST(SimNetwork, CrashResetsPeersAndClosesListeners) {
  Pair p(test_options(8));
  auto conn = connect_now(p);
  ASSERT_NE(conn, nullptr);
  auto mine = std::make_shared<Received>();
  p.world.node(p.client).spawn(read_all(std::move(conn), mine));
  p.world.run_for(10ms);
  p.world.kill(p.server);
  p.world.run_for(1s);
  EXPECT_TRUE(mine->ended);
  EXPECT_EQ(mine->end, Errc::reset);
  auto r = p.world.run_task(p.client, dial(&p.client_rt(), p.endpoint(), 1s), 2s);
  EXPECT_EQ(r.value->error().code, Errc::refused) << "the listener died with its node";
  p.world.start(p.server);
  p.listen();
  auto again = p.world.run_task(p.client, dial(&p.client_rt(), p.endpoint(), 1s), 2s);
  EXPECT_TRUE(again.value->ok()) << "the restarted node listens again";
}

TEST(SimNetwork, ClogAddsLatency) {
  WorldOptions o = test_options(9);
  o.network.latency_min = 1ms;
  o.network.latency_tail_mean = 0ns;
  Pair p(o);
  auto conn = connect_now(p);
  ASSERT_NE(conn, nullptr);
  p.world.net().clog(p.client, p.server, 300ms);
  send_now(p, conn.get(), "slow");
  p.world.run_for(250ms);
  EXPECT_EQ((*p.received)[0]->bytes, "");
  p.world.run_for(100ms);
  EXPECT_EQ((*p.received)[0]->bytes, "slow");
}

}  // namespace
}  // namespace ferry::sim::testing
