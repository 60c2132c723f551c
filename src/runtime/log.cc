#include "runtime/log.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_color_sinks.h>

#include <cstdlib>
#include <mutex>

#include "runtime/clock.h"

namespace ferry {

namespace {

struct Defaults {
  std::mutex mu;
  spdlog::level::level_enum level;
  std::vector<spdlog::sink_ptr> sinks;
  Defaults() {
    const char* env = std::getenv("FERRY_LOG");
    level = env ? spdlog::level::from_str(env) : spdlog::level::info;
    sinks.push_back(std::make_shared<spdlog::sinks::stderr_color_sink_mt>());
  }
};
Defaults& defaults() {
  static Defaults d;
  return d;
}

// %V: the node's virtual time in seconds with microseconds.
class VirtualTimeFlag final : public spdlog::custom_flag_formatter {
 public:
  explicit VirtualTimeFlag(const Clock* clock) : clock_(clock) {}
  void format(const spdlog::details::log_msg&, const std::tm&, spdlog::memory_buf_t& dest) override {
    const std::int64_t ns = to_ns(clock_->now());
    const auto text = fmt::format("{}.{:06}s", ns / 1'000'000'000, (ns % 1'000'000'000) / 1000);
    dest.append(text.data(), text.data() + text.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override {
    return std::make_unique<VirtualTimeFlag>(clock_);
  }

 private:
  const Clock* clock_;
};

}  // namespace

std::shared_ptr<spdlog::logger> make_node_logger(const std::string& node, const Clock* virtual_clock) {
  Defaults& d = defaults();
  std::lock_guard lock(d.mu);
  auto logger = std::make_shared<spdlog::logger>(node, d.sinks.begin(), d.sinks.end());
  logger->set_level(d.level);
  if (virtual_clock) {
    auto f = std::make_unique<spdlog::pattern_formatter>();
    f->add_flag<VirtualTimeFlag>('V', virtual_clock).set_pattern("[%V] [%n] [%^%l%$] %v");
    logger->set_formatter(std::move(f));
  } else {
    logger->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%n] [%^%l%$] %v");
  }
  return logger;
}

void set_default_log_level(spdlog::level::level_enum level) {
  Defaults& d = defaults();
  std::lock_guard lock(d.mu);
  d.level = level;
}

spdlog::level::level_enum default_log_level() {
  Defaults& d = defaults();
  std::lock_guard lock(d.mu);
  return d.level;
}

void set_default_log_sinks(std::vector<spdlog::sink_ptr> sinks) {
  Defaults& d = defaults();
  std::lock_guard lock(d.mu);
  d.sinks = std::move(sinks);
}

std::vector<spdlog::sink_ptr> default_log_sinks() {
  Defaults& d = defaults();
  std::lock_guard lock(d.mu);
  return d.sinks;
}

}  // namespace ferry
