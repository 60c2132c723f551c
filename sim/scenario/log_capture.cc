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

  void attach(const World& world, std::shared_ptr<check::History> history) {
    FERRY_ASSERT(world_ == nullptr && history_ == nullptr, "a log capture attached twice");
    FERRY_ASSERT(history != nullptr, "a log capture attached to no History");
    FERRY_ASSERT(open_, "a log capture attached after it finished");
    world_ = &world;
    history_ = std::move(history);
    for (check::LogLine& line : before_attach_.error_logs) history_->record_error_log(std::move(line));
    history_->error_logs_not_kept += before_attach_.error_logs_not_kept;
    before_attach_ = check::History{};
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
    check::History& h = history_ != nullptr ? *history_ : before_attach_;
    h.record_error_log(check::LogLine{at, std::string(node), std::string(level), std::string(text)});
  }
  void flush_() override {}

 private:
  bool open_ = true;
  const World* world_ = nullptr;
  std::shared_ptr<check::History> history_;
  check::History before_attach_;  // error lines logged before attach() (only its error_logs are used)
  RecentLogs ring_;
};

LogCapture::LogCapture(std::size_t ring_capacity)
    : previous_sinks_(default_log_sinks()),
      previous_level_(default_log_level()),
      sink_(std::make_shared<CaptureSink>(ring_capacity)) {
  // What was printed before goes on being printed, at the level it was.
  auto printing = std::make_shared<spdlog::sinks::dist_sink_mt>(previous_sinks_);
  printing->set_level(previous_level_);
  set_default_log_sinks({std::move(printing), sink_});
  set_default_log_level(std::min(previous_level_, spdlog::level::info));
}

LogCapture::~LogCapture() {
  (void)sink_->finish();
  set_default_log_sinks(previous_sinks_);
  set_default_log_level(previous_level_);
}

void LogCapture::attach(const World& world, std::shared_ptr<check::History> history) { sink_->attach(world, std::move(history)); }

RecentLogs LogCapture::finish() { return sink_->finish(); }

}  // namespace ferry::sim::scenario
