// The named checks as history files of versions 5 and 6 held them (before the checker registry):
// one typed field for each of the five named checks of that time, durations in whole
// milliseconds. A reader of such a file loads them as the same checks' options
// (CheckSettings::named). Internal to history_codec.cc; nothing writes this form any more.
#pragma once

#include <cereal/types/optional.hpp>
#include <cereal/types/string.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "sim/history/history.h"

namespace ferry::sim::v6 {

struct LegacyFailover {
  std::string group;
  std::int64_t sends_resume_within_ms = 0, consume_from_slave_within_ms = 0, writes_after_promotion_within_ms = 0;
  template <class Ar>
  void serialize(Ar& ar) {
    ar(cereal::make_nvp("group", group), cereal::make_nvp("sends_resume_within_ms", sends_resume_within_ms),
       cereal::make_nvp("consume_from_slave_within_ms", consume_from_slave_within_ms),
       cereal::make_nvp("writes_after_promotion_within_ms", writes_after_promotion_within_ms));
  }
};
struct LegacyRouteStaleness {
  std::string group;
  std::int64_t namesrv_drop_within_ms = 0, client_route_within_ms = 0;
  template <class Ar>
  void serialize(Ar& ar) {
    ar(cereal::make_nvp("group", group), cereal::make_nvp("namesrv_drop_within_ms", namesrv_drop_within_ms),
       cereal::make_nvp("client_route_within_ms", client_route_within_ms));
  }
};
struct LegacyLatencyBackoff {
  std::string group;
  std::int64_t slack_ms = 0;
  template <class Ar>
  void serialize(Ar& ar) {
    ar(cereal::make_nvp("group", group), cereal::make_nvp("slack_ms", slack_ms));
  }
};
struct LegacyOffsetPersistence {
  std::int64_t persist_interval_ms = 0, slack_ms = 0;
  template <class Ar>
  void serialize(Ar& ar) {
    ar(cereal::make_nvp("persist_interval_ms", persist_interval_ms), cereal::make_nvp("slack_ms", slack_ms));
  }
};
struct LegacySendOutcomes {
  std::int64_t failed_max = -1, unknown_max = -1, not_durable_min = 0, slow_ms = 0, slow_ok_min = 0;
  std::string group;
  std::int64_t writes_resume_within_ms = 0;
  template <class Ar>
  void serialize(Ar& ar) {
    ar(cereal::make_nvp("failed_max", failed_max), cereal::make_nvp("unknown_max", unknown_max),
       cereal::make_nvp("not_durable_min", not_durable_min), cereal::make_nvp("slow_ms", slow_ms),
       cereal::make_nvp("slow_ok_min", slow_ok_min), cereal::make_nvp("group", group),
       cereal::make_nvp("writes_resume_within_ms", writes_resume_within_ms));
  }
};

inline Duration ms(std::int64_t v) { return std::chrono::milliseconds(v); }

// Reads the five optional fields (and expected_errors, which stood between them) of a version 5
// or 6 file's settings and fills s.named and s.expected_errors.
template <class Ar>
void load_v6_named_checks(Ar& ar, CheckSettings& s) {
  std::optional<LegacyFailover> failover;
  std::optional<LegacyRouteStaleness> route_staleness;
  std::optional<LegacyLatencyBackoff> latency_backoff;
  std::optional<LegacyOffsetPersistence> offset_persistence;
  std::optional<LegacySendOutcomes> send_outcomes;
  ar(cereal::make_nvp("failover", failover), cereal::make_nvp("route_staleness", route_staleness),
     cereal::make_nvp("latency_backoff", latency_backoff), cereal::make_nvp("offset_persistence", offset_persistence));
  ar(cereal::make_nvp("expected_errors", s.expected_errors), cereal::make_nvp("send_outcomes", send_outcomes));
  if (failover) {
    s.named["failover"] = {{"group", failover->group},
                           {"sends_resume_within", ms(failover->sends_resume_within_ms)},
                           {"consume_from_slave_within", ms(failover->consume_from_slave_within_ms)},
                           {"writes_after_promotion_within", ms(failover->writes_after_promotion_within_ms)}};
  }
  if (route_staleness) {
    s.named["route_staleness"] = {{"broker", route_staleness->group},
                                  {"namesrv_drop_within", ms(route_staleness->namesrv_drop_within_ms)},
                                  {"client_route_within", ms(route_staleness->client_route_within_ms)}};
  }
  if (latency_backoff) {
    s.named["latency_backoff"] = {{"broker", latency_backoff->group}, {"slack", ms(latency_backoff->slack_ms)}};
  }
  if (offset_persistence) {
    s.named["offset_persistence"] = {{"persist_interval", ms(offset_persistence->persist_interval_ms)},
                                     {"slack", ms(offset_persistence->slack_ms)}};
  }
  if (send_outcomes) {
    s.named["send_outcomes"] = {{"failed_max", send_outcomes->failed_max},
                                {"unknown_max", send_outcomes->unknown_max},
                                {"not_durable_min", send_outcomes->not_durable_min},
                                {"slow", ms(send_outcomes->slow_ms)},
                                {"slow_ok_min", send_outcomes->slow_ok_min},
                                {"group", send_outcomes->group},
                                {"writes_resume_within", ms(send_outcomes->writes_resume_within_ms)}};
  }
}

}  // namespace ferry::sim::v6
