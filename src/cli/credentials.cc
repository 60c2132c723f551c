#include "cli/credentials.h"

#include <cstdlib>

namespace ferry::cli {

std::vector<FlagSpec> credential_flags() {
  return {
      {0, "access-key", "KEY", "ACL access key: requests are signed (default $FERRY_ACCESS_KEY)"},
      {0, "secret-key", "SECRET", "ACL secret key (default $FERRY_SECRET_KEY; prefer the variable: flags show in ps)"},
  };
}

Result<remoting::acl::Credentials> credentials_from(const ParsedFlags& flags) {
  auto pick = [&](std::string_view flag, const char* variable) -> std::string {
    if (auto v = flags.get(flag)) return *v;
    const char* env = std::getenv(variable);
    return env != nullptr ? std::string(env) : std::string();
  };
  remoting::acl::Credentials c;
  c.access_key = pick("access-key", "FERRY_ACCESS_KEY");
  c.secret_key = pick("secret-key", "FERRY_SECRET_KEY");
  if (c.access_key.empty() != c.secret_key.empty()) {
    return Error(Errc::invalid_argument,
                 c.access_key.empty() ? "a secret key without an access key (--access-key or FERRY_ACCESS_KEY)"
                                      : "an access key without a secret key (--secret-key or FERRY_SECRET_KEY)");
  }
  return c;
}

}  // namespace ferry::cli
