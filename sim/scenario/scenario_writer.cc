#include "sim/scenario/scenario_writer.h"

#include <fmt/format.h>

#include <iterator>

#include "sim/scenario/duration_text.h"
#include "sim/scenario/fault_registry.h"
#include "sim/scenario/scenario_names.h"

namespace ferry::sim::scenario {

namespace {

// A TOML basic string: quotes, backslashes and control characters escaped.
std::string quoted(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      fmt::format_to(std::back_inserter(out), "\\u{:04x}", static_cast<unsigned char>(c));
    } else {
      out += c;
    }
  }
  out += '"';
  return out;
}

std::string quoted_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    out += quoted(items[i]);
  }
  out += "]";
  return out;
}

std::string dur(Duration d) { return quoted(format_duration(d)); }
const char* boolean(bool b) { return b ? "true" : "false"; }

class Writer {
 public:
  void line(std::string_view key, std::string_view value) { fmt::format_to(std::back_inserter(out_), "{} = {}\n", key, value); }
  void line(std::string_view key, std::int64_t value) { fmt::format_to(std::back_inserter(out_), "{} = {}\n", key, value); }
  void header(std::string_view h) { fmt::format_to(std::back_inserter(out_), "\n{}\n", h); }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

// keys == "key-0" .. "key-{n-1}": written as key_count.
bool generated_keys(const std::vector<std::string>& keys) {
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (keys[i] != fmt::format("key-{}", i)) return false;
  }
  return !keys.empty();
}

void write_cluster(Writer& w, const cluster::ClusterSpec& c) {
  w.header("[cluster]");
  w.line("namesrvs", static_cast<std::int64_t>(c.namesrvs));
  if (c.controllers > 0) {
    w.line("controllers", static_cast<std::int64_t>(c.controllers));
    w.line("elect_unclean_master", boolean(c.controller_config.enable_elect_unclean_master));
  }
  for (const cluster::BrokerGroupSpec& g : c.brokers) {
    w.header("[[brokers]]");
    w.line("name", quoted(g.name));
    w.line("cluster", quoted(g.cluster));
    w.line("slaves", static_cast<std::int64_t>(g.slaves));
    w.line("role", quoted(name_in(master_role_names(), g.role)));
    w.line("flush", quoted(name_in(flush_mode_names(), g.flush)));
    if (g.slave_flush) w.line("slave_flush", quoted(name_in(flush_mode_names(), *g.slave_flush)));
    w.line("disk_capacity_bytes", static_cast<std::int64_t>(g.disk_capacity_bytes));
    w.line("commit_log_file_size_bytes", g.store.commit_log_file_size_bytes);
    w.line("consume_queue_units_per_file", g.store.consume_queue_units_per_file);
    w.line("message_size_max_bytes", g.store.message_size_max_bytes);
    w.line("sync_flush_timeout", dur(g.store.sync_flush_timeout));
    w.line("rebalance_lock_max_live_time", dur(g.config.rebalance_lock_max_live_time));
    w.line("transaction_timeout", dur(g.config.transaction_timeout));
    w.line("transaction_check_max", g.config.transaction_check_max);
    w.line("transaction_check_interval", dur(g.config.transaction_check_interval));
    if (g.config.enable_property_filter) w.line("enable_property_filter", "true");
    if (g.controller_mode) {
      w.line("controller_mode", "true");
      w.line("all_ack_in_sync_state_set", boolean(g.config.ha.all_ack_in_sync_state_set));
      w.line("read_uncommitted", boolean(g.config.read_uncommitted));
      w.line("in_sync_replicas", g.config.ha.in_sync_replicas);
      w.line("min_in_sync_replicas", g.config.min_in_sync_replicas);
      w.line("controller_heartbeat_timeout", dur(g.config.controller_heartbeat_timeout));
      w.line("max_time_slave_not_catchup", dur(g.config.ha.max_time_slave_not_catchup));
    }
  }
  for (const cluster::TopicSpec& t : c.topics) {
    w.header("[[topics]]");
    w.line("name", quoted(t.name));
    w.line("queues", t.queues);
    w.line("ordered", boolean(t.ordered));
  }
}

void write_workload(Writer& w, const Scenario& s) {
  for (const ProducerScenario& p : s.producers) {
    w.header("[[producers]]");
    w.line("node", quoted(p.node));
    w.line("group", quoted(p.spec.group));
    w.line("topic", quoted(p.spec.topic));
    w.line("start_at", dur(p.start_at));
    w.line("messages", static_cast<std::int64_t>(p.spec.messages));
    w.line("interval", dur(p.spec.interval));
    w.line("body_bytes", static_cast<std::int64_t>(p.spec.body_bytes));
    if (generated_keys(p.spec.keys)) {
      w.line("key_count", static_cast<std::int64_t>(p.spec.keys.size()));
    } else {
      w.line("keys", quoted_list(p.spec.keys));
    }
    w.line("ordered", boolean(p.spec.ordered));
    if (p.spec.ordered) w.line("selector", quoted(name_in(selector_names(), p.spec.selector)));
    w.line("send_latency_fault_enable", boolean(p.spec.config.send_latency_fault_enable));
    w.line("retry_times_when_send_failed", p.spec.config.retry_times_when_send_failed);
    w.line("retry_another_broker_when_not_store_ok", boolean(p.spec.config.retry_another_broker_when_not_store_ok));
    w.line("send_timeout", dur(p.spec.config.send_timeout));
    if (const auto& tx = p.spec.transactions) {
      w.line("transactions", "true");
      w.line("rollback_percent", tx->rollback_percent);
      w.line("unknown_percent", tx->unknown_percent);
      w.line("local_transaction_time", dur(tx->local_time));
      w.line("check_answers", quoted(name_in(check_answers_names(), tx->check_answers)));
    }
    if (const auto& rq = p.spec.requests) {
      w.line("requests", "true");
      w.line("request_timeout", dur(rq->timeout));
    }
    if (const auto& t = p.spec.timers) {
      w.line("timer_delay", dur(t->min));
      w.line("timer_delay_max", dur(t->max));
      if (t->asked_percent != 100) w.line("timer_asked_percent", fmt::format("{}", t->asked_percent));
    }
  }
  for (const ConsumerScenario& c : s.consumers) {
    w.header("[[consumers]]");
    w.line("node", quoted(c.node));
    w.line("group", quoted(c.spec.group));
    w.line("topic", quoted(c.spec.topic));
    w.line("expression", quoted(c.spec.expression));
    if (!c.spec.sql.empty()) w.line("sql", quoted(c.spec.sql));
    if (c.spec.replies) w.line("reply", quoted(name_in(reply_body_names(), c.spec.replies->body)));
    w.line("model", quoted(name_in(message_model_names(), c.spec.config.message_model)));
    w.line("kind", quoted(name_in(consumer_kind_names(), c.kind)));
    w.line("mode", quoted(name_in(consume_mode_names(), c.mode)));
    w.line("consume_from", quoted(name_in(consume_from_names(), c.spec.config.consume_from_where)));
    w.line("allocate", quoted(name_in(allocate_strategy_names(), c.spec.config.allocate_strategy)));
    w.line("start_at", dur(c.start_at));
    if (c.stop_at) w.line("stop_at", dur(*c.stop_at));
    if (c.spec.rewind_every) w.line("rewind_every", dur(*c.spec.rewind_every));
    if (const auto& pop = c.spec.pop) {
      w.line("invisible_time", dur(pop->invisible_time));
      w.line("pop_batch", fmt::format("{}", pop->batch));
      w.line("ack_percent", fmt::format("{}", pop->ack_percent));
      if (!pop->ask_order) w.line("ask_order", "false");
    }
  }
}

// An option as the reader takes it back: a bool, an integer, a duration string or a quoted string.
std::string option_text(const OptionValue& v) {
  if (const bool* b = std::get_if<bool>(&v)) return boolean(*b);
  if (const std::int64_t* i = std::get_if<std::int64_t>(&v)) return fmt::format("{}", *i);
  if (const Duration* d = std::get_if<Duration>(&v)) return dur(*d);
  return quoted(std::get<std::string>(v));
}

// Options in the order of their specs; an empty string is an unset option (an optional group, a
// role left to its default) and cannot be written (the reader refuses "").
void write_options(Writer& w, const std::vector<OptionSpec>& specs, const OptionValues& values) {
  for (const OptionSpec& o : specs) {
    auto it = values.find(std::string(o.name));
    if (it == values.end()) continue;
    const std::string* text = std::get_if<std::string>(&it->second);
    if (text != nullptr && text->empty()) continue;
    w.line(it->first, option_text(it->second));
  }
}

void write_faults(Writer& w, const std::vector<FaultEntry>& faults) {
  for (const FaultEntry& f : faults) {
    const FaultActionSpec& spec = fault_actions().at(f.action);
    w.header("[[faults]]");
    w.line("at", dur(f.at));
    w.line("action", quoted(f.action));
    if (spec.targets) w.line("target", quoted_list(f.targets));
    if (spec.peers) w.line("peers", quoted_list(f.peers));
    if (spec.duration && f.duration) w.line("duration", dur(*f.duration));
    write_options(w, spec.keys, f.params);
  }
}

void write_settings(Writer& w, const Scenario& s) {
  w.header("[run]");
  w.line("length", dur(s.run.length));
  w.line("swarm", boolean(s.run.swarm));
  w.header("[liveness]");
  w.line("enabled", boolean(s.liveness.enabled));
  w.line("bound", dur(s.liveness.bound));
  std::vector<std::string> require;
  for (Requirement r : s.liveness.require) require.emplace_back(requirement_name(r));
  w.line("require", quoted_list(require));
  const CheckSettings& c = s.checks;
  w.header("[checks]");
  w.line("lost", quoted(name_in(lost_mode_names(), c.lost)));
  if (c.duplicates_max) w.line("duplicates_max", *c.duplicates_max);
  w.line("corrupt", boolean(c.corrupt));
  if (c.per_key_order) w.line("per_key_order", boolean(*c.per_key_order));
  w.line("offsets_dense", boolean(c.offsets_dense));
  w.line("offsets_monotonic", boolean(c.offsets_monotonic));
  w.line("routes", boolean(c.routes));
  w.line("expected_errors", quoted_list(c.expected_errors));
  for (const NamedCheck& n : c.named) {
    w.header(fmt::format("[checks.{}]", n.name));
    // In the order of the options' names (as a parsed check holds them).
    for (const auto& [key, value] : n.options) {
      const std::string* text = std::get_if<std::string>(&value);
      if (text != nullptr && text->empty()) continue;
      w.line(key, option_text(value));
    }
  }
  w.header("[swarm]");
  if (s.swarm.liveness_bound) w.line("liveness_bound", dur(*s.swarm.liveness_bound));
  w.line("expected_errors", quoted_list(s.swarm.expected_errors));
  w.line("figures_only", quoted_list(s.swarm.figures_only));
}

}  // namespace

std::string write_scenario(const Scenario& s) {
  Writer w;
  w.line("name", quoted(s.name));
  if (!s.story.empty()) w.line("story", quoted(s.story));  // an empty string is refused
  write_cluster(w, s.cluster);
  write_workload(w, s);
  write_faults(w, s.faults);
  write_settings(w, s);
  return w.take();
}

}  // namespace ferry::sim::scenario
