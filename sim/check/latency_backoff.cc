#include "sim/check/latency_backoff.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <vector>

namespace ferry::sim::check {

namespace {

// MQFaultStrategy's tables (RocketMQ 4.9), restated here: the checker is the client's judge and
// must not read its answer from the client's own constants.
constexpr std::array<std::int64_t, 7> kLatencyMax = {50, 100, 550, 1000, 2000, 3000, 15000};
constexpr std::array<std::int64_t, 7> kNotAvailable = {0, 0, 30000, 60000, 120000, 180000, 600000};
constexpr std::int64_t kFailureLatencyMs = 30000;
constexpr std::int64_t kTryAgainWithin = 20;   // sends elsewhere after a window before "never tried again"
constexpr std::int64_t kRoundRobinSends = 10;  // sends in a window before "avoided unasked"
constexpr auto kRoundRobinWindow = std::chrono::seconds(10);
constexpr std::size_t kWindowsShown = 5;  // per-window figures of an avoiding producer

// Where each send landed: its own queue, or for an unknown outcome where it was consumed.
std::map<std::pair<std::string, std::uint64_t>, std::string> consumed_on(const History& h) {
  std::map<std::pair<std::string, std::uint64_t>, std::string> out;
  for (const ConsumeRecord& c : h.consumes) {
    if (c.intact && c.reconsume_times == 0) out.try_emplace({c.producer, c.seq}, c.queue.broker_name);
  }
  return out;
}

struct Window {
  MonoTime from{};  // the end of the send that set it
  MonoTime until{};
  std::uint64_t cause_seq = 0;
  std::int64_t latency_ms = 0;
  std::size_t cause_index = 0;  // in the producer's sends
};

}  // namespace

std::int64_t expected_isolation_ms(std::int64_t latency_ms) {
  for (std::size_t i = kLatencyMax.size(); i-- > 0;) {
    if (latency_ms >= kLatencyMax[i]) return kNotAvailable[i];
  }
  return 0;
}

namespace {

// One producer's sends, judged: the avoidance windows its latency table would have set (worked
// out from the sends' latencies), what it sent inside them, whether it tried the group again
// after one, and, without sendLatencyFaultEnable, whether round robin went on.
class ProducerJudge {
 public:
  ProducerJudge(const History& h, const LatencyBackoffBounds& b, const std::string& producer,
                const std::vector<const SendRecord*>& sends,
                const std::map<std::pair<std::string, std::uint64_t>, std::string>& landed, Verdict& v)
      : b_(b),
        producer_(producer),
        sends_(sends),
        landed_(landed),
        v_(v),
        slack_(std::chrono::milliseconds(b.slack_ms)),
        enabled_(h.latency_fault_producers.count(producer) > 0) {}

  // The windows, as the producer's table would have them (the last update wins).
  void scan() {
    for (std::size_t i = 0; i < sends_.size(); ++i) {
      const SendRecord& s = *sends_[i];
      const std::optional<std::string> where = broker_of(s);
      const bool to_b = where && *where == b_.group;
      if (current_ && s.sent_at > current_->from + slack_ && s.sent_at < current_->until - slack_) {
        ++in_windows_;
        if (to_b) {
          ++to_group_;
          if (enabled_) {
            v_.violation(fmt::format("{} sent #{} to {} at {} ms, inside the {} ms avoidance set by #{} ({} ms latency) until {} ms",
                                     producer_, s.seq, b_.group, ms_of(s.sent_at), to_ms(current_->until - current_->from),
                                     current_->cause_seq, current_->latency_ms, ms_of(current_->until)),
                         s.sent_at);
          }
        }
      }
      if (!to_b) continue;
      const bool succeeded = s.outcome == SendOutcome::ok || s.outcome == SendOutcome::stored_not_durable;
      const std::int64_t latency = to_ms(s.done_at - s.sent_at);
      const std::int64_t isolation = expected_isolation_ms(succeeded ? latency : kFailureLatencyMs);
      if (current_ && s.done_at >= current_->until) close_window();  // this send may be the retry
      if (current_ && s.done_at < current_->until) {
        // Overwritten before it ended (RocketMQ keeps the last update only).
        windows_.push_back(Window{current_->from, s.done_at, current_->cause_seq, current_->latency_ms, current_->cause_index});
        longest_ = std::max(longest_, to_ms(s.done_at - current_->from));
      }
      current_ = Window{s.done_at, s.done_at + std::chrono::milliseconds(isolation), s.seq, succeeded ? latency : kFailureLatencyMs, i};
      if (isolation == 0) current_.reset();
    }
    if (current_) close_window();
  }

  // Without sendLatencyFaultEnable round robin goes on: a long, busy window with nothing to the
  // group means the group was avoided.
  void judge_round_robin() {
    if (enabled_) return;
    for (const Window& w : windows_) {
      if (w.until - w.from < kRoundRobinWindow) continue;
      std::int64_t n = 0, n_b = 0;
      for (const SendRecord* s : sends_) {
        if (s->sent_at <= w.from + slack_ || s->sent_at >= w.until - slack_) continue;
        ++n;
        // A send that failed without a trace of where it went may have tried the group.
        auto where = broker_of(*s);
        n_b += (where && *where == b_.group) || (!where && s->outcome != SendOutcome::ok) ? 1 : 0;
      }
      if (n >= kRoundRobinSends && n_b == 0) {
        v_.violation(fmt::format("{} (sendLatencyFaultEnable off) sent {} times between {} ms and {} ms and never to {}: round robin "
                                 "should go on",
                                 producer_, n, ms_of(w.from), ms_of(w.until), b_.group),
                     w.from);
      }
    }
  }

  // The producer's figures (none without a window); returns its number of windows.
  std::int64_t add_figures() {
    if (windows_.empty()) return 0;
    v_.figures[producer_ + ".windows"] = static_cast<std::int64_t>(windows_.size());
    v_.figures[producer_ + ".longest_window_ms"] = longest_;
    v_.figures[producer_ + ".sends_in_windows"] = in_windows_;
    v_.figures[producer_ + ".to_group_in_windows"] = to_group_;
    if (retry_after_) v_.figures[producer_ + ".retry_after_window_ms"] = *retry_after_;
    if (enabled_) {
      // The first windows as observed: each one's length, for the reader to hold against 30 s, 60 s, 600 s.
      for (std::size_t k = 0; k < windows_.size() && k < kWindowsShown; ++k) {
        v_.figures[fmt::format("{}.window_{}_ms", producer_, k + 1)] = to_ms(windows_[k].until - windows_[k].from);
      }
    }
    return static_cast<std::int64_t>(windows_.size());
  }

 private:
  // Where `s` landed: its own queue, or for an unknown outcome where it was consumed.
  std::optional<std::string> broker_of(const SendRecord& s) const {
    if (s.outcome == SendOutcome::ok || s.outcome == SendOutcome::stored_not_durable) return s.queue.broker_name;
    auto it = landed_.find({s.producer, s.seq});
    if (it != landed_.end()) return it->second;
    return std::nullopt;
  }

  // Keeps the current window; after it, the next send to the group, and how many went elsewhere first.
  void close_window() {
    if (!current_ || current_->until <= current_->from) return;
    windows_.push_back(*current_);
    longest_ = std::max(longest_, to_ms(current_->until - current_->from));
    std::int64_t elsewhere = 0;
    for (std::size_t j = current_->cause_index + 1; j < sends_.size(); ++j) {
      const SendRecord& s = *sends_[j];
      if (s.sent_at < current_->until - slack_) continue;
      auto where = broker_of(s);
      if (where && *where == b_.group) {
        retry_after_ = std::max(retry_after_.value_or(0), std::max<std::int64_t>(0, to_ms(s.sent_at - current_->until)));
        return;
      }
      if (++elsewhere >= kTryAgainWithin && enabled_) {
        v_.violation(fmt::format("{} never tried {} again after its {} ms avoidance ended at {} ms ({} sends went elsewhere)", producer_,
                                 b_.group, to_ms(current_->until - current_->from), ms_of(current_->until), elsewhere),
                     current_->until);
        return;
      }
    }
  }

  const LatencyBackoffBounds& b_;
  const std::string& producer_;
  const std::vector<const SendRecord*>& sends_;
  const std::map<std::pair<std::string, std::uint64_t>, std::string>& landed_;
  Verdict& v_;
  const Duration slack_;
  const bool enabled_;
  std::vector<Window> windows_;
  std::optional<Window> current_;
  std::int64_t in_windows_ = 0, to_group_ = 0, longest_ = 0;
  std::optional<std::int64_t> retry_after_;
};

}  // namespace

Verdict check_latency_backoff(const History& h, const LatencyBackoffBounds& b) {
  Verdict v;
  v.name = "latency_backoff";
  const auto landed = consumed_on(h);
  std::map<std::string, std::vector<const SendRecord*>> by_producer;
  for (const SendRecord& s : h.sends) by_producer[s.producer].push_back(&s);
  std::int64_t windows_total = 0;
  for (const auto& [producer, sends] : by_producer) {
    ProducerJudge judge(h, b, producer, sends, landed, v);
    judge.scan();
    judge.judge_round_robin();
    windows_total += judge.add_figures();
  }
  if (windows_total == 0) {
    v.violation(fmt::format("no send to {} was slow enough (550 ms) to start an avoidance window: nothing to judge", b.group));
  }
  v.passed = v.violations == 0;
  return v;
}

namespace {
constexpr Duration kHour = std::chrono::hours(1);
}  // namespace

CheckerSpec latency_backoff_checker() {
  return CheckerSpec{
      "latency_backoff",
      "with sendLatencyFaultEnable, a slow broker is avoided for the windows RocketMQ's latency table gives",
      false,
      {
          {.name = "broker", .default_value = std::string(), .story = "the slow broker group (required)", .names_group = true},
          {.name = "slack", .default_value = Duration(std::chrono::seconds(1)),
           .story = "tolerance on each avoidance window's edges", .max_duration = kHour},
      },
      Record::sends | Record::consumes | Record::producers,
      [](const History& h, const OptionValues& o) {
        return check_latency_backoff(h, LatencyBackoffBounds{option<std::string>(o, "broker"), option_ms(o, "slack")});
      }};
}

}  // namespace ferry::sim::check
