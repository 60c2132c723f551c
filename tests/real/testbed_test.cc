// The real runner's testbed (sim/real/testbed.h) and hosts (client_host.h, daemon_process.h) do
// what the simulator's network and crashes do, on Linux: hosts that reach each other by address,
// links that drop packets silently when cut (a connect times out, it is not refused), a host that
// goes dark both ways, and nothing left behind. Root only: the test says so and skips otherwise.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "sim/real/daemon_process.h"
#include "sim/real/delay_relay.h"
#include "sim/real/host_command.h"
#include "sim/real/testbed.h"

namespace ferry::sim::real {
namespace {

using namespace std::chrono_literals;

#define SKIP_UNLESS_ROOT()                                                                 \
  if (geteuid() != 0) GTEST_SKIP() << "needs root (network namespaces, nftables)"; \
  static_assert(true)

// A listener on port 7000 of `host`, made inside its namespace (a thread that entered it).
int listen_in(const Testbed& t, const std::string& host) {
  int fd = -1;
  std::thread([&] {
    if (setns(t.netns_fd(host), CLONE_NEWNET) != 0) return;
    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(7000);
    a.sin_addr.s_addr = htonl(INADDR_ANY);
    if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || listen(fd, 16) != 0) {
      close(fd);
      fd = -1;
    }
  }).join();
  return fd;
}

enum class Reach { connected, refused, timed_out, error };

const char* reach_name(Reach r) {
  switch (r) {
    case Reach::connected: return "connected";
    case Reach::refused: return "refused";
    case Reach::timed_out: return "timed out";
    case Reach::error: return "error";
  }
  return "?";
}

// A connect from `from` to `to`:7000 within `limit`.
Reach reach(const Testbed& t, const std::string& from, const std::string& to, std::chrono::milliseconds limit = 1500ms) {
  Reach out = Reach::error;
  std::thread([&] {
    if (setns(t.netns_fd(from), CLONE_NEWNET) != 0) return;
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(7000);
    inet_pton(AF_INET, t.ip(to).c_str(), &a.sin_addr);
    int r = connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
    if (r != 0 && errno == EINPROGRESS) {
      pollfd p{fd, POLLOUT, 0};
      if (poll(&p, 1, static_cast<int>(limit.count())) == 0) {
        out = Reach::timed_out;
        close(fd);
        return;
      }
      int err = 0;
      socklen_t len = sizeof err;
      getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
      r = err == 0 ? 0 : -1;
      errno = err;
    }
    out = r == 0 ? Reach::connected : errno == ECONNREFUSED ? Reach::refused : Reach::error;
    close(fd);
  }).join();
  return out;
}

TEST(TestbedTest, HostsReachEachOtherAndCutLinksDropPacketsSilently) {
  SKIP_UNLESS_ROOT();
  auto made = Testbed::create({"alpha", "beta", "gamma"});
  ASSERT_TRUE(made.ok()) << made.error().to_string();
  Testbed& t = **made;
  EXPECT_EQ(t.ip("alpha"), "10.77.0.10");
  EXPECT_EQ(t.ip("gamma"), "10.77.0.12");
  const int beta = listen_in(t, "beta");
  ASSERT_GE(beta, 0);
  EXPECT_EQ(reach(t, "alpha", "beta"), Reach::connected);
  // Nobody listens on gamma: refused at once, as on a real network.
  EXPECT_EQ(reach(t, "alpha", "gamma"), Reach::refused);

  // One way: alpha's packets to beta vanish; gamma still gets through.
  ASSERT_TRUE(t.cut("alpha", "beta").ok());
  EXPECT_EQ(reach(t, "alpha", "beta"), Reach::timed_out);
  EXPECT_EQ(reach(t, "gamma", "beta"), Reach::connected);
  EXPECT_EQ(t.describe_cuts(), std::vector<std::string>{"alpha->beta"});
  ASSERT_TRUE(t.uncut("alpha", "beta").ok());
  EXPECT_EQ(reach(t, "alpha", "beta"), Reach::connected);

  // Cut the other way only: alpha's SYN arrives but beta's answer does not.
  ASSERT_TRUE(t.cut("beta", "alpha").ok());
  EXPECT_EQ(reach(t, "alpha", "beta"), Reach::timed_out);
  ASSERT_TRUE(t.heal_all().ok());
  EXPECT_EQ(reach(t, "alpha", "beta"), Reach::connected);

  // A dark host: nothing in, nothing out; its own loopback still works.
  ASSERT_TRUE(t.darken("beta").ok());
  EXPECT_EQ(reach(t, "alpha", "beta"), Reach::timed_out) << reach_name(reach(t, "alpha", "beta"));
  EXPECT_EQ(reach(t, "gamma", "beta"), Reach::timed_out);
  ASSERT_TRUE(t.undarken("beta").ok());
  EXPECT_EQ(reach(t, "gamma", "beta"), Reach::connected);
  close(beta);

  EXPECT_EQ(Testbed::namespaces_of(static_cast<long>(getpid())).size(), 4u);  // three hosts and the hub
  ASSERT_TRUE(t.remove().ok());
  EXPECT_TRUE(Testbed::namespaces_of(static_cast<long>(getpid())).empty());
}

TEST(TestbedTest, TheDestructorRemovesEverythingAndSweepRemovesWhatADeadRunLeft) {
  SKIP_UNLESS_ROOT();
  {
    auto made = Testbed::create({"one"});
    ASSERT_TRUE(made.ok()) << made.error().to_string();
  }
  EXPECT_TRUE(Testbed::namespaces_of(static_cast<long>(getpid())).empty());
  // A run that died: its pid is gone (pid_max is at most 4194304, so this one never lived).
  const std::string ip = find_program("ip");
  ASSERT_FALSE(ip.empty());
  ASSERT_TRUE(run_host_command({ip, "netns", "add", "ferry4999999-leftover"}).ok());
  ASSERT_EQ(Testbed::namespaces_of(4999999).size(), 1u);
  auto swept = Testbed::sweep();
  ASSERT_TRUE(swept.ok()) << swept.error().to_string();
  EXPECT_GE(*swept, 1u);
  EXPECT_TRUE(Testbed::namespaces_of(4999999).empty());
}

TEST(TestbedTest, BadHostNamesAreRefusedBeforeAnythingIsMade) {
  SKIP_UNLESS_ROOT();
  for (const std::vector<std::string>& hosts : {std::vector<std::string>{"a b"}, std::vector<std::string>{"hub"},
                                                std::vector<std::string>{"x", "x"}, std::vector<std::string>{}}) {
    auto made = Testbed::create(hosts);
    EXPECT_FALSE(made.ok());
  }
  EXPECT_TRUE(Testbed::namespaces_of(static_cast<long>(getpid())).empty());
}

// Through alpha's relay: one round trip alpha -> beta -> alpha (beta echoes a byte), timed.
struct RoundTrip {
  bool ok = false;
  std::chrono::milliseconds took{};
  std::string beta_saw;  // the address beta's accepted socket names as its peer
};

RoundTrip round_trip(const Testbed& t, int beta_listener) {
  RoundTrip out;
  std::thread beta([&] {
    const int fd = accept(beta_listener, nullptr, nullptr);
    if (fd < 0) return;
    sockaddr_in peer{};
    socklen_t len = sizeof peer;
    getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &len);
    char ip[INET_ADDRSTRLEN] = {};
    inet_ntop(AF_INET, &peer.sin_addr, ip, sizeof ip);
    out.beta_saw = ip;
    char b = 0;
    if (read(fd, &b, 1) == 1) (void)!write(fd, &b, 1);
    close(fd);
  });
  std::thread([&] {
    if (setns(t.netns_fd("alpha"), CLONE_NEWNET) != 0) return;
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(7000);
    inet_pton(AF_INET, t.ip("beta").c_str(), &a.sin_addr);
    if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
      close(fd);
      return;
    }
    const auto t0 = std::chrono::steady_clock::now();
    char b = 'x';
    out.ok = write(fd, &b, 1) == 1 && read(fd, &b, 1) == 1 && b == 'x';
    out.took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - t0);
    close(fd);
  }).join();
  beta.join();
  return out;
}

// A round trip that may not complete: beta's listener is polled, the client gives up after 2 s.
RoundTrip round_trip_or_timeout(const Testbed& t, int beta_listener) {
  RoundTrip out;
  std::thread([&] {
    if (setns(t.netns_fd("alpha"), CLONE_NEWNET) != 0) return;
    const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    timeval tv{2, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(7000);
    inet_pton(AF_INET, t.ip("beta").c_str(), &a.sin_addr);
    char b = 'x';
    // The relay accepts at once (it is local) and resets the connection when it cannot reach beta.
    out.ok = connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 && write(fd, &b, 1) == 1 && read(fd, &b, 1) == 1;
    close(fd);
  }).join();
  pollfd p{beta_listener, POLLIN, 0};
  EXPECT_EQ(poll(&p, 1, 0), 0) << "beta got a connection across a cut link";
  return out;
}

TEST(DelayRelayTest, AClogDelaysTheBytesOfOneDirectionAndThePeerSeesTheHostsAddress) {
  SKIP_UNLESS_ROOT();
  auto made = Testbed::create({"alpha", "beta"});
  ASSERT_TRUE(made.ok()) << made.error().to_string();
  Testbed& t = **made;
  auto clogs = std::make_shared<Clogs>();
  auto relay = DelayRelay::start(t, "alpha", {"beta"}, clogs);
  ASSERT_TRUE(relay.ok()) << relay.error().to_string();
  const int beta = listen_in(t, "beta");
  ASSERT_GE(beta, 0);

  RoundTrip plain = round_trip(t, beta);
  ASSERT_TRUE(plain.ok);
  EXPECT_EQ(plain.beta_saw, t.ip("alpha")) << "the relay connects from the host's own address";
  EXPECT_EQ((*relay)->connections(), 1u);

  clogs->set("beta", "alpha", 400ms);  // beta's replies are late
  RoundTrip clogged = round_trip(t, beta);
  ASSERT_TRUE(clogged.ok);
  EXPECT_GE(clogged.took, 400ms);
  EXPECT_EQ((*relay)->connections(), 2u);

  clogs->set("beta", "alpha", 0ms);
  clogs->set("alpha", "beta", 300ms);  // now alpha's requests are
  RoundTrip other = round_trip(t, beta);
  ASSERT_TRUE(other.ok);
  EXPECT_GE(other.took, 300ms);
  EXPECT_LT(other.took, 400ms + 300ms) << "only one direction is clogged";

  // A cut link stays cut through the relay: the relay's own connection leaves from alpha.
  clogs->clear();
  ASSERT_TRUE(t.cut("alpha", "beta").ok());
  RoundTrip cut = round_trip_or_timeout(t, beta);
  EXPECT_FALSE(cut.ok);
  (*relay)->stop();
  close(beta);
}

TEST(DaemonProcessTest, RunsInItsNamespaceAndIsKilledPausedAndResumed) {
  SKIP_UNLESS_ROOT();
  auto made = Testbed::create({"host"});
  ASSERT_TRUE(made.ok()) << made.error().to_string();
  const std::string dir = ::testing::TempDir() + "/daemon-process-test";
  std::filesystem::create_directories(dir);
  const std::string log = dir + "/out.log";
  std::filesystem::remove(log);
  // `ip -o addr` inside the namespace shows the host's address, then the process sleeps.
  DaemonProcess p("host", {"/bin/sh", "-c", "ip -o -4 addr show dev eth0; exec sleep 60"}, (*made)->netns_fd("host"), log);
  ASSERT_TRUE(p.start().ok());
  EXPECT_TRUE(p.running());
  EXPECT_FALSE(p.start().ok());  // running already
  std::string text;
  for (int i = 0; i < 100 && text.find("10.77.0.10") == std::string::npos; ++i) {
    std::this_thread::sleep_for(20ms);
    std::ifstream in(log);
    text.assign(std::istreambuf_iterator<char>(in), {});
  }
  EXPECT_NE(text.find("10.77.0.10"), std::string::npos) << text;
  p.pause();
  EXPECT_TRUE(p.paused());
  p.resume();
  EXPECT_FALSE(p.paused());
  p.kill();
  EXPECT_FALSE(p.running());
  EXPECT_EQ(p.last_exit(), "signal 9");
  ASSERT_TRUE(p.start().ok());
  EXPECT_EQ(p.lives(), 2);
  EXPECT_TRUE(p.terminate(5s));  // sleep dies of SIGTERM
  EXPECT_EQ(p.last_exit(), "signal 15");
}

}  // namespace
}  // namespace ferry::sim::real
