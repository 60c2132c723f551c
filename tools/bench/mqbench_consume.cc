// mqbench consume: one push consumer (clustering, its own ClientInstance) in a consumer group for
// S seconds; the listener returns CONSUME_SUCCESS for every message.
//
// Per message, in the listener (an offload thread of the runtime): the end-to-end latency, the
// wall clock now minus the message's born timestamp (the producer's clock when it built the
// message; ms resolution, so up to 1 ms high; meaningful only when producer and consumer clocks
// agree: a born time in the future is counted and recorded as 0), the body size, and the body's
// mqbench checksum (mqbench_common.h): a body that carries the mqbench magic but a wrong CRC is
// an error ("corrupt body"); a body without the magic is "foreign" (another producer), not an
// error. Messages with reconsumeTimes > 0 are counted as redelivered.
//
// The listener threads and the report loop share the counters under one mutex. The summary's
// throughput divides by the whole run and, separately, by the time between the first and the last
// message received (the time the consumer was busy, e.g. draining a backlog from --from first).
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <mutex>

#include "client/push_consumer.h"
#include "runtime/wake_signal.h"
#include "tools/bench/mqbench.h"
#include "tools/bench/mqbench_common.h"

namespace ferry::bench {

namespace {

constexpr std::string_view kSub = "consume";

struct Options {
  std::vector<std::string> namesrv;
  std::string topic;
  std::string group;
  std::string expression = "*";
  std::int64_t seconds = 10;
  bool from_first = false;
  int threads = 20;
  int batch = 1;
};

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
  std::uint64_t corrupt_interval = 0;
  ErrorTally errors;
  std::optional<SteadyTime> first;
  std::optional<SteadyTime> last;

  void on_message(const MessageExt& m, std::int64_t now_us, SteadyTime at) {
    std::int64_t e2e_us = now_us - m.born_timestamp_ms * 1000;
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
    switch (check_body(m.body)) {
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

class ConsumeBench {
 public:
  ConsumeBench(Options o, BenchRuntime& br) : o_(std::move(o)), br_(br), counters_(std::make_shared<Counters>()) {}

  Task<int> run();

 private:
  static Task<void> reporter(ConsumeBench* b);
  void print_summary(SteadyTime start, SteadyTime end);

  const Options o_;
  BenchRuntime& br_;
  std::shared_ptr<Counters> counters_;  // shared with the listener (it may outlive the bench)
  std::unique_ptr<client::ClientInstance> ci_;
  std::unique_ptr<client::PushConsumer> consumer_;
  std::unique_ptr<WakeSignal> report_wake_;
  bool stopping_ = false;
  bool reporter_running_ = false;
  SteadyTime start_{};
};

Task<void> ConsumeBench::reporter(ConsumeBench* b) {
  SteadyTime last = b->start_;
  for (int tick = 1; !b->stopping_; ++tick) {
    Task<void> tick_wait = until_tick(*b->report_wake_, b->start_, tick);
    co_await std::move(tick_wait);
    if (b->stopping_) break;
    std::string line;
    {
      Counters& c = *b->counters_;
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
    std::fputs(line.c_str(), stdout);
    std::fflush(stdout);
  }
  b->reporter_running_ = false;
}

Task<int> ConsumeBench::run() {
  ci_ = std::make_unique<client::ClientInstance>(br_.rt(), br_.client_config(o_.namesrv, 0));
  client::PushConsumerConfig pc;
  pc.group = o_.group;
  pc.consume_from_where = o_.from_first ? client::ConsumeFromWhere::CONSUME_FROM_FIRST_OFFSET
                                        : client::ConsumeFromWhere::CONSUME_FROM_LAST_OFFSET;
  pc.consume_threads = o_.threads;
  pc.consume_message_batch_max_size = o_.batch;
  consumer_ = std::make_unique<client::PushConsumer>(*ci_, pc);
  std::shared_ptr<Counters> counters = counters_;
  client::ConcurrentListener listener = [counters](const std::vector<MessageExt>& msgs, client::ConsumeConcurrentlyContext&) {
    const auto wall = std::chrono::system_clock::now().time_since_epoch();
    const std::int64_t now_us = std::chrono::duration_cast<std::chrono::microseconds>(wall).count();
    const SteadyTime at = steady_now();
    std::lock_guard<std::mutex> lock(counters->mu);
    for (const MessageExt& m : msgs) counters->on_message(m, now_us, at);
    return client::ConsumeConcurrentlyStatus::CONSUME_SUCCESS;
  };
  Status st = consumer_->subscribe(o_.topic, o_.expression);
  if (st.ok()) {
    consumer_->set_listener(std::move(listener));
    st = consumer_->start();
  }
  if (!st.ok()) {
    std::fprintf(stderr, "mqbench consume: %s\n", st.error().to_string().c_str());
    Task<void> t = ci_->shutdown();
    co_await std::move(t);
    co_return kExitFailed;
  }
  std::fputs(fmt::format("mqbench consume: topic {} ({}), group {}, from {}, {} listener thread(s), batch {}, {} s\n",
                         o_.topic, o_.expression, o_.group, o_.from_first ? "first" : "last", o_.threads, o_.batch,
                         o_.seconds)
                 .c_str(),
             stdout);
  std::fflush(stdout);

  start_ = steady_now();
  report_wake_ = std::make_unique<WakeSignal>(br_.rt());
  reporter_running_ = true;
  br_.rt().spawn(reporter(this), "mqbench-report");
  co_await br_.rt().sleep(std::chrono::seconds(o_.seconds));
  stopping_ = true;
  report_wake_->wake();
  const SteadyTime end = steady_now();
  while (reporter_running_) co_await br_.rt().sleep(std::chrono::milliseconds(5));
  // Stop consuming before the summary: persists the group's offsets, unregisters it.
  Task<void> stop = consumer_->shutdown();
  co_await std::move(stop);
  print_summary(start_, end);
  Task<void> t = ci_->shutdown();
  co_await std::move(t);
  std::lock_guard<std::mutex> lock(counters_->mu);
  co_return counters_->errors.total() == 0 ? kExitOk : kExitFailed;
}

void ConsumeBench::print_summary(SteadyTime start, SteadyTime end) {
  Counters& c = *counters_;
  std::lock_guard<std::mutex> lock(c.mu);
  const double secs = seconds_between(start, end);
  const double tps = secs > 0 ? static_cast<double>(c.received_total) / secs : 0.0;
  const double mbs = secs > 0 ? static_cast<double>(c.bytes_total) / secs / 1e6 : 0.0;
  const client::PushConsumer::Stats& st = consumer_->stats();
  std::string out = "\n--- mqbench consume summary ---\n";
  out += fmt::format("topic {}, group {}, from {}, {} listener thread(s), batch {}\n", o_.topic, o_.group,
                     o_.from_first ? "first" : "last", o_.threads, o_.batch);
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
  out += fmt::format("e2e ms:        avg {}, {} (n={}, now - born timestamp{})\n",
                     ms_text(static_cast<std::int64_t>(c.total.mean_us())), percentiles_text(c.total), c.total.count(),
                     c.born_in_future > 0 ? fmt::format("; {} born in the future, as 0", c.born_in_future) : "");
  out += fmt::format("pulls:         {} ({} messages), flow-control pauses {}\n", st.pulls, st.pulled_messages,
                     st.flow_controlled);
  std::fputs(out.c_str(), stdout);
  std::fflush(stdout);
}

const std::vector<cli::FlagSpec> kSpecs = {
    {'t', "topic", "TOPIC", "topic to consume", true},
    {'g', "group", "GROUP", "consumer group (default mqbench_consumer)"},
    {'e', "expression", "EXPR", "tag expression, e.g. 'TagA || TagB' (default *)"},
    {'d', "seconds", "S", "how long to consume (default 10)"},
    {'f', "from", "WHERE", "where a queue without a committed offset starts: first | last (default last)"},
    {0, "threads", "N", "listener calls at once (consumeThreadMax, default 20)"},
    {0, "batch", "N", "messages per listener call (consumeMessageBatchMaxSize, default 1)"},
};

}  // namespace

int consume_main(std::span<const std::string> args) {
  std::variant<BenchArgs, int> parsed =
      parse_args(kSub, "receive messages with a push consumer; throughput and end-to-end latency", kSpecs, args);
  if (const int* code = std::get_if<int>(&parsed)) return *code;
  BenchArgs& a = std::get<BenchArgs>(parsed);
  const cli::ParsedFlags& f = a.flags;
  Options o;
  o.namesrv = a.namesrv;
  o.topic = *f.get("topic");
  o.group = f.get_or("group", "mqbench_consumer");
  o.expression = f.get_or("expression", "*");
  Result<std::int64_t> seconds = f.int_in("seconds", 1, 86400, 10);
  Result<std::int64_t> threads = f.int_in("threads", 1, 256, 20);
  Result<std::int64_t> batch = f.int_in("batch", 1, 1024, 1);
  for (const auto* r : {&seconds, &threads, &batch}) {
    if (!r->ok()) return usage_error(kSub, r->error().detail);
  }
  o.seconds = *seconds;
  o.threads = static_cast<int>(*threads);
  o.batch = static_cast<int>(*batch);
  const std::string from = f.get_or("from", "last");
  if (from != "first" && from != "last") return usage_error(kSub, fmt::format("--from: '{}' is not first or last", from));
  o.from_first = from == "first";

  BenchRuntime br(static_cast<std::size_t>(o.threads));
  br.set_credentials(a.credentials);
  auto bench = std::make_unique<ConsumeBench>(std::move(o), br);
  const int code = br.rt().block_on(bench->run());
  bench.reset();
  return code;
}

}  // namespace ferry::bench
