// The timeline's lane kinds, one function each: each reads a History and adds its lanes (or its
// marks on lanes already there) to a Timeline. x is milliseconds since `origin` (ms_since). To
// show a new kind of record (route changes, offset commits), add one function here and call it
// from report_model.cc; the page draws any lane the same way (columns of counts, marks).
//
//   add_send_lanes     one lane "broker" per broker group: each send at the time its outcome was
//                      known, counted as ok / not durable / failed / unknown. A stored send goes
//                      to the group that stored it; a failed or unknown one to the group its error
//                      names last (the last broker tried), else to one lane "unplaced".
//   add_consume_lanes  one lane "consumer" per consumer node: each delivery counted as first (the
//                      first time its group saw the message), again (a redelivery) or corrupt.
//   add_event_marks    every History event (crash, start, fault, heal, rebalance, promote) as a
//                      mark on its node's lane (a broker node marks its group's lane:
//                      "broker-a-s1" is broker-a's), else on one lane "events" for the other nodes.
//   add_route_marks    one lane "routes": every change of a NameServer's or a client's route of a
//                      topic after the first one it showed (History::routes), as a mark naming
//                      the observer and the groups the route then had.
//   add_metric_lanes   the nodes' metrics as sampled every second (History::metric_samples):
//                      lanes "metric" for the whole cluster's produce and consume rates (messages
//                      a column) and refused requests, then per node with any: consumer lag
//                      (messages), replication lag (bytes behind, a master's slaves summed) and
//                      flush behind (bytes). A gauge's column shows the largest value it held
//                      then. Lanes of metrics that stayed 0 are left out.
//
// The lanes named in `groups` / `consumers` come first, in that order, even when empty; others
// the history mentions follow, sorted by name.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/time.h"
#include "sim/history/history.h"
#include "sim/report/timeline.h"

namespace ferry::sim::report {

inline constexpr const char* kLaneBroker = "broker";
inline constexpr const char* kLaneUnplaced = "unplaced";
inline constexpr const char* kLaneConsumer = "consumer";
inline constexpr const char* kLaneEvents = "events";
inline constexpr const char* kLaneRoutes = "routes";
inline constexpr const char* kLaneMetric = "metric";

// Milliseconds from origin to t (negative when t is earlier).
std::int64_t ms_since(MonoTime origin, MonoTime t);

void add_send_lanes(Timeline& t, const sim::History& h, MonoTime origin, const std::vector<std::string>& groups);
void add_consume_lanes(Timeline& t, const sim::History& h, MonoTime origin, const std::vector<std::string>& consumers);
void add_event_marks(Timeline& t, const sim::History& h, MonoTime origin);
void add_route_marks(Timeline& t, const sim::History& h, MonoTime origin);
void add_metric_lanes(Timeline& t, const sim::History& h, MonoTime origin);

}  // namespace ferry::sim::report
