#include "sim/check/committed_offsets.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace ferry::sim::check {

namespace {

using Stream = std::tuple<std::string, std::string, MessageQueue>;  // (broker, group, queue)
// Who consumed a queue for a group, in time order: (at, consumer).
using Deliveries = std::map<std::pair<std::string, MessageQueue>, std::vector<std::pair<MonoTime, const std::string*>>>;

Deliveries deliveries_by_queue(const History& h) {
  Deliveries out;
  for (const ConsumeRecord& c : h.consumes) out[{c.group, c.queue}].emplace_back(c.at, &c.consumer);
  for (auto& [key, list] : out) {
    std::stable_sort(list.begin(), list.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  }
  return out;
}

// Two members of the group consumed the queue in [from, to]: they held it at once, or one after
// the other (a hand-over); either way each commits its own offset.
std::string shared_queue(const Deliveries& deliveries, const CommitRecord& cur, MonoTime from) {
  auto it = deliveries.find({cur.group, cur.queue});
  if (it == deliveries.end()) return "";
  const auto& list = it->second;
  auto first = std::lower_bound(list.begin(), list.end(), from, [](const auto& d, MonoTime t) { return d.first < t; });
  for (auto d = first; d != list.end() && d->first <= cur.at; ++d) {
    if (*d->second != *first->second) {
      return fmt::format("{} and {} both consumed the queue between {} ms and {} ms", *first->second, *d->second,
                         ms_of(first->first), ms_of(d->first));
    }
  }
  return "";
}

bool loses_offset_file(const Event& e) {
  return e.detail.find("power_off") != std::string::npos || e.detail.find("wipe") != std::string::npos;
}

// Why the step back from `prev` to `cur` is allowed, or "" when nothing explains it.
// A broker node that became its group's master at `at`; `previous` is the master it followed.
struct Mastership {
  MonoTime at{};
  std::string node;
  std::string previous;
};

// Every change of master: in controller mode from the controllers' views (the first view of each
// new master epoch), and an operator's promotion (a promote event: its group's old master is the
// node named as the group).
std::vector<Mastership> masterships(const History& h) {
  std::vector<Mastership> out;
  std::map<std::string, std::pair<std::int32_t, std::string>> last;  // group -> (epoch, master)
  for (const ControllerViewRecord& v : h.controller_views) {
    auto& [epoch, master] = last[v.group];
    if (v.master_epoch <= epoch || v.master.empty()) continue;
    if (v.master != master) out.push_back(Mastership{v.at, v.master, master});
    epoch = v.master_epoch;
    master = v.master;
  }
  for (const Event& e : h.events) {
    const std::size_t slave = e.target.rfind("-s");
    if (e.kind == EventKind::promote && slave != std::string::npos) {
      out.push_back(Mastership{e.at, e.target, e.target.substr(0, slave)});
    }
  }
  return out;
}

using Streams = std::map<Stream, std::vector<const CommitRecord*>>;

// The last value of a stream at or before `at`, or nullptr.
const CommitRecord* value_at(const Streams& streams, const Stream& key, MonoTime at) {
  auto it = streams.find(key);
  if (it == streams.end()) return nullptr;
  const CommitRecord* last = nullptr;
  for (const CommitRecord* r : it->second) {
    if (r->at > at) break;
    last = r;
  }
  return last;
}

struct Context {
  const History& h;
  const Deliveries& deliveries;
  const std::vector<Mastership>& masterships;
  const Streams& streams;
};

// `cur`'s broker became master between the two records: its table is what it copied from the
// master it followed (slave sync, every kSlaveSyncInterval), so the value may step back, but not
// below what that master held kSlaveSyncInterval (and the observer's slack) before the change.
std::string promotion(const Context& c, const CommitRecord& prev, const CommitRecord& cur) {
  for (const Mastership& m : c.masterships) {
    if (m.node != cur.broker || m.at < prev.at || m.at > cur.at) continue;
    const CommitRecord* floor =
        m.previous.empty() ? nullptr
                           : value_at(c.streams, Stream{m.previous, cur.group, cur.queue}, m.at - kSlaveSyncInterval - kObserverSlack);
    if (floor == nullptr || cur.offset >= floor->offset) {
      return fmt::format("{} became master at {} ms (its offsets were copied from {})", m.node, ms_of(m.at),
                         m.previous.empty() ? "no master" : m.previous);
    }
  }
  return "";
}

std::string explanation(const Context& c, const std::set<std::string>& members, const std::vector<const CommitRecord*>& stream,
                        const CommitRecord& prev, const CommitRecord& cur) {
  const History& h = c.h;
  if (std::string shared = shared_queue(c.deliveries, cur, prev.at - kGroupEventReach); !shared.empty()) return shared;
  if (std::string promoted = promotion(c, prev, cur); !promoted.empty()) return promoted;
  // A member took the queue: until the previous holder sees it lost the queue, both commit it.
  for (const TakeRecord& t : h.takes) {
    if (t.at > cur.at) break;
    if (t.queue == cur.queue && members.count(t.consumer) > 0 && t.at + kGroupEventReach >= prev.at) {
      return fmt::format("{} took the queue at {} ms", t.consumer, ms_of(t.at));
    }
  }
  for (const Event& e : h.events) {
    if (e.at > cur.at) break;
    if (members.count(e.target) > 0 && e.at + kGroupEventReach >= prev.at) {
      return fmt::format("{} {} at {} ms", event_kind_name(e.kind), e.target, ms_of(e.at));
    }
    if (e.target != cur.broker || e.at < prev.at || (e.kind != EventKind::crash && e.kind != EventKind::start)) continue;
    if (loses_offset_file(e)) return fmt::format("{} of {} at {} ms ({})", event_kind_name(e.kind), e.target, ms_of(e.at), e.detail);
    // The reload brings back what was persisted: at least what the broker held kBrokerPersistLoss
    // (and the observer's slack) before the crash.
    const MonoTime persisted_by = e.at - kBrokerPersistLoss - kObserverSlack;
    const CommitRecord* floor = nullptr;
    for (const CommitRecord* r : stream) {
      if (r->at > persisted_by) break;
      floor = r;
    }
    if (floor == nullptr || cur.offset >= floor->offset) {
      return fmt::format("{} of {} at {} ms", event_kind_name(e.kind), e.target, ms_of(e.at));
    }
  }
  return "";
}

}  // namespace

Verdict check_committed_offsets(const History& h) {
  Verdict v;
  v.name = "committed-offsets";
  std::map<std::string, std::set<std::string>> members;  // group -> consumer nodes
  for (const auto& [name, info] : h.consumers) members[info.group].insert(name);
  for (const ConsumeRecord& c : h.consumes) members[c.group].insert(c.consumer);
  Streams streams;
  const Deliveries deliveries = deliveries_by_queue(h);
  const std::vector<Mastership> changes = masterships(h);
  const Context context{h, deliveries, changes, streams};
  std::int64_t explained = 0, unexplained = 0;
  for (const CommitRecord& r : h.commits) {
    std::vector<const CommitRecord*>& stream = streams[Stream{r.broker, r.group, r.queue}];
    const CommitRecord* prev = stream.empty() ? nullptr : stream.back();
    if (prev != nullptr && r.offset < prev->offset) {
      if (!explanation(context, members[r.group], stream, *prev, r).empty()) {
        ++explained;
      } else {
        ++unexplained;
        v.violation(fmt::format("{} committed offset of {} on {} went back from {} (at {} ms) to {} (at {} ms) with no crash of the "
                                "broker nor event of the group that explains it",
                                r.queue.to_string(), r.group, r.broker, prev->offset.value(), ms_of(prev->at), r.offset.value(),
                                ms_of(r.at)));
      }
    }
    stream.push_back(&r);
  }
  v.figures["commits"] = static_cast<std::int64_t>(h.commits.size());
  v.figures["streams"] = static_cast<std::int64_t>(streams.size());
  v.figures["backward_explained"] = explained;
  v.figures["backward_unexplained"] = unexplained;
  v.passed = unexplained == 0 || !h.settings.offsets_monotonic;
  return v;
}

CheckerSpec committed_offsets_checker() {
  return CheckerSpec{"committed-offsets", "a broker's committed offsets go back only when a crash of the broker or an event of the group explains it", true, {}, Record::commits | Record::consumers | Record::consumes | Record::events | Record::takes |
                         Record::controller_views,
                     [](const History& h, const OptionValues&) { return check_committed_offsets(h); }};
}

}  // namespace ferry::sim::check
