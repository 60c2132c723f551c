#include "sim/real/real_logs.h"

#include <spdlog/sinks/base_sink.h>

#include <chrono>
#include <ctime>
#include <fstream>
#include <mutex>

#include "sim/real/real_cluster.h"

namespace ferry::sim::real {

namespace {

class HistoryErrorSink final : public spdlog::sinks::base_sink<std::mutex> {
 public:
  explicit HistoryErrorSink(std::shared_ptr<sim::History> history) : history_(std::move(history)) {
    set_level(spdlog::level::err);
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    if (msg.level < spdlog::level::err) return;
    sim::LogLine line;
    line.at = real_now();
    line.node = std::string(msg.logger_name.data(), msg.logger_name.size());
    line.level = std::string(spdlog::level::to_string_view(msg.level).data(), spdlog::level::to_string_view(msg.level).size());
    line.text = std::string(msg.payload.data(), msg.payload.size());
    history_->record_error_log(std::move(line));
  }
  void flush_() override {}

 private:
  std::shared_ptr<sim::History> history_;
};

// "[2026-12-06 03:40:01.123] [broker-a] [error] text" -> its parts; false for another shape.
bool parse_line(const std::string& l, std::tm& when, int& ms, std::string& node, std::string& level, std::string& text) {
  if (l.size() < 26 || l[0] != '[' || l[24] != ']') return false;
  if (std::sscanf(l.c_str(), "[%4d-%2d-%2d %2d:%2d:%2d.%3d]", &when.tm_year, &when.tm_mon, &when.tm_mday, &when.tm_hour,
                  &when.tm_min, &when.tm_sec, &ms) != 7) {
    return false;
  }
  when.tm_year -= 1900;
  when.tm_mon -= 1;
  when.tm_isdst = -1;
  std::size_t at = 26;
  auto bracket = [&](std::string& out) {
    if (at >= l.size() || l[at] != '[') return false;
    const std::size_t end = l.find(']', at);
    if (end == std::string::npos) return false;
    out = l.substr(at + 1, end - at - 1);
    at = end + 2;
    return true;
  };
  if (!bracket(node) || !bracket(level)) return false;
  text = at <= l.size() ? l.substr(at) : "";
  return true;
}

}  // namespace

spdlog::sink_ptr history_error_sink(std::shared_ptr<sim::History> history) {
  return std::make_shared<HistoryErrorSink>(std::move(history));
}

std::size_t record_daemon_errors(const std::string& file, sim::History& history) {
  std::ifstream in(file);
  std::string l;
  std::size_t n = 0;
  const auto wall_now = std::chrono::system_clock::now();
  const MonoTime mono_now = real_now();
  while (std::getline(in, l)) {
    std::tm when{};
    int ms = 0;
    std::string node, level, text;
    if (!parse_line(l, when, ms, node, level, text)) continue;
    if (level != "error" && level != "critical") continue;
    const std::time_t secs = std::mktime(&when);
    const auto wall = std::chrono::system_clock::from_time_t(secs) + std::chrono::milliseconds(ms);
    sim::LogLine line;
    line.at = mono_now - std::chrono::duration_cast<Duration>(wall_now - wall);
    line.node = std::move(node);
    line.level = std::move(level);
    line.text = std::move(text);
    history.record_error_log(std::move(line));
    ++n;
  }
  return n;
}

}  // namespace ferry::sim::real
