// mqbench consume (and the consuming half of mqbench e2e): mqbench_consume.h has the contract.
#include "tools/bench/mqbench_consume.h"

#include <fmt/format.h>

#include <charconv>
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>

#include "client/pop_consumer.h"
#include "client/push_consumer.h"
#include "common/message_const.h"
#include "runtime/wake_signal.h"
#include "tools/bench/mqbench.h"

namespace ferry::bench {

namespace {

constexpr std::string_view kSub = "consume";

// What the listener threads record; every field under `mu`.
struct Counters {
  std::mutex mu;
  LatencyHistogram interval;
  LatencyHistogram total;
  std::uint64_t received_interval = 0;
  std::uint64_t received_total = 0;
  std::uint64_t bytes_interval = 0;
  std::uint64_t bytes_total = 0;
  std::uint64_t foreign = 0;
  std::uint64_t redelivered = 0;
  std::uint64_t born_in_future = 0;
  std::uint64_t timers = 0;        // timer messages received: their e2e is lateness
  std::uint64_t timers_early = 0;  // received before the delay they asked for
  std::uint64_t corrupt_interval = 0;
  std::uint64_t pops = 0;        // POP requests answered (POP mode)
  std::uint64_t empty_pops = 0;  // ... with nothing
  std::uint64_t acked = 0;
  ErrorTally errors;
  std::optional<SteadyTime> first;
  std::optional<SteadyTime> last;

  void on_message(const MessageExt& m, std::int64_t now_us, SteadyTime at) {
    const BodyCheck check = check_body(m.body);
    const std::int64_t sent_us = check == BodyCheck::ok ? body_stamp_us(m.body) : m.born_timestamp_ms * 1000;
    std::int64_t e2e_us = now_us - sent_us;
    // A timer message (mqbench produce --timer-delay-ms): its lateness, past the delay it asked for.
    std::int64_t delay_ms = 0;
    if (const auto d = m.properties.get(prop::kTimerDelayMs)) {
      const auto [p, ec] = std::from_chars(d->data(), d->data() + d->size(), delay_ms);
      if (ec == std::errc() && p == d->data() + d->size() && delay_ms > 0) {
        ++timers;
        e2e_us -= delay_ms * 1000;
        if (e2e_us < 0) ++timers_early;
      }
    }
    if (e2e_us < 0) {
      ++born_in_future;
      e2e_us = 0;
    }
    interval.record_us(e2e_us);
    total.record_us(e2e_us);
    ++received_interval;
    ++received_total;
    bytes_interval += m.body.size();
    bytes_total += m.body.size();
    if (m.reconsume_times > 0) ++redelivered;
    switch (check) {
      case BodyCheck::ok: break;
      case BodyCheck::foreign: ++foreign; break;
      case BodyCheck::corrupt:
        ++corrupt_interval;
        errors.add("corrupt body (mqbench CRC mismatch)",
                   fmt::format("{} queue {} offset {}", m.topic, m.queue_id.value(), m.queue_offset.value()));
        break;
    }
    if (!first) first = at;
    last = at;
  }
};

}  // namespace

struct ConsumeBench::State {
  State(ConsumeOptions o, BenchRuntime& b) : o(std::move(o)), br(b), counters(std::make_shared<Counters>()) {}
  FILE* human() const { return o.json ? stderr : stdout; }

  const ConsumeOptions o;
  BenchRuntime& br;
  std::shared_ptr<Counters> counters;  // shared with the listener (it may outlive the bench)
  std::unique_ptr<client::ClientInstance> ci;
  std::unique_ptr<client::PushConsumer> consumer;
  std::unique_ptr<client::PopConsumer> pop;  // POP mode
  int pop_loops_running = 0;
  std::unique_ptr<WakeSignal> report_wake;
  bool started = false;  // the consumer started (so stop() shuts it down)
  bool stopping = false;
  bool reporter_running = false;
  SteadyTime start{};
  SteadyTime end{};
};

namespace {

Task<void> reporter(ConsumeBench::State* b) {
  SteadyTime last = b->start;
  for (int tick = 1; !b->stopping; ++tick) {
    Task<void> tick_wait = until_tick(*b->report_wake, b->start, tick);
    co_await std::move(tick_wait);
    if (b->stopping) break;
    std::string line;
    {
      Counters& c = *b->counters;
      std::lock_guard<std::mutex> lock(c.mu);
      const SteadyTime at = steady_now();
      const double secs = seconds_between(last, at);
      last = at;
      const double tps = secs > 0 ? static_cast<double>(c.received_interval) / secs : 0.0;
      const double mbs = secs > 0 ? static_cast<double>(c.bytes_interval) / secs / 1e6 : 0.0;
      line = fmt::format("[{:4}s] {:8.0f} msg/s {:8.2f} MB/s  e2e ms {}  errors {}  total {}\n", tick, tps, mbs,
                         percentiles_text(c.interval), c.corrupt_interval, c.received_total);
      c.interval.reset();
      c.received_interval = 0;
      c.bytes_interval = 0;
      c.corrupt_interval = 0;
    }
    std::fputs(line.c_str(), b->human());
    std::fflush(b->human());
  }
  b->reporter_running = false;
}

// One POP receive loop (POP mode): receive, record, acknowledge the batch, until stopping.
Task<void> pop_loop(ConsumeBench::State* b) {
  ++b->pop_loops_running;
  while (!b->stopping) {
    Task<Result<client::PopResult>> receiving = b->pop->receive(b->o.topic);
    Result<client::PopResult> r = co_await std::move(receiving);
    const std::int64_t now_us = wall_now_us();
    const SteadyTime at = steady_now();
    if (!r.ok()) {
      // No route yet (mqbench e2e creates the topic once the consumer runs): wait, no error.
      if (r.error().code != Errc::not_found) {
        std::lock_guard<std::mutex> lock(b->counters->mu);
        b->counters->errors.add("POP failed", r.error().to_string());
      }
      co_await b->br.rt().sleep(std::chrono::milliseconds(100));
      continue;
    }
    {
      std::lock_guard<std::mutex> lock(b->counters->mu);
      ++b->counters->pops;
      if (r->messages.empty()) ++b->counters->empty_pops;
      for (const MessageExt& m : r->messages) b->counters->on_message(m, now_us, at);
    }
    if (r->messages.empty()) continue;
    Task<Status> acking = b->pop->ack_all(r->messages);
    const Status a = co_await std::move(acking);
    std::lock_guard<std::mutex> lock(b->counters->mu);
    if (a.ok()) {
      b->counters->acked += r->messages.size();
    } else {
      b->counters->errors.add("ack failed", a.error().to_string());
    }
  }
  --b->pop_loops_running;
}

Task<int> open_pop(ConsumeBench::State& b) {
  client::PopConsumerConfig pc;
  pc.group = b.o.group;
  pc.max_messages = b.o.pop_batch;
  pc.poll_time = std::chrono::seconds(2);
  pc.from_first = b.o.from_first;
  b.pop = std::make_unique<client::PopConsumer>(*b.ci, pc);
  const Status st = b.pop->subscribe(b.o.topic, client::MessageSelector::by_tag(b.o.expression));
  if (!st.ok()) {
    std::fprintf(stderr, "mqbench consume: %s\n", st.error().to_string().c_str());
    co_return kExitFailed;
  }
  for (int i = 0; i < b.o.pop; ++i) b.br.rt().spawn(pop_loop(&b), "mqbench-pop");
  std::fputs(fmt::format("mqbench consume: topic {} ({}), group {}, POP: {} receive loop(s) of up to {} messages, {} s{}\n",
                         b.o.topic, b.o.expression, b.o.group, b.o.pop, b.o.pop_batch, b.o.seconds,
                         b.o.messages > 0 ? fmt::format(" or {} messages", b.o.messages) : "")
                 .c_str(),
             b.human());
  std::fflush(b.human());
  co_return kExitOk;
}

}  // namespace

ConsumeBench::ConsumeBench(ConsumeOptions o, BenchRuntime& br) : s_(std::make_unique<State>(std::move(o), br)) {}
ConsumeBench::~ConsumeBench() = default;

std::uint64_t ConsumeBench::received() const {
  std::lock_guard<std::mutex> lock(s_->counters->mu);
  return s_->counters->received_total;
}

bool ConsumeBench::pulling() const {
  if (s_->pop) return s_->pop_loops_running > 0;
  if (!s_->consumer) return false;
  const std::size_t held = s_->consumer->held_queues().size();
  return held > 0 && s_->consumer->stats().pulls >= held;
}

Task<int> ConsumeBench::open() {
  State& b = *s_;
  b.ci = std::make_unique<client::ClientInstance>(b.br.rt(), b.br.client_config(b.o.namesrv, 1000));
  if (b.o.pop > 0) {
    Task<int> opened = open_pop(b);
    const int code = co_await std::move(opened);
    if (code != kExitOk) co_return code;
    b.start = steady_now();
    b.report_wake = std::make_unique<WakeSignal>(b.br.rt());
    b.reporter_running = true;
    b.br.rt().spawn(reporter(&b), "mqbench-report");
    co_return kExitOk;
  }
  client::PushConsumerConfig pc;
  pc.group = b.o.group;
  pc.consume_from_where = b.o.from_first ? client::ConsumeFromWhere::CONSUME_FROM_FIRST_OFFSET
                                         : client::ConsumeFromWhere::CONSUME_FROM_LAST_OFFSET;
  pc.consume_threads = b.o.threads;
  pc.consume_message_batch_max_size = b.o.batch;
  b.consumer = std::make_unique<client::PushConsumer>(*b.ci, pc);
  std::shared_ptr<Counters> counters = b.counters;
  client::ConcurrentListener listener = [counters](const std::vector<MessageExt>& msgs, client::ConsumeConcurrentlyContext&) {
    const std::int64_t now_us = wall_now_us();
    const SteadyTime at = steady_now();
    std::lock_guard<std::mutex> lock(counters->mu);
    for (const MessageExt& m : msgs) counters->on_message(m, now_us, at);
    return client::ConsumeConcurrentlyStatus::CONSUME_SUCCESS;
  };
  Status st = b.consumer->subscribe(b.o.topic, b.o.expression);
  if (st.ok()) {
    b.consumer->set_listener(std::move(listener));
    st = b.consumer->start();
  }
  if (!st.ok()) {
    std::fprintf(stderr, "mqbench consume: %s\n", st.error().to_string().c_str());
    co_return kExitFailed;
  }
  b.started = true;
  std::string limits = fmt::format("{} s", b.o.seconds);
  if (b.o.messages > 0) limits += fmt::format(" or {} messages", b.o.messages);
  std::fputs(fmt::format("mqbench consume: topic {} ({}), group {}, from {}, {} listener thread(s), batch {}, {}\n",
                         b.o.topic, b.o.expression, b.o.group, b.o.from_first ? "first" : "last", b.o.threads, b.o.batch,
                         limits)
                 .c_str(),
             b.human());
  std::fflush(b.human());
  b.start = steady_now();
  b.report_wake = std::make_unique<WakeSignal>(b.br.rt());
  b.reporter_running = true;
  b.br.rt().spawn(reporter(&b), "mqbench-report");
  co_return kExitOk;
}

Task<void> ConsumeBench::wait(std::function<bool(std::uint64_t received)> enough) {
  State& b = *s_;
  const SteadyTime deadline = b.start + std::chrono::seconds(b.o.seconds);
  while (steady_now() < deadline) {
    const std::uint64_t got = received();
    if (b.o.messages > 0 && got >= static_cast<std::uint64_t>(b.o.messages)) break;
    if (enough && enough(got)) break;
    co_await b.br.rt().sleep(std::chrono::milliseconds(10));
  }
}

Task<void> ConsumeBench::stop() {
  State& b = *s_;
  b.stopping = true;
  if (b.report_wake) b.report_wake->wake();
  b.end = steady_now();
  while (b.reporter_running) co_await b.br.rt().sleep(std::chrono::milliseconds(5));
  while (b.pop_loops_running > 0) co_await b.br.rt().sleep(std::chrono::milliseconds(5));
  // Stop consuming before the summary: persists the group's offsets, unregisters it.
  if (b.started) {
    Task<void> stop = b.consumer->shutdown();
    co_await std::move(stop);
  }
}

void ConsumeBench::summary() {
  State& b = *s_;
  Counters& c = *b.counters;
  std::lock_guard<std::mutex> lock(c.mu);
  const double secs = seconds_between(b.start, b.end);
  const double tps = secs > 0 ? static_cast<double>(c.received_total) / secs : 0.0;
  const double mbs = secs > 0 ? static_cast<double>(c.bytes_total) / secs / 1e6 : 0.0;
  std::string out = "\n--- mqbench consume summary ---\n";
  if (b.pop) {
    out += fmt::format("topic {}, group {}, from {}, POP: {} receive loop(s) of up to {} messages\n", b.o.topic, b.o.group,
                       b.o.from_first ? "first" : "last", b.o.pop, b.o.pop_batch);
  } else {
    out += fmt::format("topic {}, group {}, from {}, {} listener thread(s), batch {}\n", b.o.topic, b.o.group,
                       b.o.from_first ? "first" : "last", b.o.threads, b.o.batch);
  }
  out += fmt::format("duration:      {:.2f} s\n", secs);
  out += fmt::format("received:      {} ({} not from mqbench, {} redelivered)\n", c.received_total, c.foreign, c.redelivered);
  out += fmt::format("errors:        {}\n", c.errors.total());
  out += c.errors.render();
  out += fmt::format("throughput:    {:.0f} msg/s, {:.2f} MB/s of bodies over the run", tps, mbs);
  if (c.first && c.last && *c.last > *c.first) {
    const double busy = seconds_between(*c.first, *c.last);
    out += fmt::format("; {:.0f} msg/s between the first and the last message ({:.2f} s)",
                       static_cast<double>(c.received_total) / busy, busy);
  }
  out += "\n";
  out += fmt::format("e2e ms:        avg {}, {} (n={}, now - body stamp or born timestamp{}{})\n",
                     ms_text(static_cast<std::int64_t>(c.total.mean_us())), percentiles_text(c.total), c.total.count(),
                     c.timers > 0 ? fmt::format(" - TIMER_DELAY_MS: the lateness of {} timer messages, {} early", c.timers,
                                                c.timers_early)
                                  : "",
                     c.born_in_future > 0 ? fmt::format("; {} born in the future, as 0", c.born_in_future) : "");
  if (b.pop) {
    out += fmt::format("pops:          {} ({} found nothing), {} acknowledged\n", c.pops, c.empty_pops, c.acked);
  } else {
    const client::PushConsumer::Stats& st = b.consumer->stats();
    out += fmt::format("pulls:         {} ({} messages), flow-control pauses {}\n", st.pulls, st.pulled_messages,
                       st.flow_controlled);
  }
  std::fputs(out.c_str(), b.human());
  std::fflush(b.human());
}

std::string ConsumeBench::json_members() const {
  const State& b = *s_;
  Counters& c = *b.counters;
  std::lock_guard<std::mutex> lock(c.mu);
  const double secs = seconds_between(b.start, b.end);
  double busy_tps = 0;
  if (c.first && c.last && *c.last > *c.first) {
    busy_tps = static_cast<double>(c.received_total) / seconds_between(*c.first, *c.last);
  }
  return fmt::format(
      "\"received\":{},\"foreign\":{},\"redelivered\":{},\"errors\":{},\"seconds\":{:.3f},\"msgs_per_s\":{:.1f},"
      "\"busy_msgs_per_s\":{:.1f},\"mb_per_s\":{:.3f},\"e2e_ms\":{},\"timers\":{},\"timers_early\":{},\"pops\":{},"
      "\"acked\":{}",
      c.received_total, c.foreign, c.redelivered, c.errors.total(), secs,
      secs > 0 ? static_cast<double>(c.received_total) / secs : 0.0, busy_tps,
      secs > 0 ? static_cast<double>(c.bytes_total) / secs / 1e6 : 0.0, json_latency(c.total), c.timers, c.timers_early,
      c.pops, c.acked);
}

Task<int> ConsumeBench::close() {
  State& b = *s_;
  if (b.ci) {
    Task<void> t = b.ci->shutdown();
    co_await std::move(t);
  }
  std::lock_guard<std::mutex> lock(b.counters->mu);
  co_return b.counters->errors.total() == 0 ? kExitOk : kExitFailed;
}

namespace {

const std::vector<cli::FlagSpec> kSpecs = {
    {'t', "topic", "TOPIC", "topic to consume", true},
    {'g', "group", "GROUP", "consumer group (default mqbench_consumer)"},
    {'e', "expression", "EXPR", "tag expression, e.g. 'TagA || TagB' (default *)"},
    {'d', "seconds", "S", "how long to consume at most (default 10; 3600 with --messages)"},
    {0, "messages", "N", "stop once N messages were received (default: no count)"},
    {'f', "from", "WHERE", "where a queue without a committed offset starts: first | last (default last)"},
    {0, "threads", "N", "listener calls at once (consumeThreadMax, default 20)"},
    {0, "batch", "N", "messages per listener call (consumeMessageBatchMaxSize, default 1)"},
    {0, "pop", "N", "POP consumption (RocketMQ 5) with N receive loops instead of a push consumer"},
    {0, "pop-batch", "N", "messages per POP, 1..32 (default 32)"},
    {0, "json", "", "print the summary's figures as one JSON object on stdout (the rest goes to stderr)"},
};

}  // namespace

int consume_main(std::span<const std::string> args) {
  std::variant<BenchArgs, int> parsed =
      parse_args(kSub, "receive messages with a push consumer; throughput and end-to-end latency", kSpecs, args);
  if (const int* code = std::get_if<int>(&parsed)) return *code;
  BenchArgs& a = std::get<BenchArgs>(parsed);
  const cli::ParsedFlags& f = a.flags;
  ConsumeOptions o;
  o.namesrv = a.namesrv;
  o.topic = *f.get("topic");
  o.group = f.get_or("group", "mqbench_consumer");
  o.expression = f.get_or("expression", "*");
  Result<std::int64_t> messages = f.int_in("messages", 1, std::int64_t{1} << 40, 0);
  Result<std::int64_t> seconds = f.int_in("seconds", 1, 86400, f.has("messages") ? 3600 : 10);
  Result<std::int64_t> threads = f.int_in("threads", 1, 256, 20);
  Result<std::int64_t> batch = f.int_in("batch", 1, 1024, 1);
  Result<std::int64_t> pop = f.int_in("pop", 1, 1024, 0);
  Result<std::int64_t> pop_batch = f.int_in("pop-batch", 1, 32, 32);
  for (const auto* r : {&messages, &seconds, &threads, &batch, &pop, &pop_batch}) {
    if (!r->ok()) return usage_error(kSub, r->error().detail);
  }
  o.messages = *messages;
  o.seconds = *seconds;
  o.threads = static_cast<int>(*threads);
  o.batch = static_cast<int>(*batch);
  o.pop = static_cast<int>(*pop);
  o.pop_batch = static_cast<int>(*pop_batch);
  const std::string from = f.get_or("from", "last");
  if (from != "first" && from != "last") return usage_error(kSub, fmt::format("--from: '{}' is not first or last", from));
  o.from_first = from == "first";
  o.json = f.has("json");
  const bool json = o.json;

  BenchRuntime br(static_cast<std::size_t>(o.threads), a.tls);
  br.set_credentials(a.credentials);
  auto bench = std::make_unique<ConsumeBench>(std::move(o), br);
  auto run = [](ConsumeBench* b, bool json) -> Task<int> {
    Task<int> ot = b->open();
    if (const int opened = co_await std::move(ot); opened != kExitOk) {
      Task<int> ct = b->close();
      (void)co_await std::move(ct);
      co_return opened;
    }
    Task<void> wt = b->wait({});
    co_await std::move(wt);
    Task<void> st = b->stop();
    co_await std::move(st);
    b->summary();
    if (json) {
      std::fputs(fmt::format("{{\"sub\":\"consume\",{}}}\n", b->json_members()).c_str(), stdout);
      std::fflush(stdout);
    }
    Task<int> ct = b->close();
    co_return co_await std::move(ct);
  };
  const int code = br.rt().block_on(run(bench.get(), json));
  bench.reset();
  return code;
}

}  // namespace ferry::bench
