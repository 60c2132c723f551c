// mqproxy: RocketMQ 5's gRPC proxy in front of Ferry's NameServers and brokers (docs/proxy.md).
//
//   mqproxy [-c proxy.conf] [-n namesrvAddr] [-p grpcServerPort] [-d dataDir]
//
// RocketMQ 5's clients (Java, Go, C++, C#, Rust, Python, Node.js of apache/rocketmq-clients)
// reach the cluster through it: apache.rocketmq.v2.MessagingService on grpcServerPort (8081), in
// plaintext, or TLS with tls.server.mode=enforcing. The flags override the file's keys (daemon/proxy_conf.h). Logs go to stderr and to
// {dataDir}/logs/proxy.log; FERRY_LOG sets the level. SIGTERM or SIGINT stops it: new calls get
// UNAVAILABLE, calls still open after 3 s are cancelled, then it exits 0.
// Exit codes: 0 after a graceful stop, 1 when it cannot start (bad config file, port in use), 2
// for bad flags.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>

#include <grpcpp/grpcpp.h>

#include "client/client_instance.h"
#include "daemon/conf_folder.h"
#include "daemon/config_binder.h"
#include "daemon/daemon_flags.h"
#include "daemon/daemon_log.h"
#include "daemon/open_files.h"
#include "daemon/proxy_conf.h"
#include "daemon/tls_keys.h"
#include "grpc_edge.h"
#include "proxy/messaging_core.h"
#include "runtime/asio/asio_runtime.h"

namespace {

using namespace ferry;

constexpr const char* kUsage =
    "usage: mqproxy [-c proxy.conf] [-n namesrvAddr] [-p port] [-d dataDir] [-h|--help]\n"
    "  -c FILE  proxy properties (namesrvAddr, grpcServerPort, ...; docs/proxy.md)\n"
    "  -n ADDRS the NameServers, ip:port;ip:port (default 127.0.0.1:9876; overrides namesrvAddr)\n"
    "  -p PORT  the gRPC port (default 8081; overrides grpcServerPort)\n"
    "  -d DIR   data directory, logs go to DIR/logs (default $HOME/proxy; overrides dataDir)\n";

int usage_error(const std::string& what) {
  std::fprintf(stderr, "mqproxy: %s\n%s", what.c_str(), kUsage);
  return 2;
}

// The whole of a PEM file, or nullopt.
std::optional<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// The gRPC port's credentials from tls.server.* (finish_tls checked that the files load):
// plaintext when disabled, TLS when enforcing. Errors say which key.
Result<std::shared_ptr<grpc::ServerCredentials>> grpc_credentials(const TlsServerOptions& tls) {
  if (tls.mode == TlsServerMode::disabled) return grpc::InsecureServerCredentials();
  if (tls.mode == TlsServerMode::permissive) {
    return Error(Errc::invalid_argument, "tls.server.mode=permissive is not served on the gRPC port (TLS or plaintext, not both)");
  }
  if (!tls.key_password.empty()) {
    return Error(Errc::invalid_argument, "tls.server.keyPassword: gRPC takes an unencrypted key; give tls.server.keyPath one");
  }
  grpc::SslServerCredentialsOptions o(tls.need_client_auth == TlsClientAuth::none ? GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE
                                      : tls.need_client_auth == TlsClientAuth::optional
                                          ? GRPC_SSL_REQUEST_CLIENT_CERTIFICATE_AND_VERIFY
                                          : GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY);
  const std::optional<std::string> key = read_file(tls.key_path);
  const std::optional<std::string> cert = read_file(tls.cert_path);
  if (!key) return Error(Errc::invalid_argument, "tls.server.keyPath: cannot read " + tls.key_path);
  if (!cert) return Error(Errc::invalid_argument, "tls.server.certPath: cannot read " + tls.cert_path);
  if (tls.need_client_auth != TlsClientAuth::none) {
    const std::optional<std::string> trust = read_file(tls.trust_cert_path);
    if (!trust) return Error(Errc::invalid_argument, "tls.server.trustCertPath: cannot read " + tls.trust_cert_path);
    o.pem_root_certs = *trust;
  }
  o.pem_key_cert_pairs.push_back({*key, *cert});
  return grpc::SslServerCredentials(o);
}

int run(int argc, char** argv) {
  auto flags = daemon::parse_daemon_flags(argc, argv, "cnpd");
  if (!flags) return usage_error(flags.error().detail);
  if (flags->help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  const std::string home = daemon::home_dir();
  daemon::ProxyConf conf = daemon::default_proxy_conf(home);
  if (flags->values.contains('c')) {
    auto file = daemon::read_properties(flags->values['c']);
    auto parsed = file ? daemon::parse_proxy_conf(*file, home) : Result<daemon::ProxyConf>(file.error());
    if (!parsed) {
      std::fprintf(stderr, "mqproxy: %s\n", parsed.error().detail.c_str());
      return 1;
    }
    conf = std::move(*parsed);
  }
  if (flags->values.contains('n')) {
    auto addrs = daemon::parse_namesrv_addr(flags->values['n']);
    if (!addrs) return usage_error("-n: " + addrs.error().detail);
    conf.namesrv_addrs = std::move(*addrs);
  }
  if (flags->values.contains('p')) {
    auto port = daemon::parse_int_in(flags->values['p'], 1, 65535);
    if (!port) return usage_error("-p: " + port.error().detail);
    conf.proxy.route.grpc_port = static_cast<std::int32_t>(*port);
  }
  if (flags->values.contains('d')) conf.data_dir = flags->values['d'];
  if (Status tls = daemon::finish_tls(conf.tls, conf.tls_config_file, conf.warnings); !tls) {
    std::fprintf(stderr, "mqproxy: cannot start: %s\n", tls.error().detail.c_str());
    return 1;
  }
  Result<std::shared_ptr<grpc::ServerCredentials>> credentials = grpc_credentials(conf.tls.server);
  if (!credentials) {
    std::fprintf(stderr, "mqproxy: cannot start: %s\n", credentials.error().detail.c_str());
    return 1;
  }

  auto log_warnings = daemon::init_daemon_logging(conf.data_dir + "/logs", "proxy.log");
  if (!log_warnings) {
    std::fprintf(stderr, "mqproxy: %s\n", log_warnings.error().detail.c_str());
    return 1;
  }
  AsioRuntime::Options opts;
  opts.node_name = "proxy";
  opts.data_root = conf.data_dir;
  opts.offload_threads = 1;
  opts.tls = conf.tls;  // tls.enable: the proxy's connections to TLS brokers
  AsioRuntime rt(opts);
  for (const auto& w : *log_warnings) rt.log().warn("{}", w);
  daemon::watch_tls_files(rt, conf.tls);  // tls.enable's client files, on change or SIGHUP (not the gRPC port's)
  if (const daemon::OpenFilesReport files = daemon::raise_open_files_limit(); files.low() || !files.error.empty()) {
    rt.log().warn("{}", files.text());
  }
  for (const auto& w : conf.warnings) rt.log().warn("{}", w);

  client::ClientConfig cc;
  cc.namesrv_addrs = conf.namesrv_addrs;
  cc.instance_name = "mqproxy-" + std::to_string(::getpid());
  cc.uniq_id_pid = static_cast<std::int32_t>(::getpid());
  cc.uniq_id_process_hash = static_cast<std::int32_t>(std::random_device{}());
  cc.credentials = conf.credentials;
  client::ClientInstance instance(rt, cc);
  proxy::MessagingCore core(rt, instance, conf.proxy);
  if (Status s = core.start(); !s) {
    rt.log().error("cannot start: {}", s.error().to_string());
    std::fprintf(stderr, "mqproxy: cannot start: %s\n", s.error().to_string().c_str());
    return 1;
  }

  // ACL: the accounts of plain_acl.yml (aclFilePath beside proxy.conf), re-read every 5 s.
  std::unique_ptr<daemon::ConfFolder> acl_folder;
  std::unique_ptr<remoting::acl::AccessControl> acl;
  if (conf.acl_enable) {
    acl_folder = std::make_unique<daemon::ConfFolder>(rt, conf.acl_file);
    acl = std::make_unique<remoting::acl::AccessControl>(rt, acl_folder->files(), daemon::split_folder(conf.acl_file).second,
                                                         conf.acl_file, remoting::acl::broker_policy());
    if (Status loaded = acl->load(); !loaded) {
      rt.log().error("cannot start: aclEnable=true but {}", loaded.error().detail);
      std::fprintf(stderr, "mqproxy: cannot start: aclEnable=true but %s\n", loaded.error().detail.c_str());
      rt.block_on(core.shutdown());
      return 1;
    }
    acl->start_watching();
  }
  mqproxy::GrpcEdge edge(rt, core, conf.edge, acl.get());
  core.set_telemetry_sink([&edge](const std::string& client_id, apache::rocketmq::v2::TelemetryCommand command) {
    return edge.write_to_client(client_id, std::move(command));
  });
  const std::string address = conf.edge.listen_address + ":" + std::to_string(conf.proxy.route.grpc_port);
  grpc::ServerBuilder builder;
  int bound_port = 0;
  builder.AddListeningPort(address, *credentials, &bound_port);
  builder.RegisterService(&edge);
  builder.SetMaxReceiveMessageSize(static_cast<int>(conf.edge.max_inbound_bytes));
  builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_IDLE_MS, static_cast<int>(to_ms(conf.edge.client_idle)));
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (!server || bound_port == 0) {
    const std::string why = "cannot listen at " + address + " (another process listens there, or the address is not this host's)";
    rt.log().error("cannot start: {}", why);
    std::fprintf(stderr, "mqproxy: cannot start: %s\n", why.c_str());
    rt.block_on(core.shutdown());
    return 1;
  }
  rt.log().info("The Proxy boot success. gRPC (apache.rocketmq.v2.MessagingService) at {} ({}), NameServers {}, data in {}, ACL {}",
                address, conf.tls.server.mode == TlsServerMode::enforcing ? "TLS" : "plaintext",
                fmt::format("{}", fmt::join(conf.namesrv_addrs, ";")), conf.data_dir,
                acl ? "on (" + conf.acl_file + ")" : std::string("off"));

  // A stop: refuse new calls, give open ones 3 s (a long-polling receive may hold 20 s), then
  // stop the core's loop. Shutdown() blocks, so it runs on its own thread while the loop
  // answers what is left.
  std::thread stopper;
  rt.on_stop_signal([&](int signal) {
    if (stopper.joinable()) return;
    rt.log().info("signal {}: stopping", signal);
    edge.close();
    stopper = std::thread([&] {
      server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(3));
      rt.executor().post([&] {
        rt.spawn([](AsioRuntime& r, proxy::MessagingCore& c, client::ClientInstance& ci,
                    remoting::acl::AccessControl* a) -> Task<void> {
          Task<void> stopping = c.shutdown();
          co_await std::move(stopping);
          if (a != nullptr) a->stop();
          Task<void> unregistering = ci.shutdown();
          co_await std::move(unregistering);
          r.stop();
        }(rt, core, instance, acl.get()), "proxy-stop");
      });
    });
  });
  rt.run();
  if (stopper.joinable()) stopper.join();
  server->Wait();
  rt.log().info("The Proxy stopped");
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return run(argc, argv); }
