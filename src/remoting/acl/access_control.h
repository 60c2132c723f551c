// AccessControl: a node's ACL — the accounts of one plain_acl.yml, kept current, and the check
// of each request against them (access_check.h) under the node's policy.
//
//   AccessControl acl(rt, files, "plain_acl.yml", broker_policy());
//   FERRY_TRY(acl.load());      // at start: a missing or bad file is an error (the node refuses to start)
//   acl.start_watching();       // re-reads the file every poll_interval (5 s)
//   std::optional<std::string> refusal = acl.check(peer_host, request);
//
// Reloading: every poll_interval the file is read whole through `files` (a FileSystem: the
// node's, or a read-only one over the folder of the config file in the daemons). When its bytes
// differ from the last ones read it is parsed; a good file replaces the accounts at once (an info
// line says how many), a bad or missing file keeps the last good accounts and says why once per
// change of the file (error: "{file}:{line}: {key}: {what}"). Nothing logged holds a secret.
//
// Refusals are logged at warn, at most one line per 10 s with the count since the last line.
// Lifetime: on the node's loop; stop() (and the destructor) cancels the poll timer. `files` must
// outlive this object.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "remoting/acl/access_check.h"
#include "remoting/acl/acl_config.h"
#include "remoting/remoting_command.h"
#include "runtime/log_limiter.h"
#include "runtime/runtime.h"

namespace ferry::remoting::acl {

inline constexpr Duration kAclPollInterval = std::chrono::seconds(5);

class AccessControl {
 public:
  // `path` is relative to `files`' root; `display` names the file in logs and errors.
  AccessControl(Runtime& rt, FileSystem& files, std::string path, std::string display, AclPolicy policy,
                Duration poll_interval = kAclPollInterval);
  ~AccessControl();
  AccessControl(const AccessControl&) = delete;
  AccessControl& operator=(const AccessControl&) = delete;

  // Reads and parses the file now. Errors: not_found (naming the file), invalid_argument (a bad
  // file: file, line, key). On error the previous accounts (if any) stay.
  Status load();
  // Arms the poll timer (idempotent).
  void start_watching();
  void stop();

  // nullopt: allowed; otherwise the refusal remark ("AclException: ..."), logged (rate-limited).
  std::optional<std::string> check(std::string_view remote_host, const RemotingCommand& request);

  const AclConfig& config() const { return config_; }
  std::uint64_t reloads() const { return reloads_; }
  std::uint64_t refusals() const { return refusals_; }

 private:
  Result<std::vector<std::uint8_t>> read_file() const;
  void poll();
  void arm();

  Runtime& rt_;
  FileSystem& files_;
  const std::string path_;
  const std::string display_;
  const AclPolicy policy_;
  const Duration poll_interval_;
  AclConfig config_;
  std::optional<std::vector<std::uint8_t>> last_bytes_;  // the bytes last read (good or bad)
  bool last_missing_ = false;
  TimerId timer_{};
  bool watching_ = false;
  std::uint64_t reloads_ = 0;
  std::uint64_t refusals_ = 0;
  LogLimiter refusal_log_;  // refusal lines: one per period, with the count since the last
};

}  // namespace ferry::remoting::acl
