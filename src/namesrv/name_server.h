// NameServer: the route registry node (RocketMQ's NamesrvController). Brokers register with
// every NameServer (REGISTER_BROKER, every 30 s); producers, consumers and admin tools ask any one
// of them for routes. NameServers never talk to each other and keep everything in memory.
//
//   NameServer ns(rt, NameServerConfig{});
//   FERRY_TRY(ns.start());            // listens on config.listen_host:listen_port (9876)
//   ...
//   ns.stop();                        // or destroy it
//
// What it owns: the route tables (RouteTable), the KV settings (KvConfig), the request processor
// and an RpcServer. Requests are answered synchronously on the node's loop (request_processor.h
// lists codes and replies; unknown codes get REQUEST_CODE_NOT_SUPPORTED from the RPC layer).
//
// Liveness: a scan (timer, first after scan_initial_delay, then every scan_interval) drops every
// broker not heard from for more than broker_expiry, logs it at info, and closes the connection
// it registered on. A broker's connection closing drops every broker registered over it at once.
//
// Lifetime: construct and use on the node's loop. start() at most once. stop() (idempotent, also
// run by the destructor) cancels the scan and closes the listener and every connection; the
// tables stay readable. The object must outlive the node's tasks (true for a node component: the
// node destroys its tasks first).
#pragma once

#include <memory>
#include <string>

#include "common/metrics.h"
#include "namesrv/kv_config.h"
#include "namesrv/namesrv_config.h"
#include "namesrv/request_processor.h"
#include "namesrv/route_table.h"
#include "remoting/acl/access_control.h"
#include "remoting/rpc/rpc_metrics.h"
#include "remoting/rpc/rpc_server.h"
#include "runtime/log_limiter.h"
#include "runtime/runtime.h"

namespace ferry::namesrv {

class NameServer {
 public:
  NameServer(Runtime& rt, NameServerConfig config = {});
  ~NameServer();
  NameServer(const NameServer&) = delete;
  NameServer& operator=(const NameServer&) = delete;

  // Where config().acl_file_path is read from (before start(); default: the node's FileSystem);
  // `display` names it in logs. `files` must outlive the NameServer.
  void set_acl_files(FileSystem& files, std::string display) {
    acl_files_ = &files;
    acl_display_ = std::move(display);
  }
  const remoting::acl::AccessControl* acl() const { return acl_.get(); }

  // Loads the ACL file (aclEnable), listens and arms the liveness scan. Errors: from listen
  // (address_in_use, invalid_argument); the ACL file missing (not_found) or bad (invalid_argument).
  Status start();
  // Stops the scan, the listener and every connection. Idempotent.
  void stop();

  // The bound address ("ip:port"). Valid after a successful start().
  std::string address() const { return server_.local().to_string(); }

  // Runs the liveness scan now (the timer calls this too). Returns how many brokers it dropped.
  std::size_t scan_not_active_brokers();

  const RouteTable& routes() const { return routes_; }
  // The NameServer's metrics (docs/operations.md "Monitoring"; RocketMQ's NameServer has none):
  // rocketmq_rpc_latency_milliseconds and ferry_requests_refused_total (remoting/rpc/rpc_metrics.h),
  // and ferry_namesrv_* — brokers live, clusters, topics, brokers dropped by reason, connections
  // refused. Common labels node_type="namesrv", node_id=the node's name.
  const metrics::Registry& metrics() const { return metrics_; }
  const KvConfig& kv() const { return kv_; }
  const NameServerConfig& config() const { return config_; }
  // Where UPDATE_NAMESRV_CONFIG (318) saves what it changed (the daemon's namesrv.conf writer);
  // unset, changes live in memory only.
  void set_config_persister(RequestProcessor::Persister p) { processor_.set_persister(std::move(p)); }

 private:
  void arm_scan(Duration delay);
  void register_metrics();
  void on_channel_closed(const std::shared_ptr<remoting::Channel>& channel);

  Runtime& rt_;
  NameServerConfig config_;  // UPDATE_NAMESRV_CONFIG changes its run-time keys (RequestProcessor)
  RouteTable routes_;
  KvConfig kv_;
  RequestProcessor processor_;
  remoting::RpcServer server_;
  FileSystem* acl_files_ = nullptr;
  std::string acl_display_;
  std::unique_ptr<remoting::acl::AccessControl> acl_;
  metrics::Registry metrics_;
  remoting::RpcMetrics rpc_metrics_{metrics_};
  metrics::Counter* dropped_expired_;
  metrics::Counter* dropped_closed_;
  LogLimiter dropped_closed_log_;  // brokers dropped with their connection (a peer can register and leave at will)
  TimerId scan_timer_{};
  bool started_ = false;
  bool stopped_ = false;
};

}  // namespace ferry::namesrv
