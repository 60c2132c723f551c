#include "daemon/acl_keys.h"

#include <fmt/format.h>

#include "common/host_port.h"
#include "daemon/conf_folder.h"

namespace ferry::daemon {

void bind_acl_keys(ConfigBinder& b, AclKeys& k) {
  b.bind_bool("aclEnable", k.enable);
  b.bind_string("aclFilePath", k.file);
  b.bind_string("accessKey", k.credentials.access_key);
  b.bind("secretKey", [&k](std::string_view v) -> Status {
    if (v.empty()) return Error(Errc::invalid_argument, "must not be empty");
    k.credentials.secret_key = std::string(v);
    return Status();
  });
  b.bind("listenAddress", [&k](std::string_view v) -> Status {
    FERRY_TRY(check_ipv4(v));
    k.listen_address = std::string(v);
    return Status();
  });
}

std::string acl_file_of(const AclKeys& k, const std::string& conf_file) {
  const std::string name = k.file.empty() ? std::string("plain_acl.yml") : k.file;
  if (!name.empty() && name.front() == '/') return name;
  const std::string folder = conf_file.empty() ? std::string(".") : split_folder(conf_file).first;
  return folder + "/" + name;
}

Status check_acl_keys(const AclKeys& k, const std::string& conf_file) {
  if (k.credentials.access_key.empty() != k.credentials.secret_key.empty()) {
    return Error(Errc::invalid_argument,
                 fmt::format("{}: accessKey and secretKey go together: set both or neither", conf_file));
  }
  return Status();
}

}  // namespace ferry::daemon
