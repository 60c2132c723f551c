// remoting_bench: requests per second and latency of Ferry's RPC (an echo processor, 1 KiB
// bodies) over loopback on the Asio runtime, with 1 and 64 calls in flight, printed next to a
// baseline measured in the same run: the same bytes echoed by plain blocking POSIX sockets
// (one thread per side, no framing library, no coroutines).
//
//   remoting_bench [--seconds N] [--body BYTES]
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "remoting/rpc/rpc_client.h"
#include "remoting/rpc/rpc_server.h"
#include "runtime/asio/asio_runtime.h"
#include "runtime/log.h"
#include "cli/latency_histogram.h"

namespace ferry::bench {

using cli::LatencySamples;
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::int32_t kEchoCode = 9999;

struct Result {
  std::string name;
  double rps = 0;
  std::int64_t p50_ns = 0, p99_ns = 0, max_ns = 0;
};

void print(const Result& r, const Result* base) {
  std::printf("%-34s %12.0f req/s   p50 %8.1f us   p99 %8.1f us   max %9.1f us", r.name.c_str(), r.rps,
              r.p50_ns / 1e3, r.p99_ns / 1e3, r.max_ns / 1e3);
  if (base && base->rps > 0) std::printf("   (%.0f%% of baseline)", 100.0 * r.rps / base->rps);
  std::printf("\n");
}

// ---- Ferry RPC --------------------------------------------------------------------------

Task<std::optional<remoting::RemotingCommand>> echo(remoting::RequestContext ctx) {
  remoting::RemotingCommand reply = remoting::make_response(ctx.request, 0);
  reply.body = std::move(ctx.request.body);
  co_return reply;
}

struct Load {
  remoting::RpcClient* client;
  std::string addr;
  std::size_t body_bytes;
  Clock::time_point end;
  LatencySamples* samples;
  std::uint64_t* done;
  std::uint64_t* failed;
};

Task<void> caller(Load load) {
  std::vector<std::uint8_t> body(load.body_bytes, 0x5a);
  while (Clock::now() < load.end) {
    remoting::RemotingCommand req = remoting::make_request(kEchoCode, 0);
    req.body = body;
    const auto t0 = Clock::now();
    auto reply = co_await load.client->invoke(load.addr, std::move(req), std::chrono::seconds(5));
    const auto t1 = Clock::now();
    if (!reply || reply->body.size() != load.body_bytes) {
      ++*load.failed;
      continue;
    }
    load.samples->add(std::chrono::duration_cast<std::chrono::nanoseconds>(t1 - t0).count());
    ++*load.done;
  }
}

Task<void> run_callers(Runtime* rt, Load load, int in_flight) {
  // Spawn in_flight callers and wait for all of them.
  auto remaining = std::make_shared<int>(in_flight);
  struct Finish {
    static Task<void> one(Load l, std::shared_ptr<int> left) {
      co_await caller(l);
      --*left;
    }
  };
  for (int i = 0; i < in_flight; ++i) rt->spawn(Finish::one(load, remaining), "caller");
  while (*remaining > 0) co_await rt->sleep(std::chrono::milliseconds(5));
}

Result bench_ferry(int in_flight, double seconds, std::size_t body_bytes, const std::string& root) {
  AsioRuntime::Options so;
  so.node_name = "bench-server";
  so.data_root = root + "/server";
  AsioRuntime server_rt(so);
  remoting::RpcServer server(server_rt);
  server.register_processor(kEchoCode, [](remoting::RequestContext ctx) { return echo(std::move(ctx)); });
  Status started = server.start(Endpoint{"127.0.0.1", 0});
  if (!started) {
    std::fprintf(stderr, "listen failed: %s\n", started.error().to_string().c_str());
    std::exit(1);
  }
  const std::string addr = server.local().to_string();
  std::thread server_thread([&] { server_rt.run(); });

  AsioRuntime::Options co;
  co.node_name = "bench-client";
  co.data_root = root + "/client";
  AsioRuntime client_rt(co);
  remoting::RpcClient client(client_rt);
  LatencySamples samples;
  samples.reserve(4'000'000);
  std::uint64_t done = 0, failed = 0;
  // Warm-up: connect.
  {
    remoting::RemotingCommand req = remoting::make_request(kEchoCode, 0);
    (void)client_rt.block_on(client.invoke(addr, std::move(req), std::chrono::seconds(5)));
  }
  const auto start = Clock::now();
  Load load{&client, addr, body_bytes, start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds)),
            &samples, &done, &failed};
  client_rt.block_on(run_callers(&client_rt, load, in_flight));
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  client.shutdown();
  server_rt.executor().post([&] { server.stop(); });
  server_rt.stop();
  server_thread.join();
  if (failed) std::fprintf(stderr, "warning: %llu calls failed\n", static_cast<unsigned long long>(failed));
  Result r;
  r.name = "ferry rpc, " + std::to_string(in_flight) + " in flight";
  r.rps = static_cast<double>(done) / elapsed;
  r.p50_ns = samples.percentile(50);
  r.p99_ns = samples.percentile(99);
  r.max_ns = samples.max();
  return r;
}

// ---- baseline: blocking sockets ---------------------------------------------------------

bool write_all(int fd, const std::uint8_t* p, std::size_t n) {
  while (n > 0) {
    ssize_t w = ::send(fd, p, n, MSG_NOSIGNAL);
    if (w <= 0) return false;
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}
bool read_all(int fd, std::uint8_t* p, std::size_t n) {
  while (n > 0) {
    ssize_t r = ::recv(fd, p, n, 0);
    if (r <= 0) return false;
    p += r;
    n -= static_cast<std::size_t>(r);
  }
  return true;
}

Result bench_baseline(int in_flight, double seconds, std::size_t body_bytes) {
  int lfd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  if (::bind(lfd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(lfd, 4) != 0) {
    std::perror("baseline listen");
    std::exit(1);
  }
  socklen_t len = sizeof a;
  ::getsockname(lfd, reinterpret_cast<sockaddr*>(&a), &len);
  // The same bytes as a Ferry frame would carry: 8-byte prefix + ~100-byte header + body.
  const std::size_t msg = body_bytes + 8 + 100;
  std::thread server([&] {
    int fd = ::accept(lfd, nullptr, nullptr);
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    std::vector<std::uint8_t> buf(msg);
    while (read_all(fd, buf.data(), msg) && write_all(fd, buf.data(), msg)) {
    }
    ::close(fd);
  });
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    std::perror("baseline connect");
    std::exit(1);
  }
  std::vector<std::uint8_t> out(msg * static_cast<std::size_t>(in_flight), 0x5a), in(msg * static_cast<std::size_t>(in_flight));
  LatencySamples samples;
  std::uint64_t done = 0;
  const auto start = Clock::now();
  const auto end = start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  // Pipelined rounds of in_flight messages: a round's latency is each message's latency.
  while (Clock::now() < end) {
    const auto t0 = Clock::now();
    if (!write_all(fd, out.data(), out.size()) || !read_all(fd, in.data(), in.size())) break;
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count();
    for (int i = 0; i < in_flight; ++i) samples.add(ns);
    done += static_cast<std::uint64_t>(in_flight);
  }
  const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  ::shutdown(fd, SHUT_RDWR);
  ::close(fd);
  server.join();
  ::close(lfd);
  Result r;
  r.name = "baseline sockets, " + std::to_string(in_flight) + " in flight";
  r.rps = static_cast<double>(done) / elapsed;
  r.p50_ns = samples.percentile(50);
  r.p99_ns = samples.percentile(99);
  r.max_ns = samples.max();
  return r;
}

}  // namespace
}  // namespace ferry::bench

int main(int argc, char** argv) {
  double seconds = 5;
  std::size_t body = 1024;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--seconds" && i + 1 < argc) {
      seconds = std::atof(argv[++i]);
    } else if (a == "--body" && i + 1 < argc) {
      body = static_cast<std::size_t>(std::atol(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: %s [--seconds N] [--body BYTES]\n", argv[0]);
      return a == "--help" ? 0 : 2;
    }
  }
  ferry::set_default_log_level(spdlog::level::warn);
  const std::string root = (std::filesystem::temp_directory_path() / ("ferry-remoting-bench-" + std::to_string(::getpid()))).string();
  std::printf("remoting_bench: echo of %zu-byte bodies over loopback, %.1f s per run, %u cores\n", body, seconds,
              std::thread::hardware_concurrency());
  for (int in_flight : {1, 64}) {
    auto base = ferry::bench::bench_baseline(in_flight, seconds, body);
    auto ferry_r = ferry::bench::bench_ferry(in_flight, seconds, body, root);
    ferry::bench::print(base, nullptr);
    ferry::bench::print(ferry_r, &base);
  }
  std::error_code ec;
  std::filesystem::remove_all(root, ec);
  return 0;
}
