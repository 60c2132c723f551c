// Saving run-time configuration changes (UPDATE_BROKER_CONFIG, UPDATE_NAMESRV_CONFIG) into the
// properties file a daemon started from, keeping everything else of the file as it was:
// each `key=...` line of a changed key gets the new value (every occurrence, so the last one, the
// one a reader keeps, is new), comments and other lines stay, and keys the file lacks are
// appended. The file is replaced atomically: `{path}.tmp` written and fsync'd, renamed over
// `{path}`, the directory fsync'd. Errors (io_error) name the path and the system's reason; the
// old file is then untouched.
#pragma once

#include <map>
#include <string>

#include "runtime/result.h"

namespace ferry::daemon {

// The file's text with `changes` applied (the rule above). Pure, for tests.
std::string rewrite_properties_text(const std::string& text, const std::map<std::string, std::string>& changes);

Status rewrite_properties_file(const std::string& path, const std::map<std::string, std::string>& changes);

}  // namespace ferry::daemon
