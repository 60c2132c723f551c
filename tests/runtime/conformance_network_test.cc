// Runtime conformance, network: listen/connect/accept, ordered byte streams, gather writes, and
// every failure as a value (refused, address_in_use, closed, eof).
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "tests/runtime/conformance_fixture.h"

namespace ferry::testing {
namespace {

using namespace std::chrono_literals;

// ---- helpers ----------------------------------------------------------------------------------

// Echoes everything one connection sends until it fails or closes.
Task<void> echo_connection(std::unique_ptr<Connection> conn) {
  std::vector<std::uint8_t> buf(16 * 1024);
  for (;;) {
    auto n = co_await conn->read_some(buf);
    if (!n.ok()) break;
    const Status w = co_await conn->write(Bytes(buf.data(), *n));
    if (!w.ok()) break;
  }
  conn->close();
}

// Accepts connections until the listener fails, echoing each on its own task.
Task<void> echo_server(Runtime* node, std::unique_ptr<Listener> listener) {
  for (;;) {
    auto conn = co_await listener->accept();
    if (!conn.ok()) co_return;
    node->spawn(echo_connection(std::move(*conn)), "echo-connection");
  }
}

// Starts an echo server on `node`; returns its address (or the listen error).
Result<Endpoint> start_echo_server(RuntimeHarness& h, Runtime& node) {
  auto listener = node.network().listen(h.listen_address(node));
  if (!listener.ok()) return std::move(listener).error();
  const Endpoint at = (*listener)->local();
  node.spawn(echo_server(&node, std::move(*listener)), "echo-server");
  return at;
}

Task<void> accept_one(Listener* listener, std::optional<Result<std::unique_ptr<Connection>>>* out, bool* done) {
  out->emplace(co_await listener->accept());
  *done = true;
}

// ---- echo: many messages of varying sizes, every byte and the order checked --------------------

constexpr std::size_t kMessages = 2000;
std::size_t message_size(std::size_t i) { return i % 97 == 0 ? 64 * 1024 + i : 1 + (i * 7919) % 3000; }
std::uint8_t message_byte(std::size_t i, std::size_t j) {
  return static_cast<std::uint8_t>(i * 131 + j * 7 + (j >> 8));
}

Task<void> write_messages(Connection* conn, Checks* checks, bool* done) {
  std::vector<std::uint8_t> msg;
  for (std::size_t i = 0; i < kMessages; ++i) {
    msg.resize(message_size(i));
    for (std::size_t j = 0; j < msg.size(); ++j) msg[j] = message_byte(i, j);
    const Status s = co_await conn->write(Bytes(msg));
    if (!s.ok()) {
      TASK_FAIL(checks, "write of message " + std::to_string(i) + " failed: " + s.error().to_string());
      break;
    }
  }
  *done = true;
}

struct EchoStats {
  std::size_t messages = 0;
  std::size_t bytes = 0;
};

Task<void> echo_client(Runtime* rt, Endpoint server, Checks* checks, EchoStats* stats) {
  auto conn = co_await rt->network().connect(server, 5s);
  TASK_CHECK_OK(checks, conn);
  if (!conn.ok()) co_return;
  Connection& c = **conn;
  TASK_CHECK(checks, c.is_open());
  TASK_CHECK(checks, c.peer() == server);
  bool writer_done = false;
  rt->spawn(write_messages(&c, checks, &writer_done), "writer");

  std::vector<std::uint8_t> buf(8192);
  std::size_t msg = 0, off = 0;
  bool ok = true;
  while (ok && msg < kMessages) {
    auto n = co_await c.read_some(buf);
    if (!n.ok()) {
      TASK_FAIL(checks, "read after " + std::to_string(stats->bytes) + " bytes failed: " + n.error().to_string());
      break;
    }
    TASK_CHECK(checks, *n > 0);
    for (std::size_t k = 0; k < *n && ok; ++k) {
      if (buf[k] != message_byte(msg, off)) {
        TASK_FAIL(checks, "byte " + std::to_string(off) + " of message " + std::to_string(msg) + " differs");
        ok = false;
      }
      if (++off == message_size(msg)) {
        ++msg;
        off = 0;
      }
    }
    stats->bytes += *n;
  }
  stats->messages = msg;
  if (msg != kMessages) c.close();  // unblocks a writer stuck on a full buffer
  co_await wait_for(rt, &writer_done, 10s);
  c.close();
}

TEST_P(RuntimeConformance, TcpEchoRoundTripKeepsEveryByteInOrder) {
  auto server = start_echo_server(harness(), peer());
  ASSERT_TRUE(server.ok()) << server.error().to_string();
  Checks checks;
  EchoStats stats;
  ASSERT_TRUE(run(echo_client(&rt(), *server, &checks, &stats), 60s));
  EXPECT_THAT(checks.failures(), ::testing::IsEmpty());
  EXPECT_EQ(stats.messages, kMessages);
  std::size_t total = 0;
  for (std::size_t i = 0; i < kMessages; ++i) total += message_size(i);
  EXPECT_EQ(stats.bytes, total);
}

// ---- gather write -----------------------------------------------------------------------------

Task<void> gather_case(Runtime* rt, Endpoint server, Checks* checks, std::string* echoed, std::string* sent) {
  auto conn = co_await rt->network().connect(server, 5s);
  TASK_CHECK_OK(checks, conn);
  if (!conn.ok()) co_return;
  // A few parts including an empty one, then more parts than one system call takes.
  std::vector<std::string> parts = {"hello", "", ", ", "gather", " world|"};
  for (int i = 0; i < 150; ++i) parts.push_back(std::to_string(i) + ",");
  std::vector<Bytes> bufs;
  for (const std::string& p : parts) {
    bufs.emplace_back(reinterpret_cast<const std::uint8_t*>(p.data()), p.size());
    *sent += p;
  }
  const Status w = co_await (*conn)->write(std::span<const Bytes>(bufs));
  TASK_CHECK_OK(checks, w);
  std::array<std::uint8_t, 256> buf{};
  while (echoed->size() < sent->size()) {
    auto n = co_await (*conn)->read_some(buf);
    if (!n.ok()) {
      TASK_FAIL(checks, "read failed: " + n.error().to_string());
      break;
    }
    echoed->append(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(*n));
  }
}

TEST_P(RuntimeConformance, GatherWriteSendsAllBuffersInOrder) {
  auto server = start_echo_server(harness(), peer());
  ASSERT_TRUE(server.ok()) << server.error().to_string();
  Checks checks;
  std::string echoed, sent;
  ASSERT_TRUE(run(gather_case(&rt(), *server, &checks, &echoed, &sent)));
  EXPECT_THAT(checks.failures(), ::testing::IsEmpty());
  EXPECT_EQ(echoed, sent);
}

// ---- failures as values -------------------------------------------------------------------------

Task<void> refused_case(RuntimeHarness* h, Runtime* rt, Checks* checks) {
  // A port that was just free: listen, note it, close.
  auto listener = rt->network().listen(h->listen_address(*rt));
  TASK_CHECK_OK(checks, listener);
  if (!listener.ok()) co_return;
  const Endpoint dead = (*listener)->local();
  (*listener)->close();
  listener = Error(Errc::closed, "dropped");
  auto conn = co_await rt->network().connect(dead, 5s);
  TASK_CHECK_ERRC(checks, conn, Errc::refused);
}

TEST_P(RuntimeConformance, ConnectWhereNobodyListensIsRefused) {
  Checks checks;
  ASSERT_TRUE(run(refused_case(&harness(), &rt(), &checks)));
  EXPECT_THAT(checks.failures(), ::testing::IsEmpty());
}

Task<void> listen_twice_case(RuntimeHarness* h, Runtime* rt, Checks* checks) {
  auto first = rt->network().listen(h->listen_address(*rt));
  TASK_CHECK_OK(checks, first);
  if (!first.ok()) co_return;
  const Endpoint taken = (*first)->local();
  TASK_CHECK(checks, taken.port != 0);
  auto second = rt->network().listen(taken);
  TASK_CHECK_ERRC(checks, second, Errc::address_in_use);
  co_return;
}

TEST_P(RuntimeConformance, ListeningTwiceOnOnePortIsAddressInUse) {
  Checks checks;
  ASSERT_TRUE(run(listen_twice_case(&harness(), &rt(), &checks)));
  EXPECT_THAT(checks.failures(), ::testing::IsEmpty());
}

Task<void> pending_read(Connection* conn, std::optional<Result<std::size_t>>* out, bool* done) {
  std::array<std::uint8_t, 16> buf{};
  out->emplace(co_await conn->read_some(buf));
  *done = true;
}

// Accepts one connection and reads it until it ends, as a server does (a TLS server's handshake
// runs on its first read or write: runtime/asio/detecting_connection.h).
Task<void> accept_and_read(Listener* listener, std::optional<Result<std::unique_ptr<Connection>>>* out, bool* done,
                           bool* read_ended) {
  out->emplace(co_await listener->accept());
  *done = true;
  if (out->value().ok()) {
    Connection* conn = out->value()->get();
    std::array<std::uint8_t, 16> buf{};
    while ((co_await conn->read_some(buf)).ok()) {
    }
  }
  *read_ended = true;
}

Task<void> close_while_reading_case(RuntimeHarness* h, Runtime* rt, Checks* checks) {
  auto listener = h->peer().network().listen(h->listen_address(h->peer()));
  TASK_CHECK_OK(checks, listener);
  if (!listener.ok()) co_return;
  std::optional<Result<std::unique_ptr<Connection>>> accepted;
  bool accept_done = false;
  bool server_read_ended = false;
  h->peer().spawn(accept_and_read(listener->get(), &accepted, &accept_done, &server_read_ended), "accept");
  auto conn = co_await rt->network().connect((*listener)->local(), 5s);
  TASK_CHECK_OK(checks, conn);
  if (!conn.ok()) co_return;
  TASK_CHECK(checks, co_await wait_for(rt, &accept_done, 5s));

  std::optional<Result<std::size_t>> read;
  bool read_done = false;
  rt->spawn(pending_read(conn->get(), &read, &read_done), "pending-read");
  co_await rt->sleep(20ms);
  TASK_CHECK(checks, !read_done);  // nothing was sent: the read waits
  (*conn)->close();
  TASK_CHECK(checks, !read_done);  // close() completes the read through the executor, not inline
  TASK_CHECK(checks, !(*conn)->is_open());
  TASK_CHECK(checks, co_await wait_for(rt, &read_done, 5s));
  if (read) TASK_CHECK_ERRC(checks, *read, Errc::closed);
  std::array<std::uint8_t, 4> buf{};
  TASK_CHECK_ERRC(checks, co_await (*conn)->read_some(buf), Errc::closed);
  const std::uint8_t byte = 1;
  TASK_CHECK_ERRC(checks, co_await (*conn)->write(Bytes(&byte, 1)), Errc::closed);
  (*conn)->close();  // idempotent
  TASK_CHECK(checks, co_await wait_for(rt, &server_read_ended, 5s));  // the server saw the close
}

TEST_P(RuntimeConformance, CloseWhileAReadIsPendingCompletesItWithClosed) {
  Checks checks;
  ASSERT_TRUE(run(close_while_reading_case(&harness(), &rt(), &checks)));
  EXPECT_THAT(checks.failures(), ::testing::IsEmpty());
}

constexpr std::size_t kFarewellBytes = 100'000;

Task<void> write_then_close(Listener* listener, Checks* checks) {
  auto conn = co_await listener->accept();
  TASK_CHECK_OK(checks, conn);
  if (!conn.ok()) co_return;
  std::vector<std::uint8_t> data(kFarewellBytes);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i % 251);
  // In uneven pieces, then close right away.
  std::size_t off = 0;
  for (std::size_t piece = 1; off < data.size(); piece = piece * 3 + 1) {
    const std::size_t n = std::min(piece, data.size() - off);
    TASK_CHECK_OK(checks, co_await (*conn)->write(Bytes(data.data() + off, n)));
    off += n;
  }
  (*conn)->close();
}

Task<void> peer_close_case(RuntimeHarness* h, Runtime* rt, Checks* checks, std::size_t* received) {
  auto listener = h->peer().network().listen(h->listen_address(h->peer()));
  TASK_CHECK_OK(checks, listener);
  if (!listener.ok()) co_return;
  h->peer().spawn(write_then_close(listener->get(), checks), "write-then-close");
  auto conn = co_await rt->network().connect((*listener)->local(), 5s);
  TASK_CHECK_OK(checks, conn);
  if (!conn.ok()) co_return;
  std::array<std::uint8_t, 4096> buf{};
  for (;;) {
    auto n = co_await (*conn)->read_some(buf);
    if (!n.ok()) {
      TASK_CHECK_ERRC(checks, n, Errc::eof);
      break;
    }
    for (std::size_t k = 0; k < *n; ++k) {
      if (buf[k] != static_cast<std::uint8_t>((*received + k) % 251)) {
        TASK_FAIL(checks, "byte " + std::to_string(*received + k) + " differs");
        co_return;
      }
    }
    *received += *n;
  }
}

TEST_P(RuntimeConformance, PeerCloseGivesEofAfterAllData) {
  Checks checks;
  std::size_t received = 0;
  ASSERT_TRUE(run(peer_close_case(&harness(), &rt(), &checks, &received)));
  EXPECT_THAT(checks.failures(), ::testing::IsEmpty());
  EXPECT_EQ(received, kFarewellBytes);
}

Task<void> close_listener_case(RuntimeHarness* h, Runtime* rt, Checks* checks) {
  auto listener = rt->network().listen(h->listen_address(*rt));
  TASK_CHECK_OK(checks, listener);
  if (!listener.ok()) co_return;
  std::optional<Result<std::unique_ptr<Connection>>> accepted;
  bool done = false;
  rt->spawn(accept_one(listener->get(), &accepted, &done), "accept");
  co_await rt->sleep(10ms);
  TASK_CHECK(checks, !done);
  (*listener)->close();
  TASK_CHECK(checks, co_await wait_for(rt, &done, 5s));
  if (accepted) TASK_CHECK_ERRC(checks, *accepted, Errc::closed);
  TASK_CHECK_ERRC(checks, co_await (*listener)->accept(), Errc::closed);
}

TEST_P(RuntimeConformance, ClosingAListenerEndsAPendingAcceptWithClosed) {
  Checks checks;
  ASSERT_TRUE(run(close_listener_case(&harness(), &rt(), &checks)));
  EXPECT_THAT(checks.failures(), ::testing::IsEmpty());
}

}  // namespace
}  // namespace ferry::testing
