// mqnamesrv: the NameServer daemon.
//
//   mqnamesrv [-c namesrv.conf] [-p port] [-d dataDir]
//
// -p overrides listenPort and -d overrides dataDir of the file (namesrv_conf.h). Logs go to
// stderr and to {dataDir}/logs/namesrv.log (rotating); FERRY_LOG sets the level. SIGTERM or
// SIGINT stops it: it closes the listener and every connection and exits 0.
// TLS: the tls.* keys of namesrv.conf and tls.config.file (daemon/tls_keys.h).
// enableControllerInNamesrv=true also runs a controller (docs/controller.md) in the process, on its
// own port (its controllerDLegerPeers entry), its Raft files under {dataDir}/{controllerStorePath}.
// Exit codes: 0 after a graceful stop, 1 when it cannot start (bad config file, a TLS certificate
// or key that does not load, port in use),
// 2 for bad flags.
#include <unistd.h>

#include <cstdio>
#include <optional>
#include <string>

#include "controller/controller.h"
#include "daemon/conf_folder.h"
#include "daemon/config_binder.h"
#include "daemon/daemon_flags.h"
#include "daemon/daemon_log.h"
#include "daemon/metrics_endpoint.h"
#include "daemon/namesrv_conf.h"
#include "daemon/open_files.h"
#include "daemon/properties_rewrite.h"
#include "daemon/tls_keys.h"
#include "namesrv/name_server.h"
#include "runtime/asio/asio_runtime.h"

namespace {

using namespace ferry;

constexpr const char* kUsage =
    "usage: mqnamesrv [-c namesrv.conf] [-p port] [-d dataDir] [-h|--help]\n"
    "  -c FILE  NameServer properties (listenPort, dataDir, ...)\n"
    "  -p PORT  listen port (default 9876; overrides listenPort)\n"
    "  -d DIR   data directory, logs go to DIR/logs (default $HOME/namesrv; overrides dataDir)\n";

int usage_error(const std::string& what) {
  std::fprintf(stderr, "mqnamesrv: %s\n%s", what.c_str(), kUsage);
  return 2;
}

int run(int argc, char** argv) {
  auto flags = daemon::parse_daemon_flags(argc, argv, "cpd");
  if (!flags) return usage_error(flags.error().detail);
  if (flags->help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  std::optional<std::string> conf_path, port_text, data_dir;
  if (flags->values.contains('c')) conf_path = flags->values['c'];
  if (flags->values.contains('p')) port_text = flags->values['p'];
  if (flags->values.contains('d')) data_dir = flags->values['d'];

  const std::string home = daemon::home_dir();
  daemon::NamesrvConf conf = daemon::default_namesrv_conf(home);
  if (conf_path) {
    auto file = daemon::read_properties(*conf_path);
    auto parsed = file ? daemon::parse_namesrv_conf(*file, home) : Result<daemon::NamesrvConf>(file.error());
    if (!parsed) {
      std::fprintf(stderr, "mqnamesrv: %s\n", parsed.error().detail.c_str());
      return 1;
    }
    conf = std::move(*parsed);
  }
  if (port_text) {
    auto port = daemon::parse_int_in(*port_text, 1, 65535);
    if (!port) return usage_error("-p: " + port.error().detail);
    conf.namesrv.listen_port = static_cast<std::uint16_t>(*port);
  }
  if (data_dir) conf.data_dir = *data_dir;

  if (Status tls = daemon::finish_tls(conf.tls, conf.tls_config_file, conf.warnings); !tls) {
    std::fprintf(stderr, "mqnamesrv: cannot start: %s\n", tls.error().detail.c_str());
    return 1;
  }

  auto log_warnings = daemon::init_daemon_logging(conf.data_dir + "/logs", "namesrv.log");
  if (!log_warnings) {
    std::fprintf(stderr, "mqnamesrv: %s\n", log_warnings.error().detail.c_str());
    return 1;
  }

  AsioRuntime::Options opts;
  opts.node_name = "namesrv";
  opts.data_root = conf.data_dir;
  opts.offload_threads = 1;
  opts.tls = conf.tls;
  AsioRuntime rt(opts);
  for (const auto& w : *log_warnings) rt.log().warn("{}", w);
  daemon::watch_tls_files(rt, conf.tls);  // new certificates on change or SIGHUP
  if (const daemon::OpenFilesReport files = daemon::raise_open_files_limit(); files.low() || !files.error.empty()) {
    rt.log().warn("{}", files.text());
  } else {
    rt.log().info("{}", files.text());
  }
  for (const auto& w : conf.warnings) rt.log().warn("{}", w);

  daemon::ConfFolder acl_folder(rt, conf.acl_file);
  namesrv::NameServer ns(rt, conf.namesrv);
  ns.set_acl_files(acl_folder.files(), conf.acl_file);
  if (conf_path) {
    // UPDATE_NAMESRV_CONFIG saves what it changed into the file the NameServer started from.
    ns.set_config_persister([path = *conf_path](const std::map<std::string, std::string>& changes) {
      return daemon::rewrite_properties_file(path, changes);
    });
  }
  Status started = ns.start();
  if (!started) {
    const std::string addr = conf.namesrv.listen_host + ":" + std::to_string(conf.namesrv.listen_port);
    const std::string why = started.error().is(Errc::address_in_use)
                                ? "address in use: " + addr + " (another process listens there)"
                                : started.error().to_string();
    rt.log().error("cannot start: {}", why);
    std::fprintf(stderr, "mqnamesrv: cannot start: %s\n", why.c_str());
    return 1;
  }
  std::unique_ptr<controller::Controller> embedded;
  if (conf.controller_enabled) {
    embedded = std::make_unique<controller::Controller>(rt, conf.controller);
    if (conf_path) {
      embedded->set_config_persister([path = *conf_path](const std::map<std::string, std::string>& changes) {
        return daemon::rewrite_properties_file(path, changes);
      });
    }
    if (Status c = embedded->start(); !c) {
      rt.log().error("cannot start the embedded controller: {}", c.error().to_string());
      std::fprintf(stderr, "mqnamesrv: cannot start the embedded controller: %s\n", c.error().to_string().c_str());
      return 1;
    }
  }
  auto endpoint = daemon::start_metrics_endpoint(conf.metrics, conf.namesrv.listen_host, rt.executor(), [&ns, &embedded] {
    if (!embedded) return ns.metrics().collect();
    return metrics::merge({ns.metrics().collect(), embedded->metrics().collect()});
  });
  if (!endpoint) {
    rt.log().error("cannot start: {}", endpoint.error().detail);
    std::fprintf(stderr, "mqnamesrv: cannot start: %s\n", endpoint.error().detail.c_str());
    return 1;
  }
  if (*endpoint) rt.log().info("metrics (Prometheus) at http://{}/metrics", (*endpoint)->address());
  rt.log().info("The Name Server boot success. listening at {} (listenAddress {}), data in {}, ACL {}, tls.server.mode={}, tls.enable={}",
                ns.address(), conf.namesrv.listen_host, conf.data_dir,
                conf.namesrv.acl_enable ? "on (write requests need an admin signature; " + conf.acl_file + ")" : "off",
                tls_server_mode_name(conf.tls.server.mode), conf.tls.client.enable);
  rt.on_stop_signal([&rt, &ns, &embedded](int signal) {
    rt.log().info("signal {}: stopping", signal);
    if (embedded) embedded->stop();
    ns.stop();
    rt.stop();
  });
  rt.run();
  endpoint->reset();  // before the NameServer: its last collect, if any is queued, finds it gone
  rt.log().info("The Name Server stopped");
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return run(argc, argv); }
