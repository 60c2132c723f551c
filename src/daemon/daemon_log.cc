#include "daemon/daemon_log.h"

#include <fmt/format.h>
#include <spdlog/common.h>
#include <spdlog/sinks/rotating_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>

#include <cstdlib>
#include <filesystem>

#include "runtime/log.h"

namespace ferry::daemon {

namespace {

constexpr std::size_t kLogFileBytesMax = std::size_t{64} << 20;
constexpr std::size_t kLogFilesKept = 4;  // besides the current one

}  // namespace

Status ensure_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Error(Errc::io_error, fmt::format("cannot create directory {}: {}", dir, ec.message()));
  if (!std::filesystem::is_directory(dir, ec)) {
    return Error(Errc::io_error, fmt::format("{} exists and is not a directory", dir));
  }
  return Status();
}

std::string home_dir() {
  const char* home = std::getenv("HOME");
  return home && *home ? std::string(home) : std::string(".");
}

Result<std::vector<std::string>> init_daemon_logging(const std::string& log_dir, const std::string& file_name) {
  std::vector<std::string> warnings;
  if (const char* env = std::getenv("FERRY_LOG"); env && *env) {
    const auto level = spdlog::level::from_str(env);
    // from_str maps unknown names to "off"; only a real "off" should silence the daemon.
    if (level == spdlog::level::off && std::string_view(env) != "off") {
      warnings.push_back(fmt::format("FERRY_LOG={} is not a level (trace|debug|info|warn|error|off); using info", env));
      set_default_log_level(spdlog::level::info);
    } else {
      set_default_log_level(level);
    }
  }
  FERRY_TRY(ensure_dir(log_dir));
  const std::string path = log_dir + "/" + file_name;
  try {
    auto file = std::make_shared<spdlog::sinks::rotating_file_sink_mt>(path, kLogFileBytesMax, kLogFilesKept);
    auto console = std::make_shared<spdlog::sinks::stderr_color_sink_mt>();
    set_default_log_sinks({console, file});
    // Every line reaches the file when it is logged (the file sink buffers otherwise, so a
    // broker killed or crashed lost its last lines, the ones that say why).
    set_default_log_flush_level(spdlog::level::trace);
  } catch (const spdlog::spdlog_ex& e) {
    return Error(Errc::io_error, fmt::format("cannot open log file {}: {}", path, e.what()));
  }
  return warnings;
}

}  // namespace ferry::daemon
