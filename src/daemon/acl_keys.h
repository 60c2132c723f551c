// The ACL and listen-address keys both daemons read (docs/operations.md, "Security"):
//   aclEnable      (RocketMQ's) true turns plain ACL on; default false
//   aclFilePath    (Ferry's) the plain_acl.yml; relative paths are relative to the folder of the
//                  .conf file; default plain_acl.yml in that folder
//   accessKey      (Ferry's) the daemon signs its own calls with these (a broker's registration
//   secretKey      with ACL NameServers, a slave's calls to its master); both or neither
//   listenAddress  (Ferry's) the IPv4 address to bind, e.g. 127.0.0.1 or 0.0.0.0
// Errors are config errors "{file}:{line}: {key}: {what}"; a secret never appears in one.
#pragma once

#include <string>

#include "daemon/config_binder.h"
#include "remoting/acl/signature.h"

namespace ferry::daemon {

struct AclKeys {
  bool enable = false;
  std::string file;  // as written, resolved by acl_file_of()
  remoting::acl::Credentials credentials;
  std::string listen_address;  // empty: not set
};

// Binds the keys onto `k`, which must outlive `b`'s apply().
void bind_acl_keys(ConfigBinder& b, AclKeys& k);
// The plain_acl.yml path for a .conf file at `conf_file` ("" when there is none: the current folder).
std::string acl_file_of(const AclKeys& k, const std::string& conf_file);
// accessKey without secretKey (or the reverse) is an error naming the file.
Status check_acl_keys(const AclKeys& k, const std::string& conf_file);

}  // namespace ferry::daemon
