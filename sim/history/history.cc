#include "sim/history/history.h"

#include <fmt/format.h>

#include <tuple>

namespace ferry::sim {

const char* outcome_name(SendOutcome o) {
  switch (o) {
    case SendOutcome::ok: return "ok";
    case SendOutcome::stored_not_durable: return "stored-not-durable";
    case SendOutcome::failed: return "failed";
    case SendOutcome::unknown: return "unknown";
  }
  return "?";
}

const char* event_kind_name(EventKind k) {
  switch (k) {
    case EventKind::crash: return "crash";
    case EventKind::start: return "start";
    case EventKind::fault: return "fault";
    case EventKind::heal: return "heal";
    case EventKind::rebalance: return "rebalance";
    case EventKind::promote: return "promote";
  }
  return "?";
}

const char* request_outcome_name(RequestOutcome o) {
  switch (o) {
    case RequestOutcome::pending: return "pending";
    case RequestOutcome::replied: return "replied";
    case RequestOutcome::timed_out: return "timed_out";
    case RequestOutcome::failed: return "failed";
  }
  return "?";
}

std::string RequestRecord::id() const { return fmt::format("{}#{}", requester, seq); }

const char* tx_fate_name(TxFate f) {
  switch (f) {
    case TxFate::none: return "none";
    case TxFate::commit: return "commit";
    case TxFate::rollback: return "rollback";
  }
  return "?";
}

std::string SendRecord::id() const { return fmt::format("{}#{}", producer, seq); }

std::string ConsumeRecord::id() const { return intact ? fmt::format("{}#{}", producer, seq) : std::string("corrupt"); }

std::set<std::pair<std::string, std::uint64_t>> History::acked() const {
  std::set<std::pair<std::string, std::uint64_t>> out;
  for (const SendRecord& s : sends) {
    if (s.owed()) out.emplace(s.producer, s.seq);
  }
  return out;
}

std::set<std::pair<std::string, std::uint64_t>> History::consumed_by(const std::string& group) const {
  std::set<std::pair<std::string, std::uint64_t>> out;
  for (const ConsumeRecord& c : consumes) {
    if (c.group == group && c.intact) out.emplace(c.producer, c.seq);
  }
  return out;
}

std::set<std::string> History::groups() const {
  std::set<std::string> out;
  for (const auto& [group, topics] : subscriptions) out.insert(group);
  for (const ConsumeRecord& c : consumes) out.insert(c.group);
  return out;
}

bool History::broadcast_group(const std::string& group) const {
  for (const auto& [name, info] : consumers) {
    if (info.group == group && info.broadcast) return true;
  }
  return false;
}

std::string History::audience(const ConsumeRecord& c) const {
  auto it = consumers.find(c.consumer);
  if (it != consumers.end() && it->second.broadcast) return c.group + "/" + c.consumer;
  return c.group;
}

void History::record_consumer(MonoTime at, const std::string& name, ConsumerInfo info) {
  const auto held = hold();
  auto [it, fresh] = consumers.emplace(name, std::move(info));
  if (fresh) it->second.first_start = at;
}

void History::record_event(MonoTime at, EventKind kind, std::string target, std::string detail) {
  const auto held = hold();
  events.push_back(Event{at, kind, std::move(target), std::move(detail)});
}

bool broker_logged_error_since(const History& h, const std::string& broker, MonoTime from) {
  for (const LogLine& l : h.error_logs) {
    if (l.at >= from && (l.node == broker || l.node.rfind(broker + "-", 0) == 0)) return true;
  }
  return false;
}

bool pop_order(const ConsumeRecord& a, const ConsumeRecord& b) {
  auto drift = [](MonoTime t) {
    return std::chrono::duration_cast<Duration>(t.time_since_epoch() / 1000) + std::chrono::milliseconds(1);
  };
  if (a.at + drift(b.pop->requested_at) <= b.pop->requested_at) return true;
  if (b.at + drift(a.pop->requested_at) <= a.pop->requested_at) return false;
  if (a.queue.broker_name == b.queue.broker_name && a.pop->pop_time_ms >= 0 && b.pop->pop_time_ms >= 0 &&
      a.pop->pop_time_ms != b.pop->pop_time_ms) {
    return a.pop->pop_time_ms < b.pop->pop_time_ms;
  }
  return std::tie(a.pop->requested_at, a.reconsume_times) < std::tie(b.pop->requested_at, b.reconsume_times);
}

void pop_sort(const History& h, std::vector<std::uint64_t>& deliveries) {
  for (std::size_t i = 1; i < deliveries.size(); ++i) {
    for (std::size_t j = i; j > 0 && pop_order(h.consumes[deliveries[j]], h.consumes[deliveries[j - 1]]); --j) {
      std::swap(deliveries[j], deliveries[j - 1]);
    }
  }
}

void History::rebase_times(Duration origin) {
  const auto held = hold();
  auto move = [origin](MonoTime& t) {
    if (t != MonoTime{}) t -= origin;
  };
  for (SendRecord& r : sends) {
    move(r.sent_at);
    move(r.done_at);
    if (r.verdict_at) move(*r.verdict_at);
  }
  for (RequestRecord& r : requests) {
    move(r.sent_at);
    if (r.done_at) move(*r.done_at);
  }
  for (ConsumeRecord& r : consumes) {
    move(r.at);
    if (r.lock_at) move(*r.lock_at);
    if (r.pop) {
      move(r.pop->requested_at);
      move(r.pop->invisible_until);
    }
  }
  for (PopAckRecord& r : pop_acks) {
    move(r.sent_at);
    move(r.done_at);
  }
  for (Event& e : events) move(e.at);
  for (RouteRecord& r : routes) move(r.at);
  for (RegistrationRecord& r : registrations) move(r.at);
  for (auto& [name, c] : consumers) {
    move(c.first_start);
    if (c.left_at) move(*c.left_at);
  }
  for (CommitRecord& r : commits) move(r.at);
  for (TakeRecord& r : takes) move(r.at);
  for (QueueFloorRecord& r : queue_floors) move(r.at);
  for (StoreRestartRecord& r : store_restarts) move(r.at);
  for (ControllerViewRecord& r : controller_views) move(r.at);
  for (BrokerEpochRecord& r : broker_epochs) move(r.at);
  for (LogLine& l : error_logs) move(l.at);
}

void History::record_error_log(LogLine line) {
  const auto held = hold();
  if (error_logs.size() < kErrorLogsKeptMax) {
    error_logs.push_back(std::move(line));
  } else {
    ++error_logs_not_kept;
  }
}

std::int64_t ms_of(MonoTime t) { return to_ms(t - MonoTime{}); }

}  // namespace ferry::sim
