#include "runtime/log.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_color_sinks.h>

#include <chrono>
#include <cstdlib>
#include <iterator>
#include <mutex>

#include "runtime/clock.h"

namespace ferry {

namespace {

struct Defaults {
  std::mutex mu;
  LogSettings settings;
  Defaults() {
    const char* env = std::getenv("FERRY_LOG");
    settings.level = env ? spdlog::level::from_str(env) : spdlog::level::info;
    settings.sinks.push_back(std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
  }
};
Defaults& defaults() {
  static Defaults d;
  return d;
}

using LogTime = spdlog::log_clock::time_point;
// The stamp of a line whose node's clock is gone (shown as "?").
constexpr LogTime kNoTime = LogTime::min();

// %V: the line's virtual time (ClockedLogger stamped it into msg.time, counted from the log
// clock's epoch) in seconds with microseconds, or "?" when it has none.
class VirtualTimeFlag final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&, spdlog::memory_buf_t& dest) override {
    if (msg.time == kNoTime) {
      dest.push_back('?');
      return;
    }
    const std::int64_t ns = std::chrono::duration_cast<std::chrono::nanoseconds>(msg.time.time_since_epoch()).count();
    fmt::format_to(std::back_inserter(dest), "{}.{:06}s", ns / 1'000'000'000, (ns % 1'000'000'000) / 1000);
  }
  std::unique_ptr<custom_flag_formatter> clone() const override { return std::make_unique<VirtualTimeFlag>(); }
};

}  // namespace

ClockedLogger::ClockedLogger(std::string node, const Clock* clock, const LogSettings& settings)
    : spdlog::logger(std::move(node), settings.sinks.begin(), settings.sinks.end()), clock_(clock) {
  auto f = std::make_unique<spdlog::pattern_formatter>();
  f->add_flag<VirtualTimeFlag>('V').set_pattern("[%V] [%n] [%^%l%$] %v");
  set_formatter(std::move(f));
  set_level(settings.level);
  flush_on(settings.flush_level);
}

void ClockedLogger::sink_it_(const spdlog::details::log_msg& msg) {
  spdlog::details::log_msg stamped = msg;
  stamped.time = clock_ != nullptr
                     ? LogTime(std::chrono::duration_cast<LogTime::duration>(clock_->now().time_since_epoch()))
                     : kNoTime;
  spdlog::logger::sink_it_(stamped);
}

std::shared_ptr<spdlog::logger> make_node_logger(const std::string& node, const Clock* virtual_clock,
                                                 const LogSettings& settings) {
  if (virtual_clock != nullptr) return std::make_shared<ClockedLogger>(node, virtual_clock, settings);
  auto logger = std::make_shared<spdlog::logger>(node, settings.sinks.begin(), settings.sinks.end());
  logger->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%n] [%^%l%$] %v");
  logger->set_level(settings.level);
  logger->flush_on(settings.flush_level);
  return logger;
}

LogSettings default_log_settings() {
  Defaults& d = defaults();
  std::lock_guard lock(d.mu);
  return d.settings;
}

void set_default_log_level(spdlog::level::level_enum level) {
  Defaults& d = defaults();
  std::lock_guard lock(d.mu);
  d.settings.level = level;
}

spdlog::level::level_enum default_log_level() {
  Defaults& d = defaults();
  std::lock_guard lock(d.mu);
  return d.settings.level;
}

void set_default_log_flush_level(spdlog::level::level_enum level) {
  Defaults& d = defaults();
  std::lock_guard lock(d.mu);
  d.settings.flush_level = level;
}

void set_default_log_sinks(std::vector<spdlog::sink_ptr> sinks) {
  Defaults& d = defaults();
  std::lock_guard lock(d.mu);
  d.settings.sinks = std::move(sinks);
}

std::vector<spdlog::sink_ptr> default_log_sinks() {
  Defaults& d = defaults();
  std::lock_guard lock(d.mu);
  return d.settings.sinks;
}

}  // namespace ferry
