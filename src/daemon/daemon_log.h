// Logging and small start-up helpers for the daemons (mqnamesrv, mqbroker). Program code, not
// component code: it may read the environment and touch the real file system.
#pragma once

#include <string>
#include <vector>

#include "runtime/result.h"

namespace ferry::daemon {

// Sends every node logger created after this call to stderr and to a rotating file
// {log_dir}/{file_name} (64 MiB per file, 5 files kept: name, name.1 … name.4; the directory is
// created; each line is flushed as it is logged, so a crash or a kill -9 loses none). The level
// comes from FERRY_LOG (trace|debug|info|warn|error|off, default info); an unknown FERRY_LOG
// value is reported in the returned warnings and info is used.
// Errors: the directory or the file cannot be created (io_error naming the path and why).
Result<std::vector<std::string>> init_daemon_logging(const std::string& log_dir, const std::string& file_name);

// $HOME, or "." when it is unset.
std::string home_dir();

// Creates `dir` with its parents. Errors name the directory and the reason.
Status ensure_dir(const std::string& dir);

}  // namespace ferry::daemon
