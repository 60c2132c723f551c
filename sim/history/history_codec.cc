// The cereal archives of a History. Exceptions stop at this file's edge: cereal reports bad input
// by throwing, decode_history() turns that into an Error.
#include "sim/history/history_codec.h"
#include "sim/history/history_codec_v6.h"

#include <cereal/archives/json.hpp>
#include <cereal/archives/portable_binary.hpp>
#include <cereal/types/map.hpp>
#include <cereal/types/optional.hpp>
#include <cereal/types/set.hpp>
#include <cereal/types/string.hpp>
#include <cereal/types/vector.hpp>
#include <fmt/format.h>

#include <sstream>

#include "common/crc.h"
#include "runtime/assert.h"

// cereal finds these through the archive's namespace (an OptionValue is a std::variant).
namespace cereal {

// A named check's option: {"type": "bool"|"integer"|"duration"|"string", "value": ...}, a duration's
// value in nanoseconds.
template <class Ar>
void save(Ar& ar, const ferry::sim::OptionValue& v) {
  std::string type = ferry::sim::option_type_name(v);
  ar(cereal::make_nvp("type", type));
  if (const bool* b = std::get_if<bool>(&v)) ar(cereal::make_nvp("value", *b));
  if (const std::int64_t* i = std::get_if<std::int64_t>(&v)) ar(cereal::make_nvp("value", *i));
  if (const ferry::Duration* d = std::get_if<ferry::Duration>(&v)) {
    std::int64_t ns = d->count();
    ar(cereal::make_nvp("value", ns));
  }
  if (const std::string* str = std::get_if<std::string>(&v)) ar(cereal::make_nvp("value", *str));
}

template <class Ar>
void load(Ar& ar, ferry::sim::OptionValue& v) {
  std::string type;
  ar(cereal::make_nvp("type", type));
  if (type == "bool") {
    bool b = false;
    ar(cereal::make_nvp("value", b));
    v = b;
  } else if (type == "integer") {
    std::int64_t i = 0;
    ar(cereal::make_nvp("value", i));
    v = i;
  } else if (type == "duration") {
    std::int64_t ns = 0;
    ar(cereal::make_nvp("value", ns));
    v = ferry::Duration(ns);
  } else if (type == "string") {
    std::string str;
    ar(cereal::make_nvp("value", str));
    v = std::move(str);
  } else {
    throw cereal::Exception(fmt::format("an option of type \"{}\" (bool, integer, duration or string)", type));
  }
}

}  // namespace cereal

namespace ferry::sim {

namespace {

// Fields cereal cannot see directly (tagged numbers, time points, enums with a range) go through
// a plain local in each direction, written back on load only (cereal saves through a const_cast:
// a save must not write); a value out of range is refused on load.
template <class Ar>
void queue_fields(Ar& ar, MessageQueue& q, QueueOffset& offset) {
  std::int32_t queue_id = q.queue_id.value();
  std::int64_t off = offset.value();
  ar(cereal::make_nvp("topic_of_queue", q.topic), cereal::make_nvp("broker", q.broker_name),
     cereal::make_nvp("queue_id", queue_id), cereal::make_nvp("queue_offset", off));
  if constexpr (Ar::is_loading::value) {
    q.queue_id = QueueId(queue_id);
    offset = QueueOffset(off);
  }
}

template <class Ar>
void time_field(Ar& ar, const char* name, MonoTime& t) {
  std::int64_t ns = to_ns(t);
  ar(cereal::make_nvp(name, ns));
  if constexpr (Ar::is_loading::value) t = MonoTime(Duration(ns));
}

// An enum is its name in json (for people), its number in binary; `name_of` maps each value up to
// `max` to its name.
template <class E, class Ar>
void enum_field(Ar& ar, const char* name, E& e, std::uint8_t max, const char* (*name_of)(E)) {
  if constexpr (cereal::traits::is_text_archive<Ar>::value) {
    std::string text = name_of(e);
    ar(cereal::make_nvp(name, text));
    if constexpr (!Ar::is_loading::value) return;
    for (std::uint8_t v = 0; v <= max; ++v) {
      if (text == name_of(static_cast<E>(v))) {
        e = static_cast<E>(v);
        return;
      }
    }
    throw cereal::Exception(fmt::format("{} = \"{}\" is not one of its names", name, text));
  } else {
    std::uint8_t v = static_cast<std::uint8_t>(e);
    ar(cereal::make_nvp(name, v));
    if constexpr (Ar::is_loading::value) {
      if (v > max) throw cereal::Exception(fmt::format("{} = {} is out of range (at most {})", name, v, max));
      e = static_cast<E>(v);
    }
  }
}

// A field added after version 2 was written: a json file without it still loads (the field keeps
// its default; cereal looks fields up by name, so the order of the others does not matter);
// binary files always carry it.
template <class Ar, class T>
void later_field(Ar& ar, const char* name, T& value) {
  if constexpr (Ar::is_loading::value && cereal::traits::is_text_archive<Ar>::value) {
    try {
      ar(cereal::make_nvp(name, value));
    } catch (const cereal::Exception& e) {
      // cereal's words for exactly this field missing (its lookup throws before reading anything).
      if (std::string_view(e.what()) != fmt::format("JSON Parsing failed - provided NVP ({}) not found", name)) throw;
    }
  } else {
    ar(cereal::make_nvp(name, value));
  }
}

}  // namespace

template <class Ar>
void serialize(Ar& ar, SendRecord& s) {
  ar(cereal::make_nvp("producer", s.producer), cereal::make_nvp("seq", s.seq), cereal::make_nvp("key", s.key),
     cereal::make_nvp("topic", s.topic));
  enum_field(ar, "outcome", s.outcome, kSendOutcomeMax, &outcome_name);
  ar(cereal::make_nvp("detail", s.detail));
  queue_fields(ar, s.queue, s.queue_offset);
  time_field(ar, "sent_at_ns", s.sent_at);
  time_field(ar, "done_at_ns", s.done_at);
  ar(cereal::make_nvp("ordered", s.ordered));
}

template <class Ar>
void serialize(Ar& ar, ConsumeRecord& c) {
  ar(cereal::make_nvp("consumer", c.consumer), cereal::make_nvp("group", c.group), cereal::make_nvp("topic", c.topic));
  queue_fields(ar, c.queue, c.queue_offset);
  ar(cereal::make_nvp("reconsume_times", c.reconsume_times));
  time_field(ar, "at_ns", c.at);
  ar(cereal::make_nvp("pulled_from", c.pulled_from));
  // Since version 5: -1 for none (a lock time is never negative).
  std::int64_t lock_at_ns = c.lock_at ? to_ns(*c.lock_at) : -1;
  ar(cereal::make_nvp("lock_at_ns", lock_at_ns));
  if constexpr (Ar::is_loading::value) {
    if (lock_at_ns < -1) throw cereal::Exception(fmt::format("lock_at_ns = {} is out of range", lock_at_ns));
    c.lock_at = lock_at_ns < 0 ? std::nullopt : std::optional<MonoTime>(MonoTime(Duration(lock_at_ns)));
  }
  ar(cereal::make_nvp("intact", c.intact), cereal::make_nvp("producer", c.producer), cereal::make_nvp("seq", c.seq),
     cereal::make_nvp("key", c.key));
}

template <class Ar>
void serialize(Ar& ar, Event& e) {
  time_field(ar, "at_ns", e.at);
  enum_field(ar, "kind", e.kind, kEventKindMax, &event_kind_name);
  ar(cereal::make_nvp("target", e.target), cereal::make_nvp("detail", e.detail));
}

template <class Ar>
void serialize(Ar& ar, RouteGroup& g) {
  ar(cereal::make_nvp("read_queues", g.read_queues), cereal::make_nvp("write_queues", g.write_queues),
     cereal::make_nvp("master", g.master));
}

template <class Ar>
void serialize(Ar& ar, RouteRecord& r) {
  time_field(ar, "at_ns", r.at);
  ar(cereal::make_nvp("observer", r.observer), cereal::make_nvp("topic", r.topic), cereal::make_nvp("groups", r.groups));
}

template <class Ar>
void serialize(Ar& ar, RegistrationRecord& r) {
  time_field(ar, "at_ns", r.at);
  ar(cereal::make_nvp("namesrv", r.namesrv), cereal::make_nvp("broker", r.broker));
}

template <class Ar>
void serialize(Ar& ar, LogLine& l) {
  time_field(ar, "at_ns", l.at);
  ar(cereal::make_nvp("node", l.node), cereal::make_nvp("level", l.level), cereal::make_nvp("text", l.text));
}

// CheckSettings as a file of `version` holds them.
struct VersionedSettings {
  CheckSettings& s;
  std::uint32_t version = kHistoryVersion;
};

template <class Ar>
void serialize(Ar& ar, VersionedSettings& v) {
  CheckSettings& s = v.s;
  ar(cereal::make_nvp("lost_strict", s.lost_strict), cereal::make_nvp("duplicates_max", s.duplicates_max),
     cereal::make_nvp("offsets_dense", s.offsets_dense));
  if (v.version >= 7) {
    ar(cereal::make_nvp("named", s.named), cereal::make_nvp("expected_errors", s.expected_errors));
  } else if constexpr (Ar::is_loading::value) {
    v6::load_v6_named_checks(ar, s);
  } else {
    FERRY_ASSERT(false, "saving a history as version {} (this build writes {})", v.version, kHistoryVersion);
  }
  // ---- consumer apps' settings ----
  later_field(ar, "offsets_monotonic", s.offsets_monotonic);
  later_field(ar, "corrupt_fails", s.corrupt_fails);
  later_field(ar, "per_key_order", s.per_key_order);
  if (v.version >= 9) ar(cereal::make_nvp("figures_only", s.figures_only));
}

// ---- consumers and committed offsets ----

template <class Ar>
void serialize(Ar& ar, ConsumerInfo& c) {
  ar(cereal::make_nvp("group", c.group), cereal::make_nvp("topic", c.topic), cereal::make_nvp("broadcast", c.broadcast),
     cereal::make_nvp("kind", c.kind));
  time_field(ar, "first_start_ns", c.first_start);
  std::optional<std::int64_t> left = c.left_at ? std::optional<std::int64_t>(to_ns(*c.left_at)) : std::nullopt;
  ar(cereal::make_nvp("left_at_ns", left));
  if constexpr (Ar::is_loading::value) c.left_at = left ? std::optional<MonoTime>(MonoTime(Duration(*left))) : std::nullopt;
}

template <class Ar>
void serialize(Ar& ar, CommitRecord& c) {
  time_field(ar, "at_ns", c.at);
  ar(cereal::make_nvp("broker_node", c.broker), cereal::make_nvp("group", c.group));
  queue_fields(ar, c.queue, c.offset);
}

template <class Ar>
void serialize(Ar& ar, TakeRecord& t) {
  time_field(ar, "at_ns", t.at);
  ar(cereal::make_nvp("consumer", t.consumer));
  queue_fields(ar, t.queue, t.offset);
}

template <class Ar>
void serialize(Ar& ar, QueueFloorRecord& f) {
  time_field(ar, "at_ns", f.at);
  queue_fields(ar, f.queue, f.min_offset);
}

template <class Ar>
void serialize(Ar& ar, StoreRestartRecord& r) {
  time_field(ar, "at_ns", r.at);
  std::int64_t before_max = r.before_max.value(), before_synced = r.before_synced.value(), end = r.recovered_end.value();
  std::optional<std::int64_t> mismatch = r.first_mismatch ? std::optional<std::int64_t>(r.first_mismatch->value()) : std::nullopt;
  ar(cereal::make_nvp("broker_node", r.broker), cereal::make_nvp("before_max", before_max),
     cereal::make_nvp("before_synced", before_synced), cereal::make_nvp("recovered_end", end),
     cereal::make_nvp("records_compared", r.records_compared), cereal::make_nvp("bytes_compared", r.bytes_compared),
     cereal::make_nvp("first_mismatch", mismatch), cereal::make_nvp("lives_missed", r.lives_missed),
     cereal::make_nvp("wiped", r.wiped), cereal::make_nvp("detail", r.detail));
  if constexpr (Ar::is_loading::value) {
    r.before_max = PhysicalOffset(before_max);
    r.before_synced = PhysicalOffset(before_synced);
    r.recovered_end = PhysicalOffset(end);
    r.first_mismatch = mismatch ? std::optional<PhysicalOffset>(PhysicalOffset(*mismatch)) : std::nullopt;
  }
}

template <class Ar>
void serialize(Ar& ar, ControllerViewRecord& r) {
  time_field(ar, "at_ns", r.at);
  ar(cereal::make_nvp("controller", r.controller), cereal::make_nvp("group", r.group),
     cereal::make_nvp("master_epoch", r.master_epoch), cereal::make_nvp("master", r.master),
     cereal::make_nvp("sync_state_set_epoch", r.sync_state_set_epoch), cereal::make_nvp("sync_state_set", r.sync_state_set));
}

template <class Ar>
void serialize(Ar& ar, BrokerEpochRecord& r) {
  time_field(ar, "at_ns", r.at);
  ar(cereal::make_nvp("broker_node", r.broker), cereal::make_nvp("group", r.group), cereal::make_nvp("epoch", r.epoch),
     cereal::make_nvp("acked", r.acked));
}

template <class Ar>
void serialize(Ar& ar, MetricSample& m) {
  time_field(ar, "at_ns", m.at);
  ar(cereal::make_nvp("node", m.node), cereal::make_nvp("metric", m.metric), cereal::make_nvp("value", m.value));
}

// A transactional send's fields (SendRecord::fate, by_check, verdict_at), kept beside the sends
// (version 12 on): `send` is its index in History::sends; verdict_at_ns -1 for unset.
struct TransactionFields {
  std::uint64_t send = 0;
  TxFate fate = TxFate::none;
  bool by_check = false;
  std::int64_t verdict_at_ns = -1;
};

template <class Ar>
void serialize(Ar& ar, TransactionFields& t) {
  ar(cereal::make_nvp("send", t.send));
  enum_field(ar, "fate", t.fate, kTxFateMax, &tx_fate_name);
  ar(cereal::make_nvp("by_check", t.by_check), cereal::make_nvp("verdict_at_ns", t.verdict_at_ns));
}

template <class Ar>
void serialize(Ar& ar, RequestRecord& r) {
  ar(cereal::make_nvp("requester", r.requester), cereal::make_nvp("seq", r.seq));
  time_field(ar, "sent_at_ns", r.sent_at);
  std::int64_t timeout_ns = r.timeout.count();
  ar(cereal::make_nvp("timeout_ns", timeout_ns));
  enum_field(ar, "outcome", r.outcome, kRequestOutcomeMax, &request_outcome_name);
  std::int64_t done_at_ns = r.done_at ? to_ns(*r.done_at) : -1;  // -1 for unset
  ar(cereal::make_nvp("done_at_ns", done_at_ns), cereal::make_nvp("reply_of", r.reply_of), cereal::make_nvp("detail", r.detail));
  if constexpr (Ar::is_loading::value) {
    if (timeout_ns < 0) throw cereal::Exception(fmt::format("request {}: timeout_ns = {} is negative", r.id(), timeout_ns));
    if (done_at_ns < -1) throw cereal::Exception(fmt::format("request {}: done_at_ns = {} is out of range", r.id(), done_at_ns));
    if ((done_at_ns < 0) != (r.outcome == RequestOutcome::pending)) {
      throw cereal::Exception(fmt::format("request {}: outcome {} with done_at_ns {}", r.id(), request_outcome_name(r.outcome),
                                          done_at_ns));
    }
    r.timeout = Duration(timeout_ns);
    r.done_at = done_at_ns < 0 ? std::nullopt : std::optional<MonoTime>(MonoTime(Duration(done_at_ns)));
  }
}

// A POP delivery's fields (ConsumeRecord::pop), kept beside the consumes (version 16 on).
struct PopFields {
  std::uint64_t consume = 0;
  std::int64_t requested_at_ns = 0;
  std::int64_t invisible_until_ns = 0;
};

template <class Ar>
void serialize(Ar& ar, PopFields& p) {
  ar(cereal::make_nvp("consume", p.consume), cereal::make_nvp("requested_at_ns", p.requested_at_ns),
     cereal::make_nvp("invisible_until_ns", p.invisible_until_ns));
}

// A POP delivery's broker time (PopDelivery::pop_time_ms; version 17 on).
struct PopTimeFields {
  std::uint64_t consume = 0;
  std::int64_t pop_time_ms = 0;
};

template <class Ar>
void serialize(Ar& ar, PopTimeFields& p) {
  ar(cereal::make_nvp("consume", p.consume), cereal::make_nvp("pop_time_ms", p.pop_time_ms));
}

template <class Ar>
void serialize(Ar& ar, PopAckRecord& r) {
  ar(cereal::make_nvp("consume", r.consume));
  time_field(ar, "sent_at_ns", r.sent_at);
  time_field(ar, "done_at_ns", r.done_at);
  ar(cereal::make_nvp("ok", r.ok), cereal::make_nvp("detail", r.detail));
}

// A History as a file of `version` holds it: the fields added after that version are absent.
struct VersionedHistory {
  History& h;
  std::uint32_t version = kHistoryVersion;
};

template <class Ar>
void serialize(Ar& ar, VersionedHistory& v) {
  History& h = v.h;
  VersionedSettings settings{h.settings, v.version};
  ar(cereal::make_nvp("settings", settings), cereal::make_nvp("sends", h.sends), cereal::make_nvp("consumes", h.consumes),
     cereal::make_nvp("events", h.events), cereal::make_nvp("subscriptions", h.subscriptions), cereal::make_nvp("next_seq", h.next_seq),
     cereal::make_nvp("latency_fault_producers", h.latency_fault_producers), cereal::make_nvp("routes", h.routes),
     cereal::make_nvp("registrations", h.registrations));
  // Since version 3: the nodes' error-level log lines (a loaded file may not hold more than a run keeps).
  ar(cereal::make_nvp("error_logs", h.error_logs), cereal::make_nvp("error_logs_not_kept", h.error_logs_not_kept));
  if constexpr (Ar::is_loading::value) {
    if (h.error_logs.size() > kErrorLogsKeptMax) {
      throw cereal::Exception(fmt::format("error_logs holds {} lines, more than the {} a run keeps", h.error_logs.size(), kErrorLogsKeptMax));
    }
    if (h.error_logs_not_kept < 0) throw cereal::Exception(fmt::format("error_logs_not_kept = {} is negative", h.error_logs_not_kept));
  }
  // ---- consumers and committed offsets ----
  later_field(ar, "consumers", h.consumers);
  later_field(ar, "commits", h.commits);
  // Since version 5.
  later_field(ar, "takes", h.takes);
  // Since version 6: the broker restarts the StoreObserver judged.
  if (v.version >= 6) ar(cereal::make_nvp("store_restarts", h.store_restarts));
  // Since version 8: controller mode's views and epochs.
  if (v.version >= 8) {
    ar(cereal::make_nvp("controller_views", h.controller_views), cereal::make_nvp("broker_epochs", h.broker_epochs));
  }
  // Since version 9: the queues' first offsets as cleanup raised them.
  if (v.version >= 9) ar(cereal::make_nvp("queue_floors", h.queue_floors));
  // Since version 10: what a real run could not observe.
  if (v.version >= 10) ar(cereal::make_nvp("unobserved", h.unobserved));
  // Since version 11: the nodes' metrics sampled in virtual time.
  if (v.version >= 11) {
    ar(cereal::make_nvp("metric_samples", h.metric_samples),
       cereal::make_nvp("metric_samples_not_kept", h.metric_samples_not_kept));
    if constexpr (Ar::is_loading::value) {
      if (h.metric_samples.size() > kMetricSamplesKeptMax) {
        throw cereal::Exception(fmt::format("metric_samples holds {} samples, more than the {} a run keeps",
                                            h.metric_samples.size(), kMetricSamplesKeptMax));
      }
      if (h.metric_samples_not_kept < 0) {
        throw cereal::Exception(fmt::format("metric_samples_not_kept = {} is negative", h.metric_samples_not_kept));
      }
    }
  }
  // Since version 12: the transactional sends' fields.
  if (v.version >= 12) {
    std::vector<TransactionFields> transactions;
    if constexpr (!Ar::is_loading::value) {
      for (std::size_t i = 0; i < h.sends.size(); ++i) {
        const SendRecord& s = h.sends[i];
        if (s.fate == TxFate::none) continue;
        transactions.push_back(TransactionFields{i, s.fate, s.by_check, s.verdict_at ? to_ns(*s.verdict_at) : -1});
      }
    }
    ar(cereal::make_nvp("transactions", transactions));
    if constexpr (Ar::is_loading::value) {
      for (const TransactionFields& t : transactions) {
        if (t.send >= h.sends.size()) {
          throw cereal::Exception(fmt::format("transactions names send {} of {}", t.send, h.sends.size()));
        }
        if (t.fate == TxFate::none || t.verdict_at_ns < -1) {
          throw cereal::Exception(fmt::format("transactions: send {} has fate {} and verdict_at_ns {}", t.send,
                                              tx_fate_name(t.fate), t.verdict_at_ns));
        }
        SendRecord& s = h.sends[t.send];
        s.fate = t.fate;
        s.by_check = t.by_check;
        s.verdict_at = t.verdict_at_ns < 0 ? std::nullopt : std::optional<MonoTime>(MonoTime(Duration(t.verdict_at_ns)));
      }
    }
  }
  // Since version 13: the consumers' SQL92 subscriptions.
  if (v.version >= 13) {
    std::map<std::string, std::string> selectors;
    if constexpr (!Ar::is_loading::value) {
      for (const auto& [name, info] : h.consumers) {
        if (!info.sql.empty()) selectors.emplace(name, info.sql);
      }
    }
    ar(cereal::make_nvp("selectors", selectors));
    if constexpr (Ar::is_loading::value) {
      for (const auto& [name, sql] : selectors) {
        auto it = h.consumers.find(name);
        if (it == h.consumers.end()) throw cereal::Exception(fmt::format("selectors names consumer {}, not in consumers", name));
        it->second.sql = sql;
      }
    }
  }
  // Since version 14: the requests of requesting producers.
  if (v.version >= 14) ar(cereal::make_nvp("requests", h.requests));
  // Since version 15: the timer messages' delays, by send index.
  if (v.version >= 15) {
    std::map<std::uint64_t, std::int64_t> timers;  // send index -> delay ns
    if constexpr (!Ar::is_loading::value) {
      for (std::size_t i = 0; i < h.sends.size(); ++i) {
        if (h.sends[i].timer_delay) timers.emplace(i, h.sends[i].timer_delay->count());
      }
    }
    ar(cereal::make_nvp("timers", timers));
    if constexpr (Ar::is_loading::value) {
      for (const auto& [send, delay_ns] : timers) {
        if (send >= h.sends.size() || delay_ns < 0) {
          throw cereal::Exception(fmt::format("timers: send {} of {} with delay_ns {}", send, h.sends.size(), delay_ns));
        }
        h.sends[send].timer_delay = Duration(delay_ns);
      }
    }
  }
  // Since version 16: POP deliveries (by consume index) and the POP acks.
  if (v.version >= 16) {
    std::vector<PopFields> pops;
    if constexpr (!Ar::is_loading::value) {
      for (std::size_t i = 0; i < h.consumes.size(); ++i) {
        if (const auto& p = h.consumes[i].pop) pops.push_back(PopFields{i, to_ns(p->requested_at), to_ns(p->invisible_until)});
      }
    }
    ar(cereal::make_nvp("pops", pops), cereal::make_nvp("pop_acks", h.pop_acks));
    if constexpr (Ar::is_loading::value) {
      for (const PopFields& p : pops) {
        if (p.consume >= h.consumes.size() || p.requested_at_ns < 0 || p.invisible_until_ns < p.requested_at_ns) {
          throw cereal::Exception(fmt::format("pops: consume {} of {} requested at {} ns, invisible until {} ns", p.consume,
                                              h.consumes.size(), p.requested_at_ns, p.invisible_until_ns));
        }
        h.consumes[p.consume].pop = PopDelivery{MonoTime(Duration(p.requested_at_ns)), MonoTime(Duration(p.invisible_until_ns))};
      }
      for (const PopAckRecord& a : h.pop_acks) {
        if (a.consume >= h.consumes.size() || !h.consumes[a.consume].pop) {
          throw cereal::Exception(fmt::format("pop_acks names consume {}, not a POP delivery of the {}", a.consume, h.consumes.size()));
        }
      }
    }
  }
  // Since version 17: the broker's time of each POP delivery that has one.
  if (v.version >= 17) {
    std::vector<PopTimeFields> times;
    if constexpr (!Ar::is_loading::value) {
      for (std::size_t i = 0; i < h.consumes.size(); ++i) {
        const auto& p = h.consumes[i].pop;
        if (p && p->pop_time_ms >= 0) times.push_back(PopTimeFields{i, p->pop_time_ms});
      }
    }
    ar(cereal::make_nvp("pop_times", times));
    if constexpr (Ar::is_loading::value) {
      for (const PopTimeFields& t : times) {
        if (t.consume >= h.consumes.size() || !h.consumes[t.consume].pop || t.pop_time_ms < 0) {
          throw cereal::Exception(fmt::format("pop_times: consume {} of {} (pop time {} ms) is not a POP delivery with a time",
                                              t.consume, h.consumes.size(), t.pop_time_ms));
        }
        h.consumes[t.consume].pop->pop_time_ms = t.pop_time_ms;
      }
    }
  }
}

namespace {

void put_le(std::string& out, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

std::uint64_t get_le(std::string_view in, std::size_t at, int bytes) {
  std::uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(in[at + i])) << (8 * i);
  return v;
}

Status readable_version(std::uint64_t version) {
  if (version >= kHistoryVersionReadMin && version <= kHistoryVersion) return {};
  return Error(Errc::unsupported, fmt::format("history version {}; this build reads versions {} to {}", version,
                                              kHistoryVersionReadMin, kHistoryVersion));
}

std::string encode_json(const History& h) {
  std::ostringstream os;
  {
    cereal::JSONOutputArchive ar(os);
    std::string format(kHistoryFormatName);
    std::uint32_t version = kHistoryVersion;
    VersionedHistory v{const_cast<History&>(h), kHistoryVersion};  // saving only reads it
    ar(cereal::make_nvp("format", format), cereal::make_nvp("version", version), cereal::make_nvp("history", v));
  }
  os << '\n';
  return os.str();
}

std::string encode_binary(const History& h) {
  std::ostringstream os;
  {
    cereal::PortableBinaryOutputArchive ar(os);
    VersionedHistory v{const_cast<History&>(h), kHistoryVersion};  // saving only reads it
    ar(v);
  }
  const std::string payload = os.str();
  std::string out(kHistoryBinaryMagic);
  put_le(out, kHistoryVersion, 4);
  put_le(out, payload.size(), 8);
  put_le(out, crc32_update(0, as_bytes(payload)), 4);
  out += payload;
  return out;
}

Result<History> decode_json(std::string_view bytes) {
  std::istringstream is{std::string(bytes)};
  cereal::JSONInputArchive ar(is);
  std::string format;
  std::uint32_t version = 0;
  ar(cereal::make_nvp("format", format));
  if (format != kHistoryFormatName) return Error(Errc::corrupt, fmt::format("format is \"{}\", not \"{}\"", format, kHistoryFormatName));
  ar(cereal::make_nvp("version", version));
  if (Status readable = readable_version(version); !readable.ok()) return std::move(readable).error();
  History h;
  VersionedHistory v{h, version};
  ar(cereal::make_nvp("history", v));
  return h;
}

Result<History> decode_binary(std::string_view bytes) {
  if (bytes.size() < kHistoryBinaryHeaderBytes) {
    return Error(Errc::corrupt, fmt::format("{} bytes: shorter than the {}-byte header", bytes.size(), kHistoryBinaryHeaderBytes));
  }
  if (bytes.substr(0, kHistoryBinaryMagic.size()) != kHistoryBinaryMagic) {
    return Error(Errc::corrupt, "not a binary history (bad magic; a .json file must be named *.json)");
  }
  const std::uint64_t version = get_le(bytes, 8, 4);
  if (Status readable = readable_version(version); !readable.ok()) return std::move(readable).error();
  const std::uint64_t length = get_le(bytes, 12, 8);
  const std::uint32_t want_crc = static_cast<std::uint32_t>(get_le(bytes, 20, 4));
  const std::string_view payload = bytes.substr(kHistoryBinaryHeaderBytes);
  if (payload.size() != length) {
    return Error(Errc::corrupt, fmt::format("the header promises {} payload bytes, the file holds {}{}", length, payload.size(),
                                            payload.size() < length ? " (truncated)" : ""));
  }
  if (const std::uint32_t crc = crc32_update(0, as_bytes(payload)); crc != want_crc) {
    return Error(Errc::corrupt, fmt::format("payload checksum {:08x}, the header says {:08x}", crc, want_crc));
  }
  std::istringstream is{std::string(payload)};
  cereal::PortableBinaryInputArchive ar(is);
  History h;
  VersionedHistory v{h, static_cast<std::uint32_t>(version)};
  ar(v);
  if (is.peek() != std::char_traits<char>::eof()) return Error(Errc::corrupt, "bytes left over after the history");
  return h;
}

}  // namespace

HistoryEncoding encoding_for_path(std::string_view path) {
  constexpr std::string_view kJson = ".json";
  return path.size() >= kJson.size() && path.substr(path.size() - kJson.size()) == kJson ? HistoryEncoding::json
                                                                                         : HistoryEncoding::binary;
}

std::string encode_history(const History& h, HistoryEncoding e) {
  return e == HistoryEncoding::json ? encode_json(h) : encode_binary(h);
}

Result<History> decode_history(std::string_view bytes, HistoryEncoding e) {
  // cereal throws on malformed input (a parse error, a missing field, a short read); this is the
  // edge where that becomes a value.
  try {
    return e == HistoryEncoding::json ? decode_json(bytes) : decode_binary(bytes);
  } catch (const std::exception& ex) {
    return Error(Errc::corrupt, fmt::format("cannot decode the {} history: {}", e == HistoryEncoding::json ? "json" : "binary", ex.what()));
  }
}

}  // namespace ferry::sim
