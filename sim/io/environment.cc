#include "sim/io/environment.h"

#include <cstdlib>

#include "runtime/log.h"

namespace ferry::sim::io {

namespace {

std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::string(v) : std::string(fallback);
}

}  // namespace

void quiet_logs_unless_asked() {
  static const bool done = [] {
    const char* level = std::getenv("FERRY_LOG");
    if (level == nullptr || *level == '\0') set_default_log_level(spdlog::level::off);
    return true;
  }();
  (void)done;
}

bool announce_requested() {
  static const bool asked = [] {
    const char* announce = std::getenv("FERRY_PROPERTY_ANNOUNCE");
    return announce != nullptr && *announce != '\0';
  }();
  return asked;
}

std::string mqsim_command() { return env_or("FERRY_MQSIM", "build/bin/mqsim"); }

std::string property_dir() { return env_or("FERRY_PROPERTY_DIR", "property-failures"); }

}  // namespace ferry::sim::io
