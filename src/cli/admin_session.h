// AdminSession: what an admin tool (mqadmin, mqdashboard) talks through — an AsioRuntime whose
// loop runs on the calling thread (block_on per call), a ClientInstance on the given NameServers, an AdminClient and a
// PullAPI. Nothing persistent: the runtime's data root is a fresh temp directory removed when
// the session ends. The client's logs go to stderr at "warn" unless FERRY_LOG says otherwise.
//
// The instance is not started (no route polling or heartbeats) until a Producer starts it.
// Destruction shuts the instance down (UNREGISTER_CLIENT for a started producer).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cli/namesrv_addrs.h"
#include "client/admin_client.h"
#include "client/client_instance.h"
#include "client/pull_api.h"
#include "runtime/asio/asio_runtime.h"

namespace ferry::cli {

class AdminSession {
 public:
  // `tls`: the client side (tls.client.*) of every connection (cli/tls_flags.h). With
  // `credentials` (not empty) every request is signed for RocketMQ ACL.
  // `tool` names the node in logs and the client instance ("<tool>-<pid>").
  AdminSession(std::vector<std::string> namesrv_addrs, TlsOptions tls, remoting::acl::Credentials credentials = {},
               std::string tool = "mqadmin");
  ~AdminSession();
  AdminSession(const AdminSession&) = delete;
  AdminSession& operator=(const AdminSession&) = delete;

  template <typename T>
  T run(Task<T> task) {
    return rt_->block_on(std::move(task));
  }

  AsioRuntime& rt() { return *rt_; }
  client::ClientInstance& instance() { return *instance_; }
  client::AdminClient& admin() { return *admin_; }
  client::PullAPI& puller() { return *pull_; }
  const std::vector<std::string>& namesrv_addrs() const { return namesrv_addrs_; }

 private:
  std::vector<std::string> namesrv_addrs_;
  std::string data_root_;
  std::unique_ptr<AsioRuntime> rt_;
  std::unique_ptr<client::ClientInstance> instance_;
  std::unique_ptr<client::AdminClient> admin_;
  std::unique_ptr<client::PullAPI> pull_;
};


}  // namespace ferry::cli
