#include "sim/check/registry.h"

#include <algorithm>

#include "runtime/assert.h"

namespace ferry::sim::check {

namespace {

constexpr const char* kRecordNames[kRecordKinds] = {
    "sends",     "consumes", "events", "subscriptions",  "routes",     "registrations",
    "consumers", "commits",  "takes",  "store_restarts", "error_logs", "producers", "controller_views", "broker_epochs",
    "queue_floors", "metric_samples", "requests", "pop_acks",
};

void check_spec(const CheckerSpec& s) {
  FERRY_ASSERT(!s.name.empty(), "a checker without a name");
  FERRY_ASSERT(static_cast<bool>(s.judge), "checker {} has no judge", s.name);
  FERRY_ASSERT(!s.always || s.options.empty(), "checker {} runs on every History but lists {} options", s.name,
               s.options.size());
  for (const OptionSpec& o : s.options) {
    FERRY_ASSERT(!o.name.empty(), "checker {} has an option without a name", s.name);
    FERRY_ASSERT(o.min <= o.max, "checker {} option {}: min {} > max {}", s.name, o.name, o.min, o.max);
    FERRY_ASSERT(o.min_duration <= o.max_duration, "checker {} option {}: its duration range is empty", s.name, o.name);
  }
}

}  // namespace

std::string records_text(Records r) {
  std::string out;
  for (std::uint32_t i = 0; i < kRecordKinds; ++i) {
    if ((r & (1u << i)) == 0) continue;
    if (!out.empty()) out += ", ";
    out += kRecordNames[i];
  }
  return out;
}

Records record_named(std::string_view name) {
  for (std::uint32_t i = 0; i < kRecordKinds; ++i) {
    if (name == kRecordNames[i]) return static_cast<Records>(1u << i);
  }
  return 0;
}

const CheckerRegistry& checkers() { return CheckerRegistry::instance("checker", &builtin_checkers, &check_spec); }

}  // namespace ferry::sim::check
