#include "cli/admin_session.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <random>
#include <stdexcept>

#include "cli/serialize_type_env.h"
#include "runtime/log.h"

namespace ferry::cli {

namespace {

std::string make_temp_dir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = fmt::format("{}/ferry-admin-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (::mkdtemp(templ.data()) == nullptr) {
    // Fall back to a fixed per-user directory; nothing in it needs to persist.
    const char* home = std::getenv("HOME");
    return fmt::format("{}/.ferry-admin", home && *home ? home : ".");
  }
  return templ;
}

}  // namespace

AdminSession::AdminSession(std::vector<std::string> namesrv_addrs, TlsOptions tls,
                           remoting::acl::Credentials credentials, std::string tool)
    : namesrv_addrs_(std::move(namesrv_addrs)) {
  if (std::getenv("FERRY_LOG") == nullptr) set_default_log_level(spdlog::level::warn);
  data_root_ = make_temp_dir();
  AsioRuntime::Options opts;
  opts.node_name = tool;
  opts.data_root = data_root_;
  opts.offload_threads = 1;
  opts.sync_namespace = false;
  opts.tls = std::move(tls);
  rt_ = std::make_unique<AsioRuntime>(opts);

  client::ClientConfig cfg;
  cfg.namesrv_addrs = namesrv_addrs_;
  cfg.instance_name = fmt::format("{}-{}", tool, ::getpid());
  cfg.uniq_id_pid = static_cast<std::int32_t>(::getpid());
  cfg.uniq_id_process_hash = static_cast<std::int32_t>(std::random_device{}());
  Result<std::optional<remoting::SerializeType>> header = serialize_type_from_env();
  if (!header.ok()) throw std::invalid_argument(header.error().detail);
  if (*header) cfg.rpc.request_header = **header;
  cfg.credentials = std::move(credentials);
  instance_ = std::make_unique<client::ClientInstance>(*rt_, cfg);
  admin_ = std::make_unique<client::AdminClient>(*instance_);
  pull_ = std::make_unique<client::PullAPI>(*instance_);
}

AdminSession::~AdminSession() {
  try {
    rt_->block_on(instance_->shutdown());
  } catch (const std::exception&) {
    // The loop was stopped: nothing more to unregister.
  }
  pull_.reset();
  admin_.reset();
  instance_.reset();
  rt_.reset();
  std::error_code ec;
  std::filesystem::remove_all(data_root_, ec);
}

}  // namespace ferry::cli
