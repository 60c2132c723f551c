// mqcontroller: a controller of RocketMQ 5's controller mode (docs/controller.md), one member of
// the quorum its controllerDLegerPeers names.
//
//   mqcontroller -c controller.conf [-d dataDir]
//
// Logs go to stderr and to {dataDir}/logs/controller.log; FERRY_LOG sets the level. The Raft
// files are under {dataDir}/{controllerStorePath}/raft. SIGTERM or SIGINT stops it (exit 0).
// Exit codes: 1 when it cannot start (bad config file, port in use, damaged Raft files), 2 for
// bad flags.
#include <cstdio>
#include <optional>
#include <string>

#include "controller/controller.h"
#include "daemon/config_binder.h"
#include "daemon/controller_conf.h"
#include "daemon/daemon_flags.h"
#include "daemon/daemon_log.h"
#include "daemon/metrics_endpoint.h"
#include "daemon/properties_file.h"
#include "daemon/properties_rewrite.h"
#include "runtime/asio/asio_runtime.h"

namespace {

using namespace ferry;

constexpr const char* kUsage =
    "usage: mqcontroller -c controller.conf [-d dataDir] [-h|--help]\n"
    "  -c FILE  controller properties (controllerDLegerPeers, controllerDLegerSelfId, ...)\n"
    "  -d DIR   data directory: logs and Raft files (default $HOME/controller; overrides dataDir)\n";

int usage_error(const std::string& what) {
  std::fprintf(stderr, "mqcontroller: %s\n%s", what.c_str(), kUsage);
  return 2;
}

int run(int argc, char** argv) {
  auto flags = daemon::parse_daemon_flags(argc, argv, "cd");
  if (!flags) return usage_error(flags.error().detail);
  if (flags->help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  std::optional<std::string> conf_path, data_dir;
  if (flags->values.contains('c')) conf_path = flags->values['c'];
  if (flags->values.contains('d')) data_dir = flags->values['d'];
  if (!conf_path) return usage_error("-c controller.conf is required (it names the quorum's peers)");

  const std::string home = daemon::home_dir();
  auto file = daemon::read_properties(*conf_path);
  auto parsed = file ? daemon::parse_controller_conf(*file, home) : Result<daemon::ControllerConf>(file.error());
  if (!parsed) {
    std::fprintf(stderr, "mqcontroller: %s\n", parsed.error().detail.c_str());
    return 1;
  }
  daemon::ControllerConf conf = std::move(*parsed);
  if (data_dir) conf.data_dir = *data_dir;

  auto log_warnings = daemon::init_daemon_logging(conf.data_dir + "/logs", "controller.log");
  if (!log_warnings) {
    std::fprintf(stderr, "mqcontroller: %s\n", log_warnings.error().detail.c_str());
    return 1;
  }
  AsioRuntime::Options opts;
  opts.node_name = "controller-" + conf.controller.self;
  opts.data_root = conf.data_dir;
  opts.offload_threads = 1;
  AsioRuntime rt(opts);
  for (const auto& w : *log_warnings) rt.log().warn("{}", w);
  for (const auto& w : conf.warnings) rt.log().warn("{}", w);

  controller::Controller controller(rt, conf.controller);
  // UPDATE_CONTROLLER_CONFIG saves what it changed into the file the controller started from.
  controller.set_config_persister([path = *conf_path](const std::map<std::string, std::string>& changes) {
    return daemon::rewrite_properties_file(path, changes);
  });
  Status started = controller.start();
  if (!started) {
    rt.log().error("cannot start: {}", started.error().to_string());
    std::fprintf(stderr, "mqcontroller: cannot start: %s\n", started.error().to_string().c_str());
    return 1;
  }
  const std::string self_address = conf.controller.self_peer()->address;
  auto endpoint = daemon::start_metrics_endpoint(conf.metrics, self_address.substr(0, self_address.rfind(':')),
                                                rt.executor(), [&controller] { return controller.metrics().collect(); });
  if (!endpoint) {
    rt.log().error("cannot start: {}", endpoint.error().detail);
    std::fprintf(stderr, "mqcontroller: cannot start: %s\n", endpoint.error().detail.c_str());
    return 1;
  }
  rt.log().info("The controller {} of {} boot success, listening at {}, data in {}", conf.controller.self,
                conf.controller.group, self_address, conf.data_dir);
  if (*endpoint) rt.log().info("metrics (Prometheus) at http://{}/metrics", (*endpoint)->address());
  rt.on_stop_signal([&rt, &controller](int signal) {
    rt.log().info("signal {}: stopping", signal);
    controller.stop();
    rt.stop();
  });
  rt.run();
  endpoint->reset();  // before the controller: its last collect, if any is queued, finds it gone
  rt.log().info("The controller stopped");
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return run(argc, argv); }
