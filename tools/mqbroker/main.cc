// mqbroker: the Broker daemon.
//
//   mqbroker [-c broker.conf] [-n "ip:port;ip:port"] [--recover=abort|truncate|skip]
//
// -c reads RocketMQ's broker properties (broker_conf.h); -n overrides namesrvAddr; --recover
// overrides recoverMode, what store recovery does with corruption in the middle of the CommitLog
// (store/recover_mode.h, docs/operations.md "Recovery"): the broker refuses to start by default
// and names this option. The store and
// config/ live in storePathRootDir; logs go to stderr and to {storePathRootDir}/logs/broker.log
// (rotating); FERRY_LOG sets the level. SIGTERM or SIGINT stops it gracefully: unregister from
// the NameServers, persist consumer offsets and topics, flush and checkpoint the store, remove
// the abort file, exit 0. After a kill -9 the abort file is still there and the next start
// recovers the CommitLog record by record (docs/operations.md).
// TLS: the tls.* keys of broker.conf and tls.config.file (daemon/tls_keys.h), for the listen
// and HA ports and for the broker's own connections (NameServers, HA master).
// Exit codes: 0 after a graceful stop, 1 when it cannot start (bad or missing config file, a TLS
// certificate or key that does not load, store
// recovery failed, port in use), 2 for bad flags, 3 when the running broker stopped itself for a
// fault only a restart clears (controller mode: a CommitLog sync failed; a supervisor such as
// systemd's Restart=on-failure starts it again and the store recovers what was durable).
#include <getopt.h>
#include <unistd.h>

#include <cstdio>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "broker/broker.h"
#include "daemon/broker_conf.h"
#include "daemon/conf_folder.h"
#include "daemon/daemon_log.h"
#include "daemon/dir_lock.h"
#include "daemon/metrics_endpoint.h"
#include "daemon/open_files.h"
#include "daemon/properties_rewrite.h"
#include "daemon/tls_keys.h"
#include "runtime/asio/asio_runtime.h"
#include "store/recover_mode.h"

namespace {

using namespace ferry;

constexpr const char* kUsage =
    "usage: mqbroker [-c broker.conf] [-n 'ip:port;ip:port'] [--recover=abort|truncate|skip]\n"
    "  -c FILE  broker properties in RocketMQ's key=value format (see conf/)\n"
    "  -n ADDR  NameServer addresses, ';'-separated (overrides namesrvAddr)\n"
    "  --recover=MODE  corruption in the middle of the CommitLog found at start: abort (default:\n"
    "           refuse to start), truncate (discard everything after it), skip (lose only the\n"
    "           damaged range); overrides recoverMode. A torn tail after a crash is always cut.\n";

int usage_error(const std::string& what) {
  std::fprintf(stderr, "mqbroker: %s\n%s", what.c_str(), kUsage);
  return 2;
}

struct Node {
  AsioRuntime* rt;
  broker::Broker* broker;
  bool stopping = false;
};

Task<void> stop_and_quit(Node* node) {
  co_await node->broker->stop();
  node->rt->stop();
}

Task<Status> start_or_clean_up(broker::Broker* b) {
  Status s = co_await b->start();
  if (!s) co_await b->stop();
  co_return s;
}

std::string describe_start_error(const Error& e, const broker::BrokerConfig& c, const std::string& address) {
  if (e.is(Errc::address_in_use)) {
    // The HA port (listenPort + 1) is bound after the listen port: name the one that was taken.
    const std::string ha = address.substr(0, address.rfind(':') + 1) + std::to_string(c.listen_port + 1);
    if (e.detail.find(ha) != std::string::npos) {
      return "address in use: " + ha + " (another process listens there; it is the HA port, always listenPort + 1 = " +
             std::to_string(c.listen_port + 1) + ")";
    }
    return "address in use: " + address + " (another process listens there; listenPort=" +
           std::to_string(c.listen_port) + ")";
  }
  return e.to_string();
}

// The command line: -c, -n, --recover (unset when not given).
struct Flags {
  std::optional<std::string> conf_path, namesrv_text;
  std::optional<store::RecoverMode> recover_mode;
};

// The flags, or the exit code (usage printed, or --help answered).
std::variant<Flags, int> parse_flags(int argc, char** argv) {
  Flags f;
  constexpr int kRecoverOption = 1000;
  static const option kLongOptions[] = {{"recover", required_argument, nullptr, kRecoverOption},
                                        {"help", no_argument, nullptr, 'h'},
                                        {nullptr, 0, nullptr, 0}};
  opterr = 0;
  for (int opt; (opt = ::getopt_long(argc, argv, ":c:n:h", kLongOptions, nullptr)) != -1;) {
    switch (opt) {
      case 'c': f.conf_path = optarg; break;
      case 'n': f.namesrv_text = optarg; break;
      case kRecoverOption:
        f.recover_mode = store::parse_recover_mode(optarg);
        if (!f.recover_mode) {
          return usage_error(std::string("--recover: \"") + optarg + "\" is not one of " +
                             std::string(store::kRecoverModeChoices));
        }
        break;
      case 'h': std::fputs(kUsage, stdout); return 0;
      case ':':
        if (optopt == kRecoverOption) return usage_error("option --recover needs a value (abort|truncate|skip)");
        return usage_error(std::string("option -") + static_cast<char>(optopt) + " needs a value");
      default:
        if (optopt == 0) return usage_error(std::string("unknown option ") + argv[optind - 1]);
        return usage_error(std::string("unknown option -") + static_cast<char>(optopt));
    }
  }
  if (optind < argc) return usage_error(std::string("unexpected argument ") + argv[optind]);
  return f;
}

// broker.conf (or the defaults) with the flags applied and the TLS keys read, or the exit code
// (the reason printed).
std::variant<daemon::BrokerConf, int> load_conf(const Flags& f) {
  const std::string home = daemon::home_dir();
  daemon::BrokerConf conf = daemon::default_broker_conf(home);
  if (f.conf_path) {
    auto file = daemon::read_properties(*f.conf_path);
    auto parsed = file ? daemon::parse_broker_conf(*file, home) : Result<daemon::BrokerConf>(file.error());
    if (!parsed) {
      std::fprintf(stderr, "mqbroker: %s\n", parsed.error().detail.c_str());
      return 1;
    }
    conf = std::move(*parsed);
  }
  if (f.recover_mode) conf.broker.store.recover_mode = *f.recover_mode;
  if (f.namesrv_text) {
    auto addrs = daemon::parse_namesrv_addr(*f.namesrv_text);
    if (!addrs) return usage_error("-n: " + addrs.error().detail);
    conf.broker.namesrv_addr = std::move(*addrs);
  }
  if (Status tls = daemon::finish_tls(conf.tls, conf.tls_config_file, conf.warnings); !tls) {
    std::fprintf(stderr, "mqbroker: cannot start: %s\n", tls.error().detail.c_str());
    return 1;
  }
  return conf;
}

// Logs what the operator should know before the broker starts: the log set-up's and the config
// file's warnings, the open-files limit, a missing namesrvAddr.
void log_start_warnings(AsioRuntime& rt, const daemon::BrokerConf& conf, const std::vector<std::string>& log_warnings) {
  for (const auto& w : log_warnings) rt.log().warn("{}", w);
  if (const daemon::OpenFilesReport files = daemon::raise_open_files_limit(); files.low() || !files.error.empty()) {
    rt.log().warn("{}", files.text());
  } else {
    rt.log().info("{}", files.text());
  }
  for (const auto& w : conf.warnings) rt.log().warn("{}", w);
  if (conf.broker.namesrv_addr.empty()) {
    rt.log().warn("no namesrvAddr (-n or namesrvAddr=): the broker registers with no NameServer");
  }
}

// Starts the broker and serves until a stop signal has it shut down; the exit code.
int serve(AsioRuntime& rt, const daemon::BrokerConf& conf, const std::optional<std::string>& conf_path) {
  daemon::ConfFolder acl_folder(rt, conf.acl_file);
  broker::Broker broker(rt, conf.broker);
  broker.set_acl_files(acl_folder.files(), conf.acl_file);
  if (conf_path) {
    // UPDATE_BROKER_CONFIG saves what it changed into the file the broker started from.
    broker.set_config_persister([path = *conf_path](const std::map<std::string, std::string>& changes) {
      return daemon::rewrite_properties_file(path, changes);
    });
  }
  int exit_code = 0;
  broker.set_failure_handler([&rt, &exit_code](const Error& why) {
    std::fprintf(stderr, "mqbroker: stopped: %s\n", why.to_string().c_str());
    exit_code = 3;
    rt.stop();
  });
  Status started = rt.block_on(start_or_clean_up(&broker));
  if (!started) {
    const std::string why = describe_start_error(started.error(), conf.broker, broker.address());
    rt.log().error("cannot start: {}", why);
    std::fprintf(stderr, "mqbroker: cannot start: %s\n", why.c_str());
    return 1;
  }
  auto endpoint = daemon::start_metrics_endpoint(conf.metrics, broker.bind_host(), rt.executor(),
                                                [&broker] { return broker.metrics().collect(); });
  if (!endpoint) {
    rt.log().error("cannot start: {}", endpoint.error().detail);
    std::fprintf(stderr, "mqbroker: cannot start: %s\n", endpoint.error().detail.c_str());
    rt.block_on(broker.stop());
    return 1;
  }
  rt.log().info("The broker[{}, {}] boot success. store in {}, flushDiskType={}, tls.server.mode={}, tls.enable={}",
                conf.broker.broker_name, broker.address(), conf.store_root_dir,
                conf.broker.flush_disk_type == store::FlushMode::sync_flush ? "SYNC_FLUSH" : "ASYNC_FLUSH",
                tls_server_mode_name(conf.tls.server.mode), conf.tls.client.enable);
  if (*endpoint) rt.log().info("metrics (Prometheus) at http://{}/metrics", (*endpoint)->address());
  Node node{&rt, &broker};
  rt.on_stop_signal([&node](int signal) {
    if (node.stopping) {
      node.rt->log().warn("signal {}: already stopping", signal);
      return;
    }
    node.stopping = true;
    node.rt->log().info("signal {}: stopping (unregister, persist offsets, flush)", signal);
    node.rt->spawn(stop_and_quit(&node), "graceful-stop");
  });
  rt.run();
  endpoint->reset();  // before the broker: its last collect, if any is queued, finds it gone
  rt.log().info("The broker[{}] shut down", conf.broker.broker_name);
  return exit_code;
}

int run(int argc, char** argv) {
  std::variant<Flags, int> flags = parse_flags(argc, argv);
  if (const int* code = std::get_if<int>(&flags)) return *code;
  std::variant<daemon::BrokerConf, int> loaded = load_conf(std::get<Flags>(flags));
  if (const int* code = std::get_if<int>(&loaded)) return *code;
  const daemon::BrokerConf& conf = std::get<daemon::BrokerConf>(loaded);

  if (Status d = daemon::ensure_dir(conf.store_root_dir); !d) {
    std::fprintf(stderr, "mqbroker: storePathRootDir: %s\n", d.error().detail.c_str());
    return 1;
  }
  auto lock = daemon::DirLock::acquire(conf.store_root_dir);
  if (!lock) {
    std::fprintf(stderr, "mqbroker: storePathRootDir: %s\n", lock.error().detail.c_str());
    return 1;
  }
  auto log_warnings = daemon::init_daemon_logging(conf.store_root_dir + "/logs", "broker.log");
  if (!log_warnings) {
    std::fprintf(stderr, "mqbroker: %s\n", log_warnings.error().detail.c_str());
    return 1;
  }

  AsioRuntime::Options opts;
  opts.node_name = conf.broker.broker_name;
  opts.data_root = conf.store_root_dir;
  if (!conf.broker.broker_ip1.empty()) opts.advertised_host = conf.broker.broker_ip1;
  opts.tls = conf.tls;  // the listen and HA ports (server), NameServer and HA connections (client)
  AsioRuntime rt(opts);
  log_start_warnings(rt, conf, *log_warnings);
  daemon::watch_tls_files(rt, conf.tls);  // new certificates on change or SIGHUP
  return serve(rt, conf, std::get<Flags>(flags).conf_path);
}

}  // namespace

int main(int argc, char** argv) { return run(argc, argv); }
