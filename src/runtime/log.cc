#include "runtime/log.h"

#include <spdlog/pattern_formatter.h>
#include <spdlog/sinks/stdout_color_sinks.h>

#include <cstdlib>
#include <map>
#include <mutex>
#include <string_view>

#include "runtime/clock.h"

namespace ferry {

namespace {

struct Defaults {
  std::mutex mu;
  spdlog::level::level_enum level;
  spdlog::level::level_enum flush_level = spdlog::level::off;
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

// The clock of each simulated node's logger, by the logger's (node's) name.
struct NodeClocks {
  std::mutex mu;
  std::map<std::string, const Clock*, std::less<>> by_node;
};
NodeClocks& node_clocks() {
  static NodeClocks c;
  return c;
}

// %V: the logging node's virtual time in seconds with microseconds ("?" once its clock is gone).
class VirtualTimeFlag final : public spdlog::custom_flag_formatter {
 public:
  void format(const spdlog::details::log_msg& msg, const std::tm&, spdlog::memory_buf_t& dest) override {
    NodeClocks& c = node_clocks();
    std::string text = "?";
    {
      std::lock_guard lock(c.mu);
      auto it = c.by_node.find(std::string_view(msg.logger_name.data(), msg.logger_name.size()));
      if (it != c.by_node.end()) {
        const std::int64_t ns = to_ns(it->second->now());
        text = fmt::format("{}.{:06}s", ns / 1'000'000'000, (ns % 1'000'000'000) / 1000);
      }
    }
    dest.append(text.data(), text.data() + text.size());
  }
  std::unique_ptr<custom_flag_formatter> clone() const override { return std::make_unique<VirtualTimeFlag>(); }
};

}  // namespace

std::shared_ptr<spdlog::logger> make_node_logger(const std::string& node, const Clock* virtual_clock) {
  Defaults& d = defaults();
  std::lock_guard lock(d.mu);
  auto logger = std::make_shared<spdlog::logger>(node, d.sinks.begin(), d.sinks.end());
  logger->set_level(d.level);
  logger->flush_on(d.flush_level);
  if (virtual_clock) {
    {
      NodeClocks& c = node_clocks();
      std::lock_guard clocks_lock(c.mu);
      c.by_node[node] = virtual_clock;
    }
    auto f = std::make_unique<spdlog::pattern_formatter>();
    f->add_flag<VirtualTimeFlag>('V').set_pattern("[%V] [%n] [%^%l%$] %v");
    logger->set_formatter(std::move(f));
  } else {
    logger->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%n] [%^%l%$] %v");
  }
  return logger;
}

void forget_node_clock(const std::string& node, const Clock* virtual_clock) {
  NodeClocks& c = node_clocks();
  std::lock_guard lock(c.mu);
  auto it = c.by_node.find(node);
  if (it != c.by_node.end() && it->second == virtual_clock) c.by_node.erase(it);
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

void set_default_log_flush_level(spdlog::level::level_enum level) {
  Defaults& d = defaults();
  std::lock_guard lock(d.mu);
  d.flush_level = level;
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
