// mqdashboard: a web dashboard of a Ferry (or RocketMQ) cluster — the common screens of
// rocketmq-dashboard (cluster, topics, consumer groups with a lag chart, messages, HA) and the
// JSON API they read (api.h), served over HTTP from one process.
//
//   mqdashboard [-n "ip:port;ip:port"] [--listen HOST:PORT] [--controller "ip:port;..."]
//               [--lag-interval SECONDS] [--tls | --tls-config FILE] [--access-key K --secret-key S]
//               [--users FILE] [--https-cert FILE --https-key FILE]
//
// The cluster side: TLS and ACL keys as mqadmin's. The browser side: --users asks for a login
// (users.h), --https-cert/--https-key serve HTTPS.
//
// Threads: the HTTP server's (daemon/http_server.h) serves the page's files itself and queues
// each API request; the main thread answers them one at a time through an admin session (the
// same client mqadmin uses), and takes a lag sample of every consumer group each interval.
// SIGINT / SIGTERM: stop serving and exit 0. Exit 2: bad usage; 1: the port cannot be opened.
#include <fmt/format.h>
#include <signal.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <thread>

#include "cli/admin_session.h"
#include "cli/credentials.h"
#include "cli/flags.h"
#include "cli/namesrv_addrs.h"
#include "cli/tls_flags.h"
#include "daemon/http_server.h"
#include "tools/mqdashboard/api.h"
#include "tools/mqdashboard/users.h"
#include "tools/mqdashboard/web_assets.h"

namespace {

using namespace ferry;
using Clock = std::chrono::steady_clock;

constexpr const char* kDefaultNamesrv = "127.0.0.1:9876";
constexpr const char* kDefaultListen = "127.0.0.1:8082";  // rocketmq-dashboard's port
constexpr std::size_t kQueuedMax = 256;

const std::vector<cli::FlagSpec> kFlags = {
    {'n', "namesrvAddr", "ADDRS", "NameServers, 'ip:port;ip:port' (default $NAMESRV_ADDR or 127.0.0.1:9876)"},
    {0, "listen", "HOST:PORT", "where the dashboard serves HTTP (default 127.0.0.1:8082; 0.0.0.0 for every interface)"},
    {0, "controller", "ADDRS", "controllers 'ip:port;ip:port' whose state the HA screen shows (default: none)"},
    {0, "lag-interval", "SECONDS", "how often each consumer group's lag is sampled for its chart (default 60)"},
    {0, "lag-points", "N", "samples kept per group (default 1440: a day at one a minute)"},
    {0, "users", "FILE", "require a login: name=password[,1] per line (,1: may send and reset); default: no login"},
    {0, "https-cert", "FILE", "serve HTTPS with this PEM certificate chain (with --https-key)"},
    {0, "https-key", "FILE", "the certificate's PEM private key"},
    cli::kTlsFlag,
    cli::kTlsConfigFlag,
    {'h', "help", "", "show this help"},
};

// The API requests the HTTP thread queued, answered on the main thread.
class Jobs {
 public:
  struct Job {
    daemon::HttpRequest request;
    daemon::HttpRespond respond;
  };
  // False when kQueuedMax requests wait already.
  bool push(Job job) {
    std::lock_guard lock(mu_);
    if (queue_.size() >= kQueuedMax) return false;
    queue_.push_back(std::move(job));
    cv_.notify_one();
    return true;
  }
  // The next job, or nullopt at `deadline` or once stopped.
  std::optional<Job> pop_until(Clock::time_point deadline) {
    std::unique_lock lock(mu_);
    cv_.wait_until(lock, deadline, [&] { return stopped_ || !queue_.empty(); });
    if (stopped_ || queue_.empty()) return std::nullopt;
    Job job = std::move(queue_.front());
    queue_.pop_front();
    return job;
  }
  void stop() {
    std::lock_guard lock(mu_);
    stopped_ = true;
    cv_.notify_all();
  }
  bool stopped() {
    std::lock_guard lock(mu_);
    return stopped_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> queue_;
  bool stopped_ = false;
};

int usage(const std::string& message) {
  std::fprintf(stderr, "mqdashboard: %s\nrun 'mqdashboard --help' for the flags\n", message.c_str());
  return 2;
}

int run(int argc, char** argv) {
  std::vector<cli::FlagSpec> specs = kFlags;
  for (const cli::FlagSpec& s : cli::credential_flags()) specs.push_back(s);
  const std::vector<std::string> args(argv + 1, argv + argc);
  Result<cli::ParsedFlags> flags = cli::parse_flags(specs, args);
  if (!flags.ok()) return usage(flags.error().detail);
  if (flags->has("help")) {
    std::fputs(fmt::format("usage: mqdashboard [-n namesrvAddr] [--listen HOST:PORT] [flags]\n"
                           "a web dashboard of the cluster: open http://HOST:PORT/\n\nflags:\n{}",
                           cli::flags_help(specs))
                   .c_str(),
               stdout);
    return 0;
  }
  const char* env = std::getenv("NAMESRV_ADDR");
  Result<std::vector<std::string>> addrs = cli::parse_namesrv_addrs(flags->get_or("namesrvAddr", env && *env ? env : kDefaultNamesrv));
  if (!addrs.ok()) return usage(addrs.error().detail);
  dashboard::ApiOptions options;
  if (auto controllers = flags->get("controller")) {
    Result<std::vector<std::string>> c = cli::parse_namesrv_addrs(*controllers);
    if (!c.ok()) return usage(fmt::format("--controller: {}", c.error().detail));
    options.controller_addrs = std::move(*c);
  }
  Result<std::int64_t> interval = flags->int_in("lag-interval", 1, 86400, 60);
  if (!interval.ok()) return usage(interval.error().detail);
  options.lag_interval_ms = *interval * 1000;
  Result<std::int64_t> points = flags->int_in("lag-points", 2, 100000, 1440);
  if (!points.ok()) return usage(points.error().detail);
  options.lag_points_max = static_cast<std::size_t>(*points);
  const std::string listen = flags->get_or("listen", kDefaultListen);
  const std::size_t colon = listen.rfind(':');
  std::string listen_host = listen.substr(0, colon);
  int listen_port = -1;
  if (colon != std::string::npos) {
    try {
      std::size_t used = 0;
      listen_port = std::stoi(listen.substr(colon + 1), &used);
      if (used != listen.size() - colon - 1) listen_port = -1;
    } catch (const std::exception&) {
      listen_port = -1;
    }
  }
  if (listen_host.empty() || listen_port < 0 || listen_port > 65535) {
    return usage(fmt::format("--listen: \"{}\" is not HOST:PORT (an IP address and a port 0..65535)", listen));
  }
  std::optional<dashboard::Users> users;
  if (auto path = flags->get("users")) {
    Result<dashboard::Users> read = dashboard::Users::read(*path);
    if (!read.ok()) return usage(fmt::format("--users: {}", read.error().detail));
    users = std::move(*read);
  }
  if (flags->has("https-cert") != flags->has("https-key")) return usage("--https-cert and --https-key go together");
  Result<TlsOptions> tls = cli::client_tls_from_flags(*flags);
  if (!tls.ok()) return usage(tls.error().detail);
  Result<remoting::acl::Credentials> credentials = cli::credentials_from(*flags);
  if (!credentials.ok()) return usage(credentials.error().detail);

  // SIGINT and SIGTERM are taken by a thread of their own (sigwait), in no other thread.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  cli::AdminSession session(*addrs, std::move(*tls), std::move(*credentials), "mqdashboard");
  dashboard::DashboardApi api(session, options);
  Jobs jobs;

  daemon::HttpServerOptions http;
  http.name = "mqdashboard";
  http.port_key = "--listen";
  http.allow_post = true;
  http.body_limit = 4 * 1024 * 1024 + 64 * 1024;  // a message body of RocketMQ's 4 MiB and its fields
  http.reply_timeout = std::chrono::seconds(120);
  http.reply_timeout_text = "the dashboard did not answer within 120 s (a broker or NameServer that does not answer?)\n";
  if (flags->has("https-cert")) http.tls = daemon::HttpTlsFiles{*flags->get("https-cert"), *flags->get("https-key")};
  Result<std::unique_ptr<daemon::HttpServer>> server = daemon::HttpServer::start(
      listen_host, static_cast<std::uint16_t>(listen_port), http,
      [&jobs, &users](const daemon::HttpRequest& req, daemon::HttpRespond respond) {
        if (users) {
          std::string name;
          const dashboard::Access access = users->check(req.authorization, &name);
          if (access == dashboard::Access::denied) {
            respond(daemon::HttpReply{401, "text/plain; charset=utf-8", "log in to the Ferry dashboard\n",
                                      {{"WWW-Authenticate", "Basic realm=\"Ferry dashboard\", charset=\"UTF-8\""}}});
            return;
          }
          if (access == dashboard::Access::viewer && req.method == "POST") {
            respond(daemon::HttpReply{403, "application/json; charset=utf-8",
                                      fmt::format("{{\"status\":-1,\"data\":null,\"errMsg\":\"user {} may look but not "
                                                  "send or reset (an admin has ,1 in the users file)\"}}",
                                                  name),
                                      {}});
            return;
          }
        }
        if (const dashboard::WebAsset* asset = dashboard::find_web_asset(req.path)) {
          respond(daemon::HttpReply{200, std::string(asset->content_type), std::string(asset->body),
                                    {{"Cache-Control", "no-cache"}}});
        } else if (dashboard::DashboardApi::serves(req.path)) {
          if (!jobs.push({req, respond})) {
            respond(daemon::HttpReply{503, "text/plain; charset=utf-8", "too many requests are waiting; try again\n", {}});
          }
        } else {
          respond(daemon::HttpReply{404, "text/plain; charset=utf-8", fmt::format("no such page: {}\n", req.path), {}});
        }
      });
  if (!server.ok()) {
    std::fprintf(stderr, "mqdashboard: %s\n", server.error().detail.c_str());
    return 1;
  }
  std::thread signals([&jobs, stop_signals] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    jobs.stop();
  });
  std::string ns;
  for (const std::string& a : *addrs) ns += (ns.empty() ? "" : ";") + a;
  std::printf("mqdashboard serving %s://%s/ (NameServers %s)%s\n", http.tls ? "https" : "http", (*server)->address().c_str(),
              ns.c_str(), users ? ", login required" : "");
  std::fflush(stdout);

  const auto interval_d = std::chrono::milliseconds(options.lag_interval_ms);
  Clock::time_point next_sample = Clock::now();
  while (!jobs.stopped()) {
    if (Clock::now() >= next_sample) {
      api.sample_lag();
      next_sample = Clock::now() + interval_d;
    }
    std::optional<Jobs::Job> job = jobs.pop_until(next_sample);
    if (job) job->respond(api.handle(job->request));
  }
  server->reset();  // no respond runs after this: they all ran on this thread
  signals.join();
  std::printf("mqdashboard stopped\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mqdashboard: %s\n", e.what());
    return 1;
  }
}
