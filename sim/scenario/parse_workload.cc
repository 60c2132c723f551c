#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <set>

#include "sim/history/selection.h"
#include "sim/scenario/duration_text.h"
#include "common/pop_receipt.h"
#include "sim/scenario/parse_sections.h"

namespace ferry::sim::scenario {

namespace {

constexpr std::int64_t kMessagesMax = 10'000'000;
constexpr std::int64_t kKeysMax = 100'000;


// The topic of a producer or consumer: the key, or the only topic when there is one.
const cluster::TopicSpec* read_topic(TableReader& r, const Scenario& s, std::string& out) {
  if (!r.has("topic") && s.cluster.topics.size() == 1) out = s.cluster.topics.front().name;
  r.read("topic", out);
  for (const cluster::TopicSpec& t : s.cluster.topics) {
    if (t.name == out) return &t;
  }
  if (out.empty()) {
    r.fail("topic", s.cluster.topics.empty() ? "no [[topics]] declared: a client needs one"
                                              : "which topic? (several are declared)");
  } else {
    std::vector<std::string_view> names;
    for (const cluster::TopicSpec& t : s.cluster.topics) names.push_back(t.name);
    r.fail("topic", fmt::format("\"{}\" is not a declared topic ({})", out, fmt::join(names, ", ")));
  }
  return nullptr;
}

void read_start(TableReader& r, Duration& out) {
  r.read_duration("start_at", out, Duration{}, kDurationMax);
}

void parse_producer(TableReader& r, const Scenario& s, std::size_t index, ProducerScenario& p) {
  p.node = fmt::format("producer-{}", index);
  r.read("node", p.node);
  read_start(r, p.start_at);
  cluster::ProducerSpec& spec = p.spec;
  r.read("group", spec.group);
  const cluster::TopicSpec* topic = read_topic(r, s, spec.topic);
  spec.ordered = topic != nullptr && topic->ordered;
  r.read("ordered", spec.ordered);
  r.read_enum("selector", spec.selector, selector_names());
  if (r.has("selector") && !spec.ordered) r.fail("selector", "a selector picks the queue of ordered sends only (ordered = true)");
  // How many and how fast: messages (count) and interval, or rate (messages a second) and
  // duration; messages = rate x duration.
  if (r.has("rate") && r.has("interval")) r.fail("rate", "give rate or interval, not both");
  if (r.has("messages") && r.has("duration")) r.fail("duration", "give messages or duration, not both");
  r.read_duration("interval", spec.interval, std::chrono::milliseconds(1), std::chrono::hours(1));
  double rate = 0;
  r.read("rate", rate, 0.001, 10'000.0);
  if (rate > 0) {
    spec.interval = std::chrono::duration_cast<Duration>(std::chrono::duration<double>(1.0 / rate));
  }
  r.read_int("messages", spec.messages, 1, kMessagesMax);
  Duration lasting{};
  r.read_duration("duration", lasting, std::chrono::milliseconds(1), kDurationMax);
  if (lasting > Duration{}) {
    const std::int64_t n = lasting / spec.interval;
    if (n < 1 || n > kMessagesMax) {
      r.fail("duration", fmt::format("{} at one message every {} is {} messages; 1..{} allowed",
                                     format_duration(lasting), format_duration(spec.interval), n, kMessagesMax));
    } else {
      spec.messages = static_cast<std::uint64_t>(n);
    }
  }
  r.read_int("body_bytes", spec.body_bytes, 64, 4 * 1024 * 1024);
  if (r.has("keys") && r.has("key_count")) r.fail("key_count", "give keys or key_count, not both");
  r.read_strings("keys", spec.keys);
  std::int64_t key_count = 0;
  r.read("key_count", key_count, 1, kKeysMax);
  if (key_count > 0) {
    spec.keys.clear();
    for (std::int64_t k = 0; k < key_count; ++k) spec.keys.push_back(fmt::format("key-{}", k));
  }
  client::ProducerConfig& c = spec.config;
  r.read("send_latency_fault_enable", c.send_latency_fault_enable);
  r.read_int("retry_times_when_send_failed", c.retry_times_when_send_failed, 0, 16);
  r.read("retry_another_broker_when_not_store_ok", c.retry_another_broker_when_not_store_ok);
  r.read_duration("send_timeout", c.send_timeout, std::chrono::milliseconds(1), std::chrono::minutes(10));
  c.group = spec.group;
  // A transaction producer (ProducerSpec::Transactions).
  bool transactions = false;
  r.read("transactions", transactions);
  if (transactions) {
    cluster::ProducerSpec::Transactions tx;
    r.read_int("rollback_percent", tx.rollback_percent, 0, 100);
    r.read_int("unknown_percent", tx.unknown_percent, 0, 100);
    r.read_duration("local_transaction_time", tx.local_time, Duration{}, std::chrono::minutes(10));
    r.read_enum("check_answers", tx.check_answers, check_answers_names());
    if (spec.ordered) r.fail("transactions", "transactional messages are not ordered (RocketMQ's TransactionMQProducer has no selector)");
    spec.transactions = tx;
  } else {
    for (const char* key : {"rollback_percent", "unknown_percent", "local_transaction_time", "check_answers"}) {
      if (r.has(key)) r.fail(key, "belongs to a transaction producer (transactions = true)");
    }
  }
  // A requesting producer (ProducerSpec::Requests).
  bool requests = false;
  r.read("requests", requests);
  if (requests) {
    cluster::ProducerSpec::Requests rq;
    r.read_duration("request_timeout", rq.timeout, std::chrono::milliseconds(100), std::chrono::minutes(10));
    if (spec.transactions) r.fail("requests", "a producer sends requests or transactions, not both");
    if (spec.ordered) r.fail("requests", "requests are not ordered (RocketMQ's request() with a selector is not modelled)");
    spec.requests = rq;
  } else if (r.has("request_timeout")) {
    r.fail("request_timeout", "belongs to a requesting producer (requests = true)");
  }
  // Timer messages (ProducerSpec::Timers): TIMER_DELAY_MS drawn from [timer_delay, timer_delay_max].
  if (r.has("timer_delay")) {
    cluster::ProducerSpec::Timers t;
    r.read_duration("timer_delay", t.min, std::chrono::milliseconds(1), std::chrono::hours(72));
    t.max = t.min;
    r.read_duration("timer_delay_max", t.max, std::chrono::milliseconds(1), std::chrono::hours(72));
    if (t.max < t.min) r.fail("timer_delay_max", "must not be below timer_delay");
    r.read_int("timer_asked_percent", t.asked_percent, 1, 100);
    if (spec.transactions || spec.requests) r.fail("timer_delay", "a timer producer sends plain messages (no transactions, no requests)");
    if (spec.ordered) r.fail("timer_delay", "timer messages are not ordered (they arrive when due, not in send order)");
    spec.timers = t;
  } else if (r.has("timer_delay_max") || r.has("timer_asked_percent")) {
    r.fail(r.has("timer_delay_max") ? "timer_delay_max" : "timer_asked_percent", "belongs to a timer producer (timer_delay)");
  }
  r.finish();
}

void parse_consumer(TableReader& r, const Scenario& s, std::size_t index, ConsumerScenario& c) {
  c.node = fmt::format("consumer-{}", index);
  r.read("node", c.node);
  read_start(r, c.start_at);
  if (r.has("stop_at")) {
    Duration stop{};
    r.read_duration("stop_at", stop, Duration{}, kDurationMax);
    if (stop <= c.start_at) r.fail("stop_at", "must come after start_at");
    c.stop_at = stop;
  }
  cluster::ConsumerSpec& spec = c.spec;
  r.read("group", spec.group);
  (void)read_topic(r, s, spec.topic);
  r.read("expression", spec.expression);
  if (r.has("sql")) {
    r.read("sql", spec.sql);
    if (spec.expression != "*") r.fail("sql", "a consumer subscribes with a tag expression or with sql, not both");
    if (auto e = compile_selector(spec.sql); !e.ok()) r.fail("sql", e.error().detail);
    for (const cluster::BrokerGroupSpec& g : s.cluster.brokers) {
      if (!g.config.enable_property_filter) {
        r.fail("sql", fmt::format("broker group {} does not serve SQL92: set enable_property_filter = true", g.name));
        break;
      }
    }
    for (const ConsumerScenario& other : s.consumers) {
      if (other.spec.group == spec.group && other.spec.sql != spec.sql) {
        r.fail("sql", fmt::format("{} of the same group {} subscribes with \"{}\": a group's consumers share one "
                                  "subscription", other.node, spec.group, other.spec.sql));
        break;
      }
    }
  }
  r.read_enum("model", spec.config.message_model, message_model_names());
  r.read_enum("consume_from", spec.config.consume_from_where, consume_from_names());
  r.read_enum("allocate", spec.config.allocate_strategy, allocate_strategy_names());
  r.read_enum("kind", c.kind, consumer_kind_names());
  r.read_enum("mode", c.mode, consume_mode_names());
  if (c.kind == ConsumerKind::lite_pull && c.mode == ConsumeMode::orderly) {
    r.fail("mode", "a lite pull consumer has no orderly listener (RocketMQ's DefaultLitePullConsumer)");
  }
  if (c.kind == ConsumerKind::pop) {
    cluster::ConsumerSpec::Pop pop;
    if (spec.config.message_model == client::MessageModel::BROADCASTING) {
      r.fail("model", "POP consumption is clustering only (RocketMQ 5's SimpleConsumer)");
    }
    // The broker takes 1 ms to 12 h; a run is minutes long.
    r.read_duration("invisible_time", pop.invisible_time, std::chrono::seconds(1), std::chrono::minutes(10));
    r.read_int("pop_batch", pop.batch, 1, kPopBatchMax);
    r.read_int("ack_percent", pop.ack_percent, 0, 100);
    r.read("ask_order", pop.ask_order);
    if (!pop.ask_order && c.mode != ConsumeMode::orderly) r.fail("ask_order", "belongs to a FIFO POP consumer (mode = \"orderly\")");
    for (const ConsumerScenario& other : s.consumers) {
      if (other.spec.group == spec.group && other.kind != ConsumerKind::pop) {
        r.fail("kind", fmt::format("{} of the same group {} is a {} consumer: a group pops or pulls, not both", other.node,
                                   spec.group, consumer_kind_name(other.kind)));
        break;
      }
    }
    spec.pop = pop;
  } else {
    for (const char* key : {"invisible_time", "pop_batch", "ack_percent", "ask_order"}) {
      if (r.has(key)) r.fail(key, "belongs to a POP consumer (kind = \"pop\")");
    }
  }
  if (r.has("rewind_every")) {
    Duration every{};
    r.read_duration("rewind_every", every, std::chrono::milliseconds(1), kDurationMax);
    if (c.kind != ConsumerKind::lite_pull) r.fail("rewind_every", "only a lite pull consumer rewinds (kind = \"lite_pull\")");
    spec.rewind_every = every;
  }
  if (r.has("reply")) {
    cluster::ConsumerSpec::Replies replies;
    r.read_enum("reply", replies.body, reply_body_names());
    if (c.kind != ConsumerKind::push || c.mode != ConsumeMode::concurrently) {
      r.fail("reply", "a replying consumer is a push consumer with a concurrent listener");
    }
    spec.replies = replies;
  }
  spec.config.group = spec.group;
  r.finish();
}

}  // namespace

void parse_workload(TableReader& top, Diagnostics& diag, Scenario& out) {
  std::set<std::string> taken;
  for (const std::string& n : out.node_names()) taken.insert(n);
  taken.insert("cluster-admin");  // Cluster::boot()'s node
  auto claim = [&](TableReader& r, const std::string& node) {
    if (!taken.insert(node).second) r.fail("node", fmt::format("\"{}\" is the name of another node", node));
  };
  if (const toml::array* a = top.tables("producers", kProducersMax)) {
    for (std::size_t i = 0; i < a->size(); ++i) {
      TableReader r(diag, *a->get(i)->as_table(), fmt::format("producers[{}]", i));
      ProducerScenario p;
      parse_producer(r, out, i, p);
      claim(r, p.node);
      out.producers.push_back(std::move(p));
    }
  }
  if (const toml::array* a = top.tables("consumers", kConsumersMax)) {
    for (std::size_t i = 0; i < a->size(); ++i) {
      TableReader r(diag, *a->get(i)->as_table(), fmt::format("consumers[{}]", i));
      ConsumerScenario c;
      parse_consumer(r, out, i, c);
      claim(r, c.node);
      out.consumers.push_back(std::move(c));
    }
  }
  // SQL92 subscriptions select on the property n, which producers then add to every message.
  const bool selective = std::any_of(out.consumers.begin(), out.consumers.end(),
                                     [](const ConsumerScenario& c) { return !c.spec.sql.empty(); });
  for (ProducerScenario& p : out.producers) p.spec.selector_properties = selective;
}

}  // namespace ferry::sim::scenario
