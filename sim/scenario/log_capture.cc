#include "sim/scenario/log_capture.h"

#include <spdlog/details/null_mutex.h>
#include <spdlog/sinks/base_sink.h>
#include <spdlog/sinks/dist_sink.h>

#include <algorithm>
#include <optional>
#include <string_view>
#include <utility>

#include "runtime/assert.h"
#include "runtime/log.h"

namespace ferry::sim::scenario {

// The run's capture sink. Ignores the formatter: it keeps the message alone, with the logger's
// (the node's) name, the level and the World's time.
class CaptureSink final : public spdlog::sinks::base_sink<spdlog::details::null_mutex> {
 public:
  explicit CaptureSink(std::size_t ring_capacity) : ring_(ring_capacity) { set_level(spdlog::level::info); }

  void attach(const World& world, std::shared_ptr<sim::History> history) {
    FERRY_ASSERT(world_ == nullptr && history_ == nullptr, "a log capture attached twice");
    FERRY_ASSERT(history != nullptr, "a log capture attached to no History");
    FERRY_ASSERT(open_, "a log capture attached after it finished");
    world_ = &world;
    history_ = std::move(history);
    for (sim::LogLine& line : before_attach_.error_logs) history_->record_error_log(std::move(line));
    history_->error_logs_not_kept += before_attach_.error_logs_not_kept;
    before_attach_ = sim::History{};
  }

  RecentLogs finish() {
    open_ = false;
    world_ = nullptr;
    history_.reset();
    return std::exchange(ring_, RecentLogs(1));
  }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    if (!open_) return;
    const MonoTime at = world_ != nullptr ? world_->now() : MonoTime{};
    const std::string_view node(msg.logger_name.data(), msg.logger_name.size());
    const std::string_view level(spdlog::level::to_string_view(msg.level).data(), spdlog::level::to_string_view(msg.level).size());
    const std::string_view text(msg.payload.data(), msg.payload.size());
    ring_.push(at, node, level, text);
    if (msg.level < spdlog::level::err) return;
    sim::History& h = history_ != nullptr ? *history_ : before_attach_;
    h.record_error_log(sim::LogLine{at, std::string(node), std::string(level), std::string(text)});
  }
  void flush_() override {}

 private:
  bool open_ = true;
  const World* world_ = nullptr;
  std::shared_ptr<sim::History> history_;
  sim::History before_attach_;  // error lines logged before attach() (only its error_logs are used)
  RecentLogs ring_;
};

LogCapture::LogCapture(std::size_t ring_capacity) : sink_(std::make_shared<CaptureSink>(ring_capacity)) {}

LogCapture::~LogCapture() { (void)sink_->finish(); }

LogSettings LogCapture::settings(const LogSettings& printing) const {
  // What would be printed goes on being printed, at the level it would be.
  auto filtered = std::make_shared<spdlog::sinks::dist_sink_mt>(printing.sinks);
  filtered->set_level(printing.level);
  return LogSettings{{std::move(filtered), sink_}, std::min(printing.level, spdlog::level::info), printing.flush_level};
}

void LogCapture::attach(const World& world, std::shared_ptr<sim::History> history) { sink_->attach(world, std::move(history)); }

RecentLogs LogCapture::finish() { return sink_->finish(); }

}  // namespace ferry::sim::scenario
