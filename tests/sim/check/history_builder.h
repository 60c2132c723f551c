// Hand-built histories for the checker tests: a small fluent builder whose times are milliseconds.
#pragma once

#include <string>

#include "sim/history/history.h"

namespace ferry::sim::check::testing {

inline MonoTime at_ms(std::int64_t ms) { return MonoTime(std::chrono::milliseconds(ms)); }

inline MessageQueue queue(std::int32_t id, std::string broker = "broker-a", std::string topic = "Orders") {
  return MessageQueue{std::move(topic), std::move(broker), QueueId(id)};
}

struct HistoryBuilder {
  History h;

  // An acknowledged (or otherwise finished) send, stored at `q` offset `offset`.
  HistoryBuilder& send(std::string producer, std::uint64_t seq, MessageQueue q, std::int64_t offset,
                       SendOutcome outcome = SendOutcome::ok, std::string key = "key-0", bool ordered = false) {
    SendRecord s;
    s.producer = std::move(producer);
    s.seq = seq;
    s.key = std::move(key);
    s.topic = q.topic;
    s.outcome = outcome;
    s.queue = std::move(q);
    s.queue_offset = QueueOffset(offset);
    s.sent_at = at_ms(static_cast<std::int64_t>(h.sends.size()) * 10);
    s.done_at = s.sent_at + std::chrono::milliseconds(5);
    s.ordered = ordered;
    h.sends.push_back(std::move(s));
    return *this;
  }
  // An intact delivery of producer#seq (with its recorded key, or "key-0") to `consumer` of `group`.
  HistoryBuilder& consume(std::string consumer, std::string group, std::string producer, std::uint64_t seq, MessageQueue q,
                          std::int64_t offset, std::int64_t ms) {
    ConsumeRecord c;
    c.consumer = std::move(consumer);
    c.group = std::move(group);
    c.topic = q.topic;
    c.queue = std::move(q);
    c.queue_offset = QueueOffset(offset);
    c.at = at_ms(ms);
    c.intact = true;
    c.key = "key-0";
    for (const SendRecord& s : h.sends) {
      if (s.producer == producer && s.seq == seq) c.key = s.key;
    }
    c.producer = std::move(producer);
    c.seq = seq;
    h.consumes.push_back(std::move(c));
    return *this;
  }
  // A request of `requester` sent at `sent_ms` with `timeout_ms`, ending as `outcome` at `done_ms`
  // (pending: never); a replied one got the reply to `reply_of` (its own id when empty).
  HistoryBuilder& request(std::string requester, std::uint64_t seq, std::int64_t sent_ms, std::int64_t timeout_ms,
                          RequestOutcome outcome, std::int64_t done_ms = -1, std::string reply_of = {}) {
    RequestRecord r;
    r.requester = std::move(requester);
    r.seq = seq;
    r.sent_at = at_ms(sent_ms);
    r.timeout = std::chrono::milliseconds(timeout_ms);
    r.outcome = outcome;
    if (outcome != RequestOutcome::pending) r.done_at = at_ms(done_ms);
    if (outcome == RequestOutcome::replied) r.reply_of = reply_of.empty() ? r.id() : std::move(reply_of);
    h.requests.push_back(std::move(r));
    return *this;
  }
  HistoryBuilder& event(std::int64_t ms, EventKind kind, std::string target, std::string detail = "test") {
    h.record_event(at_ms(ms), kind, std::move(target), std::move(detail));
    return *this;
  }
  // A POP delivery of producer#seq (reconsumeTimes `reconsume`) to `consumer` of `group` at `ms`
  // (requested then too), invisible for `invisible_ms` from `ms`.
  HistoryBuilder& pop(std::string consumer, std::string group, std::string producer, std::uint64_t seq, MessageQueue q,
                      std::int64_t offset, std::int64_t ms, std::int64_t invisible_ms, std::int32_t reconsume = 0) {
    consume(std::move(consumer), std::move(group), std::move(producer), seq, std::move(q), offset, ms);
    h.consumes.back().pop = PopDelivery{at_ms(ms), at_ms(ms + invisible_ms), ms};  // the broker's clock: virtual time
    h.consumes.back().reconsume_times = reconsume;
    return *this;
  }
  // An ack of the last delivery, sent at `ms` and answered `took_ms` later (ok or not).
  HistoryBuilder& pop_ack(std::int64_t ms, std::int64_t took_ms = 2, bool ok = true) {
    PopAckRecord a;
    a.consume = h.consumes.size() - 1;
    a.sent_at = at_ms(ms);
    a.done_at = at_ms(ms + took_ms);
    a.ok = ok;
    if (!ok) a.detail = "timed_out: no answer";
    h.pop_acks.push_back(std::move(a));
    return *this;
  }
  // A timer message of `producer` sent at `sent_ms`, acknowledged 5 ms later, asking for `delay_ms`.
  HistoryBuilder& timer(std::string producer, std::uint64_t seq, std::int64_t sent_ms, std::int64_t delay_ms) {
    send(std::move(producer), seq, queue(0, "broker-a", "Reminders"), -1);
    SendRecord& s = h.sends.back();
    s.sent_at = at_ms(sent_ms);
    s.done_at = s.sent_at + std::chrono::milliseconds(5);
    s.timer_delay = std::chrono::milliseconds(delay_ms);
    return *this;
  }
};

}  // namespace ferry::sim::check::testing
