// The Asio runtime's TLS connections on loopback, without the daemons: a server runtime (its own
// thread) echoing what it reads, in each tls.server.mode, and client runtimes with TLS on or off.
// Certificates: a self-signed one made with the openssl command in the test's temp directory.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <fstream>
#include <sstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "runtime/asio/asio_runtime.h"
#include "tests/support/temp_dir.h"

namespace ferry {
namespace {

using namespace std::chrono_literals;
using testing::TempDir;

// What the server saw: how each connection ended (appended on the server's loop thread, read by
// the test after that thread has been joined).
struct ServerLog {
  std::vector<Error> endings;
};

Task<void> echo(std::unique_ptr<Connection> conn, ServerLog* log) {
  std::vector<std::uint8_t> buf(4096);
  for (;;) {
    Result<std::size_t> n = co_await conn->read_some(MutableBytes(buf));
    if (!n) {
      log->endings.push_back(std::move(n).error());
      co_return;
    }
    Status written = co_await conn->write(Bytes(buf.data(), *n));
    if (!written) {
      log->endings.push_back(std::move(written).error());
      co_return;
    }
  }
}

Task<void> accept_loop(Listener* listener, Runtime* rt, ServerLog* log) {
  for (;;) {
    Result<std::unique_ptr<Connection>> conn = co_await listener->accept();
    if (!conn) co_return;
    rt->spawn(echo(std::move(*conn), log), "echo");
  }
}

// An echo server on 127.0.0.1, its loop on its own thread until destruction.
class EchoServer {
 public:
  // `watch`: the server looks at its certificate files that often (AsioRuntime::watch_tls).
  EchoServer(const TempDir& dir, TlsOptions tls, std::optional<Duration> watch = std::nullopt) {
    AsioRuntime::Options o;
    o.node_name = "echo-server";
    o.data_root = dir / "server";
    o.offload_threads = 1;
    o.tls = std::move(tls);
    rt_ = std::make_unique<AsioRuntime>(o);
    auto l = rt_->network().listen(Endpoint{"127.0.0.1", 0});
    EXPECT_TRUE(l.ok()) << l.error().to_string();
    listener_ = std::move(*l);
    rt_->spawn(accept_loop(listener_.get(), rt_.get(), &log_), "accept");
    if (watch) rt_->watch_tls(*watch);
    thread_ = std::thread([this] { rt_->run(); });
  }
  ~EchoServer() { stop(); }
  // Stops the loop; afterwards log() may be read.
  void stop() {
    if (!thread_.joinable()) return;
    rt_->stop();
    thread_.join();
  }
  Endpoint address() const { return listener_->local(); }
  const ServerLog& log() const { return log_; }

 private:
  std::unique_ptr<AsioRuntime> rt_;
  std::unique_ptr<Listener> listener_;
  ServerLog log_;
  std::thread thread_;
};

std::vector<std::uint8_t> pattern(std::size_t size) {
  std::vector<std::uint8_t> data(size);
  for (std::size_t i = 0; i < size; ++i) data[i] = static_cast<std::uint8_t>(i * 7 + i / 251);
  return data;
}

Task<void> write_all(std::shared_ptr<Connection> conn, std::vector<std::uint8_t> data, std::shared_ptr<Status> out) {
  // A gather write of two halves.
  const std::size_t half = data.size() / 2;
  const Bytes parts[] = {Bytes(data.data(), half), Bytes(data.data() + half, data.size() - half)};
  *out = co_await conn->write(std::span<const Bytes>(parts));
}

struct EchoOutcome {
  std::optional<Error> error;     // connect or read failure
  std::vector<std::uint8_t> got;  // what came back
  Status write = Status();
};

// Connects, writes `size` patterned bytes while reading the echo back, then closes.
Task<EchoOutcome> echo_round_trip(Runtime* rt, Endpoint server, std::size_t size) {
  EchoOutcome out;
  Result<std::unique_ptr<Connection>> c = co_await rt->network().connect(server, 10s);
  if (!c) {
    out.error = std::move(c).error();
    co_return out;
  }
  std::shared_ptr<Connection> conn = std::move(*c);
  std::vector<std::uint8_t> data = pattern(size);
  auto written = std::make_shared<Status>();
  rt->spawn(write_all(conn, data, written), "writer");
  out.got.resize(size);
  std::size_t have = 0;
  while (have < size) {
    Result<std::size_t> n = co_await conn->read_some(MutableBytes(out.got.data() + have, size - have));
    if (!n) {
      out.error = std::move(n).error();
      out.got.resize(have);
      break;
    }
    have += *n;
  }
  out.write = *written;
  conn->close();
  co_return out;
}

class TlsConnectionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string script = "cd '" + dir_.path() +
                               "' && timeout 60 openssl req -x509 -newkey rsa:2048 -nodes -keyout key.pem -out cert.pem "
                               "-days 2 -subj /CN=127.0.0.1 > openssl.out 2>&1";
    const int status = std::system(script.c_str());
    std::ifstream out(dir_ / "openssl.out");
    std::stringstream text;
    text << out.rdbuf();
    ASSERT_EQ(status, 0) << text.str();
  }

  TlsOptions server(TlsServerMode mode) const {
    TlsOptions t;
    t.server.mode = mode;
    if (mode != TlsServerMode::disabled) {
      t.server.cert_path = dir_ / "cert.pem";
      t.server.key_path = dir_ / "key.pem";
    }
    return t;
  }
  TlsOptions client(bool tls) const {
    TlsOptions t;
    t.client.enable = tls;
    t.client.auth_server = tls;
    t.client.trust_cert_path = dir_ / "cert.pem";  // the self-signed certificate is its own CA
    return t;
  }

  EchoOutcome round_trip(const TlsOptions& tls, Endpoint server, std::size_t size) {
    AsioRuntime::Options o;
    o.node_name = "client-" + std::to_string(++clients_);
    o.data_root = dir_ / o.node_name;
    o.offload_threads = 1;
    o.tls = tls;
    AsioRuntime rt(o);
    return rt.block_on(echo_round_trip(&rt, std::move(server), size));
  }

  static bool any_ending(const ServerLog& log, Errc code, const std::string& text) {
    for (const Error& e : log.endings) {
      if (e.code == code && e.detail.find(text) != std::string::npos) return true;
    }
    return false;
  }
  static std::string endings(const ServerLog& log) {
    std::string s;
    for (const Error& e : log.endings) s += e.to_string() + "\n";
    return s;
  }

  TempDir dir_;
  int clients_ = 0;
};

TEST_F(TlsConnectionTest, EnforcingEchoesEveryByteInOrderAndAPeerCloseIsEof) {
  EchoServer s(dir_, server(TlsServerMode::enforcing));
  constexpr std::size_t kSize = 3 * 1024 * 1024 + 17;  // many TLS records, more than the socket buffers
  EchoOutcome r = round_trip(client(true), s.address(), kSize);
  ASSERT_FALSE(r.error) << r.error->to_string();
  EXPECT_TRUE(r.write.ok()) << r.write.error().to_string();
  EXPECT_TRUE(r.got == pattern(kSize));
  s.stop();
  // The client closed without TLS's close_notify (as Ferry and Java do): the server read eof.
  ASSERT_EQ(s.log().endings.size(), 1u) << endings(s.log());
  EXPECT_EQ(s.log().endings[0].code, Errc::eof) << endings(s.log());
}

TEST_F(TlsConnectionTest, EnforcingClosesAPlainClientAndSaysWhy) {
  EchoServer s(dir_, server(TlsServerMode::enforcing));
  EchoOutcome r = round_trip(client(false), s.address(), 64);
  ASSERT_TRUE(r.error.has_value()) << "a plain client got " << r.got.size() << " bytes back from an enforcing server";
  EXPECT_TRUE(r.error->is(Errc::eof) || r.error->is(Errc::reset)) << r.error->to_string();
  s.stop();
  EXPECT_TRUE(any_ending(s.log(), Errc::reset, "plain (non-TLS) connection from 127.0.0.1:")) << endings(s.log());
}

TEST_F(TlsConnectionTest, PermissiveServesPlainAndTlsClients) {
  EchoServer s(dir_, server(TlsServerMode::permissive));
  constexpr std::size_t kSize = 100'000;
  EchoOutcome plain = round_trip(client(false), s.address(), kSize);
  ASSERT_FALSE(plain.error) << plain.error->to_string();
  EXPECT_TRUE(plain.got == pattern(kSize));
  EchoOutcome tls = round_trip(client(true), s.address(), kSize);
  ASSERT_FALSE(tls.error) << tls.error->to_string();
  EXPECT_TRUE(tls.got == pattern(kSize));
  s.stop();
  EXPECT_FALSE(any_ending(s.log(), Errc::reset, "refused")) << endings(s.log());
}

TEST_F(TlsConnectionTest, DisabledClosesATlsClientAndSaysWhy) {
  EchoServer s(dir_, server(TlsServerMode::disabled));
  EchoOutcome r = round_trip(client(true), s.address(), 64);
  ASSERT_TRUE(r.error.has_value());
  EXPECT_NE(r.error->detail.find("TLS handshake with 127.0.0.1:"), std::string::npos) << r.error->to_string();
  EchoOutcome plain = round_trip(client(false), s.address(), 64);
  ASSERT_FALSE(plain.error) << plain.error->to_string();
  EXPECT_TRUE(plain.got == pattern(64));
  s.stop();
  EXPECT_TRUE(any_ending(s.log(), Errc::reset, "refused: tls.server.mode is disabled")) << endings(s.log());
}

TEST_F(TlsConnectionTest, RequiredClientCertificatesAreVerified) {
  TlsOptions need = server(TlsServerMode::enforcing);
  need.server.need_client_auth = TlsClientAuth::require;
  need.server.trust_cert_path = dir_ / "cert.pem";
  EchoServer s(dir_, need);
  // Without a certificate: the server ends the handshake (the client may see that at its first
  // read rather than at connect, as TLS 1.3 finishes the client's side first).
  EchoOutcome bare = round_trip(client(true), s.address(), 64);
  ASSERT_TRUE(bare.error.has_value()) << "a client without a certificate got " << bare.got.size() << " bytes back";
  // With one the server trusts (the self-signed certificate is its own CA): served.
  TlsOptions with_cert = client(true);
  with_cert.client.cert_path = dir_ / "cert.pem";
  with_cert.client.key_path = dir_ / "key.pem";
  EchoOutcome r = round_trip(with_cert, s.address(), 1000);
  ASSERT_FALSE(r.error) << r.error->to_string();
  EXPECT_TRUE(r.got == pattern(1000));
  s.stop();
  EXPECT_TRUE(any_ending(s.log(), Errc::reset, "TLS handshake from 127.0.0.1:")) << endings(s.log());
}

TEST_F(TlsConnectionTest, ACloseWhileAReadWaitsCompletesItWithClosed) {
  EchoServer s(dir_, server(TlsServerMode::enforcing));
  AsioRuntime::Options o;
  o.node_name = "closer";
  o.data_root = dir_ / "closer";
  o.offload_threads = 1;
  o.tls = client(true);
  AsioRuntime rt(o);
  struct Seen {
    std::optional<Error> error;
  };
  auto seen = std::make_shared<Seen>();
  struct Steps {
    static Task<void> close_soon(std::shared_ptr<Connection> c, Runtime* rt) {
      co_await rt->timers().sleep(10ms);  // the read below is waiting by then (the server sends nothing)
      c->close();
    }
    static Task<Status> run(Runtime* rt, Endpoint at, std::shared_ptr<Seen> seen) {
      Result<std::unique_ptr<Connection>> c = co_await rt->network().connect(at, 10s);
      if (!c) co_return std::move(c).error();
      std::shared_ptr<Connection> conn = std::move(*c);
      rt->spawn(close_soon(conn, rt), "closer");
      std::uint8_t b[16];
      Result<std::size_t> n = co_await conn->read_some(MutableBytes(b, sizeof b));
      if (!n) seen->error = std::move(n).error();
      co_return Status();
    }
  };
  Status st = rt.block_on(Steps::run(&rt, s.address(), seen));
  ASSERT_TRUE(st.ok()) << st.error().to_string();
  ASSERT_TRUE(seen->error.has_value()) << "the read returned bytes the server never sent";
  EXPECT_EQ(seen->error->code, Errc::closed) << seen->error->to_string();
}

// Connections that never finish a handshake: one silent, one that sends the first bytes of a TLS
// record and stops. Each is closed by tls.server.handshakeTimeoutMillis (a server with
// serverChannelMaxIdleTimeSeconds=0 would otherwise keep them for good), and while
// tls.server.handshakesMax of them are open a new connection is closed at once; once they are
// gone a TLS client is served again.
struct Stalled {
  std::vector<std::shared_ptr<Connection>> conns;
  std::optional<Error> error;
};

Task<void> open_stalled(Runtime* rt, Endpoint server, Stalled* out) {
  const std::vector<std::vector<std::uint8_t>> firsts = {{}, {0x16, 0x03, 0x01, 0x02}};
  for (const std::vector<std::uint8_t>& first : firsts) {
    Result<std::unique_ptr<Connection>> c = co_await rt->network().connect(server, 10s);
    if (!c) {
      out->error = std::move(c).error();
      co_return;
    }
    std::shared_ptr<Connection> conn = std::move(*c);
    if (!first.empty()) {
      Status wrote = co_await conn->write(Bytes(first.data(), first.size()));
      if (!wrote) out->error = wrote.error();
    }
    out->conns.push_back(std::move(conn));
  }
}

// Reads each connection until the server ends it; the errors, in order.
Task<std::vector<Error>> read_to_end(std::vector<std::shared_ptr<Connection>> conns) {
  std::vector<Error> ends;
  for (const std::shared_ptr<Connection>& c : conns) {
    std::uint8_t b[64];
    for (;;) {
      Result<std::size_t> n = co_await c->read_some(MutableBytes(b, sizeof b));
      if (!n) {
        ends.push_back(std::move(n).error());
        break;
      }
    }
  }
  co_return ends;
}

TEST_F(TlsConnectionTest, StalledHandshakesAreTimedOutAndBounded) {
  TlsOptions o = server(TlsServerMode::enforcing);
  o.server.handshake_timeout = 2s;
  o.server.handshakes_max = 2;
  EchoServer s(dir_, o);

  AsioRuntime::Options co;
  co.node_name = "staller";
  co.data_root = dir_ / "staller";
  co.offload_threads = 1;
  co.tls = client(false);  // raw TCP: it never starts a real handshake
  AsioRuntime staller(co);
  Stalled stalled;
  staller.block_on(open_stalled(&staller, s.address(), &stalled));
  ASSERT_FALSE(stalled.error) << stalled.error->to_string();
  ASSERT_EQ(stalled.conns.size(), 2u);
  std::this_thread::sleep_for(300ms);  // the server has accepted both by now

  // The gate is full: a good TLS client is closed before its handshake.
  EchoOutcome refused = round_trip(client(true), s.address(), 64);
  EXPECT_TRUE(refused.error.has_value()) << "a third handshake was served while two were stalled";

  // The stalled two are closed by the server once their timeout passes.
  std::vector<Error> ends = staller.block_on(read_to_end(stalled.conns));
  ASSERT_EQ(ends.size(), 2u);
  for (const Error& e : ends) EXPECT_TRUE(e.is(Errc::eof) || e.is(Errc::reset)) << e.to_string();

  // Their places are free again.
  EchoOutcome served = round_trip(client(true), s.address(), 1000);
  ASSERT_FALSE(served.error) << served.error->to_string();
  EXPECT_TRUE(served.got == pattern(1000));
  s.stop();
  EXPECT_TRUE(any_ending(s.log(), Errc::busy, "connections are in their TLS handshake on")) << endings(s.log());
  EXPECT_TRUE(any_ending(s.log(), Errc::busy, "(tls.server.handshakesMax)")) << endings(s.log());
  int timed_out = 0;
  for (const Error& e : s.log().endings) {
    if (e.is(Errc::timed_out) && e.detail.find("not done 2000 ms after accept") != std::string::npos) ++timed_out;
  }
  EXPECT_EQ(timed_out, 2) << endings(s.log());
}

// tls.client.verifyHostname: a certificate the client trusts but made for another address is
// refused with the check on, served without it; one that names the address dialled is served.
TEST_F(TlsConnectionTest, VerifyHostnameChecksTheAddressTheCertificateNames) {
  auto make_cert = [this](const std::string& name, const std::string& san) {
    const std::string script = "cd '" + dir_.path() + "' && timeout 60 openssl req -x509 -newkey rsa:2048 -nodes -keyout " +
                               name + ".key -out " + name + ".pem -days 2 -subj /CN=ferry-test -addext subjectAltName=" +
                               san + " > " + name + ".out 2>&1";
    ASSERT_EQ(std::system(script.c_str()), 0) << "openssl for " << name;
  };
  make_cert("other", "IP:10.9.9.9");
  make_cert("loopback", "IP:127.0.0.1");
  if (HasFatalFailure()) return;
  auto serving = [this](const std::string& name) {
    TlsOptions t;
    t.server.mode = TlsServerMode::enforcing;
    t.server.cert_path = dir_ / (name + ".pem");
    t.server.key_path = dir_ / (name + ".key");
    return t;
  };
  auto trusting = [this](const std::string& name, bool verify_hostname) {
    TlsOptions t;
    t.client.enable = true;
    t.client.auth_server = true;
    t.client.trust_cert_path = dir_ / (name + ".pem");
    t.client.verify_hostname = verify_hostname;
    return t;
  };
  {
    EchoServer s(dir_, serving("other"));
    EchoOutcome checked = round_trip(trusting("other", true), s.address(), 64);
    ASSERT_TRUE(checked.error.has_value()) << "a certificate for 10.9.9.9 was accepted for 127.0.0.1";
    EXPECT_NE(checked.error->detail.find("certificate verify failed"), std::string::npos) << checked.error->to_string();
    EchoOutcome unchecked = round_trip(trusting("other", false), s.address(), 64);
    ASSERT_FALSE(unchecked.error) << unchecked.error->to_string();
  }
  EchoServer s(dir_, serving("loopback"));
  EchoOutcome named = round_trip(trusting("loopback", true), s.address(), 64);
  ASSERT_FALSE(named.error) << named.error->to_string();
  EXPECT_TRUE(named.got == pattern(64));

  TlsOptions without_chain = trusting("loopback", true);
  without_chain.client.auth_server = false;
  Status refused = check_tls_options(without_chain);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().detail.find("tls.client.verifyHostname: needs tls.client.authServer=true"), std::string::npos)
      << refused.error().to_string();
}

// Certificates replaced on disk under a running server (watch_tls, as the daemons do every 5 s):
// new connections get the new certificate, a connection made before goes on, and files that do
// not load (a key that does not match) leave the old certificate in place.
Task<Status> echo_once(std::shared_ptr<Connection> conn, std::size_t size) {
  std::vector<std::uint8_t> data = pattern(size);
  Status wrote = co_await conn->write(Bytes(data.data(), data.size()));
  if (!wrote) co_return wrote;
  std::vector<std::uint8_t> got(size);
  std::size_t have = 0;
  while (have < size) {
    Result<std::size_t> n = co_await conn->read_some(MutableBytes(got.data() + have, size - have));
    if (!n) co_return std::move(n).error();
    have += *n;
  }
  if (got != data) co_return Error(Errc::corrupt, "the echo differs");
  co_return Status();
}

TEST_F(TlsConnectionTest, ReplacedCertificatesAreTakenWithoutDroppingConnections) {
  auto make_cert = [this](const std::string& name) {
    const std::string script = "cd '" + dir_.path() + "' && timeout 60 openssl req -x509 -newkey rsa:2048 -nodes -keyout " +
                               name + ".key -out " + name + ".pem -days 2 -subj /CN=" + name + " > " + name + ".out 2>&1";
    ASSERT_EQ(std::system(script.c_str()), 0) << "openssl for " << name;
  };
  make_cert("first");
  make_cert("second");
  if (HasFatalFailure()) return;
  auto copy = [this](const std::string& from, const std::string& to) {
    std::filesystem::copy_file(dir_ / from, dir_ / to, std::filesystem::copy_options::overwrite_existing);
  };
  copy("first.pem", "live.pem");
  copy("first.key", "live.key");
  TlsOptions o;
  o.server.mode = TlsServerMode::enforcing;
  o.server.cert_path = dir_ / "live.pem";
  o.server.key_path = dir_ / "live.key";
  EchoServer s(dir_, o, 100ms);
  auto trusting = [this](const std::string& name) {
    TlsOptions t;
    t.client.enable = true;
    t.client.auth_server = true;
    t.client.trust_cert_path = dir_ / (name + ".pem");
    return t;
  };
  ASSERT_FALSE(round_trip(trusting("first"), s.address(), 64).error);

  // A connection open across the change.
  AsioRuntime::Options co;
  co.node_name = "long-lived";
  co.data_root = dir_ / "long-lived";
  co.offload_threads = 1;
  co.tls = trusting("first");
  AsioRuntime client(co);
  struct Open {
    static Task<Result<std::shared_ptr<Connection>>> run(Runtime* rt, Endpoint at) {
      Result<std::unique_ptr<Connection>> c = co_await rt->network().connect(at, 10s);
      if (!c) co_return std::move(c).error();
      co_return std::shared_ptr<Connection>(std::move(*c));
    }
  };
  Result<std::shared_ptr<Connection>> open = client.block_on(Open::run(&client, s.address()));
  ASSERT_TRUE(open.ok()) << open.error().to_string();
  Status before = client.block_on(echo_once(*open, 1000));
  ASSERT_TRUE(before.ok()) << before.error().to_string();

  // A half-done rotation (the new certificate with the old key) does not load: the old stays.
  copy("second.pem", "live.pem");
  std::this_thread::sleep_for(500ms);
  EXPECT_FALSE(round_trip(trusting("first"), s.address(), 64).error) << "the old certificate was dropped";
  // The rotation completed: the new one is served to new connections.
  copy("second.key", "live.key");
  std::optional<Error> last;
  for (int i = 0; i < 50; ++i) {
    std::this_thread::sleep_for(100ms);
    last = round_trip(trusting("second"), s.address(), 64).error;
    if (!last) break;
  }
  ASSERT_FALSE(last) << "the new certificate was never served: " << last->to_string();
  EchoOutcome old_trust = round_trip(trusting("first"), s.address(), 64);
  ASSERT_TRUE(old_trust.error.has_value()) << "a client trusting only the old certificate still got in";
  EXPECT_NE(old_trust.error->detail.find("certificate verify failed"), std::string::npos) << old_trust.error->to_string();

  // The connection made before the change was not dropped.
  Status after = client.block_on(echo_once(*open, 1000));
  EXPECT_TRUE(after.ok()) << after.error().to_string();
  (*open)->close();
}

}  // namespace
}  // namespace ferry
