// Helpers for the named checks' tests: sends with chosen times, route and registration records.
#pragma once

#include <map>
#include <string>

#include "tests/sim/check/history_builder.h"

namespace ferry::sim::check::testing {

// A send of producer#seq that started at `sent_ms` and ended at `done_ms`.
inline void timed_send(HistoryBuilder& b, std::string producer, std::uint64_t seq, MessageQueue q, std::int64_t sent_ms,
                       std::int64_t done_ms, SendOutcome outcome = SendOutcome::ok) {
  b.send(std::move(producer), seq, std::move(q), static_cast<std::int64_t>(seq), outcome);
  b.h.sends.back().sent_at = at_ms(sent_ms);
  b.h.sends.back().done_at = at_ms(done_ms);
}

// A route of topic "Orders" seen by `observer`: every group in `masters` with a master, 4 queues.
inline void route(HistoryBuilder& b, std::int64_t ms, std::string observer, std::map<std::string, bool> masters,
                  std::int32_t queues = 4) {
  RouteRecord r{at_ms(ms), std::move(observer), "Orders", {}};
  for (const auto& [g, master] : masters) r.groups[g] = RouteGroup{queues, queues, master};
  b.h.routes.push_back(std::move(r));
}

inline void registration(HistoryBuilder& b, std::int64_t ms, std::string namesrv, std::string broker) {
  b.h.registrations.push_back(RegistrationRecord{at_ms(ms), std::move(namesrv), std::move(broker)});
}

}  // namespace ferry::sim::check::testing
