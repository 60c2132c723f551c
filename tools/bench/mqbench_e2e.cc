// mqbench e2e: produce and consume at once in one process (one event loop, the producers of
// mqbench_produce.h and the push consumer of mqbench_consume.h), for the end-to-end latency of
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

#include <cstdio>

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
  specs.push_back({0, "warmup-s", "S", "wait at most S s for the consumer to pull before sending (default 10)"});
  specs.push_back({0, "tail-s", "S", "after sending, wait at most S s for the last messages (default 30)"});
  return specs;
}

Task<int> run_e2e(ProduceBench* p, ConsumeBench* c, E2eOptions e, bool json, BenchRuntime* br) {
  Task<int> pot = p->open();
  int code = co_await std::move(pot);
  if (code == kExitOk) {
    Task<int> cot = c->open();
    code = co_await std::move(cot);
  }
  if (code != kExitOk) {
    Task<void> cs = c->stop();
    co_await std::move(cs);
    Task<int> cc = c->close();
    (void)co_await std::move(cc);
    Task<int> pc = p->close();
    (void)co_await std::move(pc);
    co_return code;
  }
  const SteadyTime warm_end = steady_now() + std::chrono::seconds(e.warmup_s);
  while (!c->pulling() && steady_now() < warm_end) co_await br->rt().sleep(std::chrono::milliseconds(10));
  const bool warmed = c->pulling();
  Task<void> st = p->send();
  co_await std::move(st);
  const std::uint64_t sent = p->sent_ok();
  const SteadyTime tail_start = steady_now();
  const SteadyTime tail_end = tail_start + std::chrono::seconds(e.tail_s);
  while (c->received() < sent && steady_now() < tail_end) co_await br->rt().sleep(std::chrono::milliseconds(5));
  const double tail_s = seconds_between(tail_start, steady_now());
  Task<void> cs = c->stop();
  co_await std::move(cs);
  const ProduceFigures pf = p->summary();
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
  Task<int> cc = c->close();
  const int consumed = co_await std::move(cc);
  Task<int> pc = p->close();
  const int produced = co_await std::move(pc);
  (void)pf;
  co_return produced == kExitOk && consumed == kExitOk && received >= sent ? kExitOk : kExitFailed;
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
  for (const auto* r : {&threads, &warmup, &tail}) {
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
  co.json = po->json;
  co.seconds = *warmup + po->seconds + *tail + 60;  // never the limit: the run stops the consumer
  const E2eOptions e{*warmup, *tail};
  const bool json = po->json;

  BenchRuntime br(static_cast<std::size_t>(co.threads), a.tls);
  br.set_credentials(a.credentials);
  auto producer = std::make_unique<ProduceBench>(std::move(*po), br);
  auto consumer = std::make_unique<ConsumeBench>(std::move(co), br);
  const int code = br.rt().block_on(run_e2e(producer.get(), consumer.get(), e, json, &br));
  consumer.reset();
  if (producer->stuck()) {
    (void)producer.release();  // see ProduceBench::stuck()
  } else {
    producer.reset();
  }
  return code;
}

}  // namespace ferry::bench
