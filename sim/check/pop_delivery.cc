#include "sim/check/pop_delivery.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "sim/check/clock_margin.h"
#include "sim/check/pop_explanations.h"

namespace ferry::sim::check {

namespace {

MonoTime end_of(const History& h) {
  MonoTime end{};
  for (const ConsumeRecord& c : h.consumes) end = std::max(end, c.at);
  for (const Event& e : h.events) end = std::max(end, e.at);
  for (const PopAckRecord& a : h.pop_acks) end = std::max(end, a.done_at);
  for (const SendRecord& s : h.sends) end = std::max(end, s.done_at);
  return end;
}

}  // namespace

Verdict check_pop_delivery(const History& h) {
  Verdict v;
  v.name = "pop-delivery";
  const std::vector<PopExplanation> explaining = pop_explanations(h);
  std::map<std::pair<std::string, std::uint64_t>, MonoTime> sent_at;  // each message's first send
  for (const SendRecord& s : h.sends) {
    auto [it, fresh] = sent_at.try_emplace({s.producer, s.seq}, s.sent_at);
    if (!fresh) it->second = std::min(it->second, s.sent_at);
  }
  // Each delivery's first acknowledgement answered SUCCESS within its invisible time (on the
  // consumer's own clock, less the drift from the broker's over the invisible time), and the
  // deliveries somebody tried to acknowledge at all.
  std::set<std::uint64_t> in_time;
  std::map<std::uint64_t, const PopAckRecord*> first_in_time;
  std::set<std::uint64_t> ack_tried;
  for (const PopAckRecord& a : h.pop_acks) {
    if (a.consume >= h.consumes.size() || !h.consumes[a.consume].pop) continue;  // the codec refuses these
    ack_tried.insert(a.consume);
    const PopDelivery& p = *h.consumes[a.consume].pop;
    const Duration drift = (p.invisible_until - p.requested_at) / 1000 + std::chrono::milliseconds(1);
    if (a.ok && a.done_at + drift < p.invisible_until && in_time.insert(a.consume).second) first_in_time.emplace(a.consume, &a);
  }
  // The groups with a member that stays to the end: their messages have somebody to come back to.
  std::set<std::string> staying;
  for (const auto& [name, info] : h.consumers) {
    if (!info.left_at) staying.insert(info.group);
  }
  // Each message's POP deliveries in the order the broker handed them out (pop_order, history.h:
  // the consumers' times when they tell, else the broker's; a reply may arrive long after, past
  // its own invisible time), message after message.
  using MessageKey = std::tuple<std::string, std::string, std::uint64_t>;  // group, producer, seq
  std::map<MessageKey, std::vector<std::uint64_t>> by_message;
  for (std::uint64_t i = 0; i < h.consumes.size(); ++i) {
    const ConsumeRecord& c = h.consumes[i];
    if (c.pop && c.intact) by_message[MessageKey{c.group, c.producer, c.seq}].push_back(i);
  }
  std::vector<std::uint64_t> order;
  for (auto& [key, list] : by_message) {
    pop_sort(h, list);
    order.insert(order.end(), list.begin(), list.end());
  }
  struct Delivery {
    std::uint64_t index = 0;
    bool used = false;  // it explained a redelivery already
    bool back = false;  // a later delivery of the message was seen
  };
  std::map<MessageKey, std::vector<Delivery>> seen;
  std::set<std::tuple<std::string, MessageQueue, std::int64_t>> copies;  // group, queue, offset handed out
  std::int64_t redeliveries = 0, came_back = 0, explained = 0, early = 0, after_ack = 0;
  for (std::uint64_t i : order) {
    const ConsumeRecord& c = h.consumes[i];
    std::vector<Delivery>& before = seen[MessageKey{c.group, c.producer, c.seq}];
    const bool repeat = !copies.emplace(c.group, c.queue, c.queue_offset.value()).second;
    if ((c.reconsume_times == 0 && !repeat) || before.empty()) {
      before.push_back(Delivery{i});
      continue;
    }
    ++redeliveries;
    for (Delivery& d : before) d.back = true;
    // An earlier delivery not acknowledged in time whose invisible time was over when this one
    // arrived (two consumers' clocks apart by up to clock_margin); the one this copy was revived
    // from (one reconsumeTimes lower) first.
    auto eligible = [&](const Delivery& d) {
      return !d.used && in_time.count(d.index) == 0 && h.consumes[d.index].pop->invisible_until <= c.at + clock_margin(c.at);
    };
    auto match = std::find_if(before.begin(), before.end(), [&](const Delivery& d) {
      return eligible(d) && h.consumes[d.index].reconsume_times + 1 == c.reconsume_times;
    });
    if (match == before.end()) match = std::find_if(before.begin(), before.end(), eligible);
    if (match != before.end()) {
      match->used = true;
      ++came_back;
      before.push_back(Delivery{i});
      continue;
    }
    // A restart of the message's broker since it was sent: the replay may revive a checkpoint
    // again whose revive (or ack) was not stored, a popped offset may go back, and a delivery
    // whose reply the crash lost was never seen here.
    // Up to the latest of the deliveries compared: a broker's clock that jumped back (or another
    // master's) orders a later delivery before an earlier one.
    auto sent = sent_at.find({c.producer, c.seq});
    MonoTime until = c.at;
    for (const Delivery& d : before) until = std::max(until, h.consumes[d.index].at);
    if (pop_explained_between(explaining, c.queue.broker_name, sent == sent_at.end() ? MonoTime{} : sent->second, until)) {
      ++explained;
      before.push_back(Delivery{i});
      continue;
    }
    const std::string what = fmt::format("{} delivered to {} again at {} ms ({}, {} offset {}, reconsumeTimes {})", c.id(), c.group,
                                         ms_of(c.at), c.consumer, c.queue.to_string(), c.queue_offset.value(), c.reconsume_times);
    auto open = std::find_if(before.begin(), before.end(), [&](const Delivery& d) { return !d.used && in_time.count(d.index) == 0; });
    auto acked = std::find_if(before.rbegin(), before.rend(), [&](const Delivery& d) { return in_time.count(d.index) > 0; });
    if (open != before.end()) {
      ++early;
      const ConsumeRecord& o = h.consumes[open->index];
      v.violation(fmt::format("{} before the invisible time of its delivery to {} at {} ms ended ({} ms), with no broker restart between",
                              what, o.consumer, ms_of(o.at), ms_of(o.pop->invisible_until)),
                  c.at);
    } else if (acked != before.rend()) {
      ++after_ack;
      const ConsumeRecord& d = h.consumes[acked->index];
      v.violation(fmt::format("{} although {} acknowledged its delivery at {} ms within its invisible time, answered at {} ms (visible "
                              "again at {} ms), with no broker restart between",
                              what, d.consumer, ms_of(d.at), ms_of(first_in_time.at(acked->index)->done_at), ms_of(d.pop->invisible_until)),
                  c.at);
    } else {
      ++after_ack;
      v.violation(fmt::format("{}: each of its {} earlier deliveries came back already (a checkpoint revived twice), with no broker "
                              "restart between",
                              what, before.size()),
                  c.at);
    }
    before.push_back(Delivery{i});
  }
  // What nobody acknowledged comes back.
  const MonoTime end = end_of(h);
  std::int64_t unacked_judged = 0, never_back = 0, never_back_excused = 0;
  for (const auto& [key, list] : seen) {
    for (const Delivery& d : list) {
      const ConsumeRecord& c = h.consumes[d.index];
      if (ack_tried.count(d.index) > 0 || c.reconsume_times >= kRetryMaxTimes) continue;
      if (staying.count(c.group) == 0 || c.pop->invisible_until + kComeBackSlack > end) continue;
      ++unacked_judged;
      if (d.back) continue;
      if (broker_logged_error_since(h, c.queue.broker_name, c.pop->requested_at)) {
        ++never_back_excused;
        continue;
      }
      ++never_back;
      v.violation(fmt::format("{} delivered to {} at {} ms ({}, {} offset {}) was not acknowledged and never came back (visible again at "
                              "{} ms; the history ends at {} ms)",
                              c.id(), c.group, ms_of(c.at), c.consumer, c.queue.to_string(), c.queue_offset.value(),
                              ms_of(c.pop->invisible_until), ms_of(end)),
                  c.pop->invisible_until);
    }
  }
  v.figures["pop_deliveries"] = static_cast<std::int64_t>(order.size());
  v.figures["redeliveries"] = redeliveries;
  v.figures["came_back"] = came_back;
  v.figures["explained"] = explained;
  v.figures["early"] = early;
  v.figures["after_ack"] = after_ack;
  v.figures["acks"] = static_cast<std::int64_t>(h.pop_acks.size());
  v.figures["acks_in_time"] = static_cast<std::int64_t>(in_time.size());
  v.figures["unacked_judged"] = unacked_judged;
  v.figures["never_back"] = never_back;
  v.figures["never_back_excused"] = never_back_excused;
  v.passed = early == 0 && after_ack == 0 && (never_back == 0 || !h.settings.lost_strict);
  return v;
}

CheckerSpec pop_delivery_checker() {
  return CheckerSpec{"pop-delivery",
                     "a POP consumer's message comes back only when its invisible time is over and it was not acknowledged in "
                     "time, and one nobody acknowledged does come back",
                     true,
                     {},
                     Record::sends | Record::consumes | Record::consumers | Record::events | Record::pop_acks | Record::error_logs |
                         Record::controller_views,
                     [](const History& h, const OptionValues&) { return check_pop_delivery(h); }};
}

}  // namespace ferry::sim::check
