#include "store/cleanup_service.h"

#include <fmt/format.h>

#include "runtime/assert.h"

namespace ferry::store {

std::string_view disk_pressure_name(DiskPressure p) {
  switch (p) {
    case DiskPressure::normal: return "normal";
    case DiskPressure::over_max_used: return "over_max_used";
    case DiskPressure::clean_forcibly: return "clean_forcibly";
    case DiskPressure::full: return "full";
  }
  return "unknown";
}

namespace {

std::int64_t used_percent(const SpaceInfo& space) {
  if (space.capacity_bytes == 0) return 0;
  const std::uint64_t free = std::min(space.free_bytes, space.capacity_bytes);
  const std::uint64_t used = space.capacity_bytes - free;
  // used <= capacity, so used * 100 overflows only for disks beyond 184 PB.
  return static_cast<std::int64_t>(used * 100 / space.capacity_bytes);
}

}  // namespace

DiskPressure disk_pressure(const SpaceInfo& space, const StoreConfig& config) {
  const std::int64_t pct = used_percent(space);
  if (pct >= config.disk_space_warning_level_ratio_pct) return DiskPressure::full;
  if (pct >= config.disk_space_clean_forcibly_ratio_pct) return DiskPressure::clean_forcibly;
  if (pct >= config.disk_max_used_space_ratio_pct) return DiskPressure::over_max_used;
  return DiskPressure::normal;
}

bool is_delete_hour(WallMs now_ms, std::string_view delete_when) {
  constexpr std::int64_t kHourMs = 3'600'000;
  const std::int64_t hour = ((now_ms / kHourMs) % 24 + 24) % 24;
  // "04;16": two-digit (or one-digit) hours separated by ';'; anything else never matches.
  while (!delete_when.empty()) {
    const auto semi = delete_when.find(';');
    const std::string_view item = delete_when.substr(0, semi);
    std::int64_t h = 0;
    bool digits = !item.empty() && item.size() <= 2;
    for (const char c : item) {
      digits = digits && c >= '0' && c <= '9';
      if (digits) h = h * 10 + (c - '0');
    }
    if (digits && h == hour) return true;
    if (semi == std::string_view::npos) break;
    delete_when.remove_prefix(semi + 1);
  }
  return false;
}

CleanupService::CleanupService(Runtime& rt, CommitLog& log, ConsumeQueueTable& queues,
                               IndexService& index, const StoreConfig& config)
    : rt_(rt), log_(log), queues_(queues), index_(index), config_(config) {
  FERRY_ASSERT(config.clean_resource_interval > Duration::zero(),
               "clean_resource_interval must be positive, got {} ns", config.clean_resource_interval.count());
  FERRY_ASSERT(config.disk_max_used_space_ratio_pct <= config.disk_space_clean_forcibly_ratio_pct,
               "disk ratios out of order: max used {} > clean forcibly {}",
               config.disk_max_used_space_ratio_pct, config.disk_space_clean_forcibly_ratio_pct);
  FERRY_ASSERT(config.disk_space_clean_forcibly_ratio_pct <= config.disk_space_warning_level_ratio_pct,
               "disk ratios out of order: clean forcibly {} > warning level {}",
               config.disk_space_clean_forcibly_ratio_pct, config.disk_space_warning_level_ratio_pct);
  FERRY_ASSERT(config.delete_files_batch_max > 0, "delete_files_batch_max must be positive, got {}",
               config.delete_files_batch_max);
}

DiskPressure CleanupService::refresh_disk() {
  auto space = rt_.fs().space();
  if (!space.ok()) {
    if (auto held = space_error_log_.admit(rt_.now(), static_cast<std::int64_t>(space.error().code))) {
      rt_.log().error("store: cannot read the disk use: {}{}", space.error().to_string(), held_back_note(*held));
    }
    return pressure_;
  }
  const DiskPressure before = pressure_;
  pressure_ = disk_pressure(*space, config_);
  used_pct_ = used_percent(*space);
  if (pressure_ != before) {
    const auto level = pressure_ == DiskPressure::full ? spdlog::level::err : spdlog::level::warn;
    rt_.log().log(level, "store: disk {}% used: {} -> {}{}", used_pct_, disk_pressure_name(before),
                  disk_pressure_name(pressure_),
                  pressure_ == DiskPressure::full ? " (puts are refused)" : "");
  }
  return pressure_;
}

Result<CleanupReport> CleanupService::run_once() {
  CleanupReport report;
  report.pressure = refresh_disk();
  report.used_pct = used_pct_;
  const WallMs now = rt_.wall_ms();
  report.at_once = pressure_ == DiskPressure::clean_forcibly || pressure_ == DiskPressure::full;
  report.commit_log_pass = report.at_once || pressure_ == DiskPressure::over_max_used ||
                           is_delete_hour(now, config_.delete_when);
  if (report.commit_log_pass) {
    auto n = log_.remove_expired(now, config_.file_reserved_time, report.at_once,
                                 static_cast<std::size_t>(config_.delete_files_batch_max));
    if (!n.ok()) return std::move(n).error();
    report.commit_log_files = *n;
    if (*n > 0) {
      rt_.log().info("store: cleanup removed {} CommitLog file(s) (disk {}%, {}); log now starts at {}",
                     *n, used_pct_, report.at_once ? "at once" : "expired", log_.min_offset().value());
    }
  }
  FERRY_TRY(clean_below_log_min(report));
  if (report.commit_log_files > 0) refresh_disk();
  return report;
}

Status CleanupService::clean_below_log_min(CleanupReport& report) {
  const PhysicalOffset log_min = log_.min_offset();
  for (auto& [key, q] : queues_) {
    auto n = q->remove_files_before(log_min);
    if (!n.ok()) return std::move(n).error();
    report.consume_queue_files += *n;
    if (q->min_offset() < q->max_offset()) FERRY_TRY(q->correct_min_offset(log_min));
  }
  auto n = index_.remove_files_before(log_min);
  if (!n.ok()) return std::move(n).error();
  report.index_files += *n;
  return {};
}

Task<void> CleanupService::run_loop() {
  while (!stopped_) {
    Duration wait = config_.clean_resource_interval;
    // buggify: the next pass runs at an odd moment, anywhere within the interval (early).
    if (FERRY_BUGGIFY(rt_)) wait = std::chrono::milliseconds(rt_.random().between(1, to_ms(wait)));
    co_await rt_.sleep(wait);
    if (stopped_) break;
    auto report = run_once();
    if (!report.ok()) {
      if (auto held = failure_log_.admit(rt_.now(), static_cast<std::int64_t>(report.error().code))) {
        rt_.log().error("store: cleanup failed: {}{}", report.error().to_string(), held_back_note(*held));
      }
    }
  }
}

}  // namespace ferry::store
