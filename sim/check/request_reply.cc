#include "sim/check/request_reply.h"

#include <fmt/format.h>

#include <algorithm>

namespace ferry::sim::check {

namespace {

// The latest time any record of `h` names: where the run's observation ends.
MonoTime history_end(const History& h) {
  MonoTime end{};
  for (const SendRecord& s : h.sends) end = std::max({end, s.sent_at, s.done_at});
  for (const RequestRecord& r : h.requests) end = std::max(end, r.done_at.value_or(r.sent_at));
  for (const ConsumeRecord& c : h.consumes) end = std::max(end, c.at);
  for (const Event& e : h.events) end = std::max(end, e.at);
  return end;
}

// The first event naming `node` (or the whole cluster) in [from, to], if any.
const Event* event_of(const History& h, const std::string& node, MonoTime from, MonoTime to) {
  for (const Event& e : h.events) {
    if (e.at >= from && e.at <= to && (e.target == node || e.target.empty())) return &e;
  }
  return nullptr;
}

// A request's times are its requester's own monotonic clock, events the world's: in swarm runs a
// node's clock drifts from virtual time by up to 500 ppm (sim/swarm.cc), so an event that explains
// a request may be recorded up to this much before or after the request's reading of the moment.
Duration clock_margin(MonoTime node_time) {
  return std::chrono::duration_cast<Duration>(node_time.time_since_epoch() / 2000) + std::chrono::milliseconds(1);
}

}  // namespace

Verdict check_request_reply(const History& h) {
  Verdict v;
  v.name = "request-reply";
  const MonoTime end = history_end(h);
  std::int64_t replied = 0, timed_out = 0, failed = 0, pending = 0, wrong = 0, corrupt = 0, resolve_max = 0;
  for (const RequestRecord& r : h.requests) {
    const MonoTime bound = r.sent_at + r.timeout + kRequestSlack;
    const Duration margin = clock_margin(bound);
    const Event* excuse = event_of(h, r.requester, r.sent_at - clock_margin(r.sent_at), bound + margin);
    switch (r.outcome) {
      case RequestOutcome::replied: ++replied; break;
      case RequestOutcome::timed_out: ++timed_out; break;
      case RequestOutcome::failed: ++failed; break;
      case RequestOutcome::pending: ++pending; break;
    }
    if (r.outcome == RequestOutcome::replied && r.reply_of != r.id()) {
      const bool unreadable = r.reply_of == "corrupt";
      ++(unreadable ? corrupt : wrong);
      if (!unreadable || h.settings.corrupt_fails) {
        v.violation(unreadable ? fmt::format("request {} (sent at {} ms) got a reply whose body is corrupt, at {} ms", r.id(),
                                             ms_of(r.sent_at), ms_of(*r.done_at))
                               : fmt::format("request {} (sent at {} ms) got the reply to {} at {} ms", r.id(), ms_of(r.sent_at),
                                             r.reply_of, ms_of(*r.done_at)),
                    *r.done_at);
      }
    }
    if (r.done_at) {
      resolve_max = std::max(resolve_max, to_ms(*r.done_at - r.sent_at));
      if (*r.done_at > bound && excuse == nullptr) {
        v.violation(fmt::format("request {} ({}) took {} ms to resolve; its timeout is {} ms", r.id(),
                                request_outcome_name(r.outcome), to_ms(*r.done_at - r.sent_at), to_ms(r.timeout)),
                    *r.done_at);
      }
    } else if (end > bound + margin && excuse == nullptr) {
      v.violation(fmt::format("request {} (sent at {} ms, timeout {} ms) never resolved: no reply, no timeout, no error, "
                              "and its requester ran on",
                              r.id(), ms_of(r.sent_at), to_ms(r.timeout)),
                  bound);
    }
  }
  v.figures["requests"] = static_cast<std::int64_t>(h.requests.size());
  v.figures["replied"] = replied;
  v.figures["timed_out"] = timed_out;
  v.figures["failed"] = failed;
  v.figures["pending"] = pending;
  v.figures["wrong_replies"] = wrong;
  v.figures["corrupt_replies"] = corrupt;
  v.figures["resolve_max_ms"] = resolve_max;
  v.passed = v.violations == 0;
  return v;
}

CheckerSpec request_reply_checker() {
  return CheckerSpec{"request-reply",
                     "a request gets the reply that answers it or times out, never another request's reply",
                     true,
                     {},
                     Records(Record::requests) | Record::events | Record::sends | Record::consumes,
                     [](const History& h, const OptionValues&) { return check_request_reply(h); }};
}

}  // namespace ferry::sim::check
