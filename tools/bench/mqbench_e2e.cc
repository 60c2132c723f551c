// mqbench e2e: produce and consume at once in one process (two event loops on two threads: the
// producers of mqbench_produce.h on one, the push consumer of mqbench_consume.h on the other, as
// separate producer and consumer processes would run), for the end-to-end latency of
// each message: the consumer's wall clock at receipt minus the body's stamp, taken by the same
// process just before the send call (so no clock disagreement and microsecond resolution).
//
// Order: the producers start (and create the topic when asked); the consumer starts and the run
// waits until it holds its queues and has a pull outstanding on each (at most --warmup-s); the
// producers send for --seconds / --messages, at --rate when given ("e2e p99 at half the peak
// produce rate" is a run at --rate of half the peak an unpaced run measured); then the run waits
// until the consumer has received as many messages as were sent ok (at most --tail-s more).
// The summary is the produce summary, the consume summary, and one line comparing the counts; it
// exits 0 only when no send failed, no body was corrupt and every message sent ok was received.
#include <fmt/format.h>

#include <atomic>
#include <cstdio>
#include <thread>

#include "tools/bench/mqbench.h"
#include "tools/bench/mqbench_consume.h"
#include "tools/bench/mqbench_produce.h"

namespace ferry::bench {

namespace {

constexpr std::string_view kSub = "e2e";

struct E2eOptions {
  std::int64_t warmup_s = 10;
  std::int64_t tail_s = 30;
};

std::vector<cli::FlagSpec> e2e_specs() {
  std::vector<cli::FlagSpec> specs = produce_flag_specs();
  specs.push_back({0, "consumer-group", "GROUP", "the consumer's group (default mqbench_e2e)"});
  specs.push_back({0, "from", "WHERE", "where a queue the group never committed starts: first | last (default last)"});
  specs.push_back({0, "threads", "N", "listener calls at once (default 20)"});
  specs.push_back({0, "pop", "N", "consume by POP (RocketMQ 5) with N receive loops instead of a push consumer"});
  specs.push_back({0, "warmup-s", "S", "wait at most S s for the consumer to pull before sending (default 10)"});
  specs.push_back({0, "tail-s", "S", "after sending, wait at most S s for the last messages (default 30)"});
  return specs;
}

// What the producer's loop and the consumer's loop tell each other. Each side runs on its own
// runtime and thread, as a producer and a consumer in two processes would: one loop serving both
// saturates at a rate a single producer reaches alone, and queueing then decides the latency.
struct E2eShared {
  std::atomic<int> consumer_open{-1};  // the consumer's open() result; -1 until known
  std::atomic<bool> pulling{false};    // ConsumeBench::pulling(), as its loop last saw it
  std::atomic<bool> stop{false};       // set by the producer's side: stop consuming
  std::atomic<bool> stopped{false};    // set by the consumer's side: stopped, summary readable
  std::atomic<bool> close{false};      // set by the producer's side: summaries printed
};

Task<int> consume_side(ConsumeBench* c, E2eShared* s, BenchRuntime* br) {
  Task<int> ot = c->open();
  const int code = co_await std::move(ot);
  s->consumer_open.store(code);
  if (code == kExitOk) {
    Task<void> w = c->wait([c, s](std::uint64_t) {
      s->pulling.store(c->pulling());
      return s->stop.load();
    });
    co_await std::move(w);
  }
  Task<void> st = c->stop();
  co_await std::move(st);
  s->stopped.store(true);
  while (!s->close.load()) co_await br->rt().sleep(std::chrono::milliseconds(5));
  Task<int> cc = c->close();
  const int closed = co_await std::move(cc);
  co_return code == kExitOk ? closed : code;
}

// Asks the consumer's side to stop and waits until it has.
Task<void> stop_consumer(E2eShared* s, BenchRuntime* br) {
  s->stop.store(true);
  while (!s->stopped.load()) co_await br->rt().sleep(std::chrono::milliseconds(5));
}

// The run on the producer's loop; reads the consumer only through `s` and the thread-safe
// received(), and its summary once the consumer's side has stopped.
Task<int> produce_side(ProduceBench* p, ConsumeBench* c, E2eShared* s, E2eOptions e, bool json, BenchRuntime* br) {
  Task<int> pot = p->open();
  int code = co_await std::move(pot);
  while (s->consumer_open.load() < 0) co_await br->rt().sleep(std::chrono::milliseconds(5));
  if (code == kExitOk) code = s->consumer_open.load();
  if (code != kExitOk) {
    Task<void> sc = stop_consumer(s, br);
    co_await std::move(sc);
    s->close.store(true);
    Task<int> pc = p->close();
    (void)co_await std::move(pc);
    co_return code;
  }
  const SteadyTime warm_end = steady_now() + std::chrono::seconds(e.warmup_s);
  while (!s->pulling.load() && steady_now() < warm_end) co_await br->rt().sleep(std::chrono::milliseconds(10));
  const bool warmed = s->pulling.load();
  Task<void> st = p->send();
  co_await std::move(st);
  const std::uint64_t sent = p->sent_ok();
  const SteadyTime tail_start = steady_now();
  const SteadyTime tail_end = tail_start + std::chrono::seconds(e.tail_s);
  while (c->received() < sent && steady_now() < tail_end) co_await br->rt().sleep(std::chrono::milliseconds(5));
  const double tail_s = seconds_between(tail_start, steady_now());
  Task<void> sc = stop_consumer(s, br);
  co_await std::move(sc);
  (void)p->summary();
  c->summary();
  const std::uint64_t received = c->received();
  FILE* human = json ? stderr : stdout;
  std::fputs(fmt::format("\n--- mqbench e2e ---\nsent ok {}, received {} ({:.2f} s after the last send){}{}\n", sent, received,
                         tail_s, received < sent ? fmt::format(", {} missing", sent - received) : "",
                         warmed ? "" : "; the consumer had not pulled every queue when sending began")
                 .c_str(),
             human);
  std::fflush(human);
  if (json) {
    std::fputs(fmt::format("{{\"sub\":\"e2e\",\"produce\":{{{}}},\"consume\":{{{}}},\"missing\":{}}}\n", p->json_members(),
                           c->json_members(), sent > received ? sent - received : 0)
                   .c_str(),
               stdout);
    std::fflush(stdout);
  }
  s->close.store(true);
  Task<int> pc = p->close();
  const int produced = co_await std::move(pc);
  co_return produced == kExitOk && received >= sent ? kExitOk : kExitFailed;
}

}  // namespace

int e2e_main(std::span<const std::string> args) {
  const std::vector<cli::FlagSpec> specs = e2e_specs();
  std::variant<BenchArgs, int> parsed = parse_args(
      kSub, "produce and consume at once; send latency, end-to-end latency (receipt minus the send's stamp), throughput",
      specs, args);
  if (const int* code = std::get_if<int>(&parsed)) return *code;
  const BenchArgs& a = std::get<BenchArgs>(parsed);
  Result<ProduceOptions> po = produce_options(a);
  if (!po.ok()) return usage_error(kSub, po.error().detail);
  const cli::ParsedFlags& f = a.flags;
  Result<std::int64_t> threads = f.int_in("threads", 1, 256, 20);
  Result<std::int64_t> warmup = f.int_in("warmup-s", 0, 600, 10);
  Result<std::int64_t> tail = f.int_in("tail-s", 0, 3600, 30);
  Result<std::int64_t> pop = f.int_in("pop", 1, 1024, 0);
  for (const auto* r : {&threads, &warmup, &tail, &pop}) {
    if (!r->ok()) return usage_error(kSub, r->error().detail);
  }
  const std::string from = f.get_or("from", "last");
  if (from != "first" && from != "last") return usage_error(kSub, fmt::format("--from: '{}' is not first or last", from));
  ConsumeOptions co;
  co.namesrv = a.namesrv;
  co.topic = po->topic;
  co.group = f.get_or("consumer-group", "mqbench_e2e");
  co.from_first = from == "first";
  co.threads = static_cast<int>(*threads);
  co.pop = static_cast<int>(*pop);
  co.json = po->json;
  co.seconds = *warmup + po->seconds + *tail + 60;  // never the limit: the run stops the consumer
  const E2eOptions e{*warmup, *tail};
  const bool json = po->json;

  BenchRuntime pbr(1, a.tls);
  pbr.set_credentials(a.credentials);
  BenchRuntime cbr(static_cast<std::size_t>(co.threads), a.tls);
  cbr.set_credentials(a.credentials);
  auto producer = std::make_unique<ProduceBench>(std::move(*po), pbr);
  auto consumer = std::make_unique<ConsumeBench>(std::move(co), cbr);
  E2eShared shared;
  int consumed = kExitFailed;
  std::thread consumer_loop([&] { consumed = cbr.rt().block_on(consume_side(consumer.get(), &shared, &cbr)); });
  int code = pbr.rt().block_on(produce_side(producer.get(), consumer.get(), &shared, e, json, &pbr));
  consumer_loop.join();
  if (code == kExitOk && consumed != kExitOk) code = consumed;
  consumer.reset();
  if (producer->stuck()) {
    (void)producer.release();  // see ProduceBench::stuck()
  } else {
    producer.reset();
  }
  return code;
}

}  // namespace ferry::bench
