// ACL credentials of the command-line tools (mqadmin, mqbench): --access-key / --secret-key, or
// the environment variables FERRY_ACCESS_KEY / FERRY_SECRET_KEY when a flag is not given. Both or
// neither: one without the other is a usage error. The secret is never printed (the help shows
// the variable, not its value).
#pragma once

#include <vector>

#include "cli/flags.h"
#include "remoting/acl/signature.h"
#include "runtime/result.h"

namespace ferry::cli {

// The two flags, for a tool's flag table.
std::vector<FlagSpec> credential_flags();
// Credentials from the parsed flags, else the environment; empty ones when neither gives any.
Result<remoting::acl::Credentials> credentials_from(const ParsedFlags& flags);

}  // namespace ferry::cli
