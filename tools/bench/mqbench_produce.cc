// mqbench produce (and the producing half of mqbench e2e): mqbench_produce.h has the contract.
#include "tools/bench/mqbench_produce.h"

#include <fmt/format.h>

#include <charconv>
#include <cstdio>
#include <memory>
#include <optional>
#include <vector>

#include "client/admin_client.h"
#include "client/client_errors.h"
#include "client/transaction_producer.h"
#include "common/message_const.h"
#include "runtime/wake_signal.h"
#include "tools/bench/mqbench.h"

namespace ferry::bench {

namespace {

constexpr std::string_view kSub = "produce";
constexpr auto kDrainMax = std::chrono::seconds(10);  // after the send timeout (3 s): give up waiting
constexpr auto kPacingStep = std::chrono::milliseconds(1);  // --rate: messages start on these steps

struct Slot {  // one producer
  std::uint32_t index = 0;
  std::unique_ptr<client::ClientInstance> ci;
  std::unique_ptr<client::Producer> producer;
  std::unique_ptr<client::TransactionProducer> tx;  // --mode transaction (then `producer` is unset)
  std::unique_ptr<WakeSignal> space;  // async: an outcome freed a place in the window
  std::int64_t in_flight = 0;         // requests
  std::uint64_t sequence = 0;
};

}  // namespace

std::string_view mode_name(ProduceMode m) {
  switch (m) {
    case ProduceMode::sync: return "sync";
    case ProduceMode::async: return "async";
    case ProduceMode::oneway: return "oneway";
    case ProduceMode::transaction: return "transaction";
  }
  return "?";
}

struct ProduceBench::State {
  State(ProduceOptions o, BenchRuntime& b) : o(std::move(o)), br(b), bodies(this->o.size_bytes) {}

  const ProduceOptions o;
  BenchRuntime& br;
  const BodyMaker bodies;
  FILE* human() const { return o.json ? stderr : stdout; }

  std::vector<std::unique_ptr<Slot>> slots;
  bool stopping = false;  // no request starts any more (time or count)
  bool time_up = false;   // stopping because the time passed: a paced request that waited drops out
  int senders_running = 0;
  int batch_tasks_running = 0;
  bool reporter_running = false;
  std::int64_t in_flight = 0;         // requests
  std::uint64_t messages_started = 0;  // handed to a send call (or reserved by the pacer)
  SteadyTime start{};
  SteadyTime send_end{};
  SteadyTime drain_end{};
  std::unique_ptr<WakeSignal> report_wake;  // ends the reporter's sleep at the stop
  std::unique_ptr<WakeSignal> done_wake;    // the message count was reached

  LatencyHistogram interval;
  LatencyHistogram total;
  std::uint64_t ok_interval = 0;
  std::uint64_t ok_total = 0;
  std::uint64_t errors_interval = 0;
  ErrorTally errors;

  // Reserves the next request's messages, at most `n` (fewer when the count is nearly reached):
  // how many, or 0 when the run is over (time or count). With a rate, waits until the request's
  // scheduled start first.
  Task<std::uint64_t> reserve(std::uint64_t n);
  Message next_message(Slot& s);
  std::vector<Message> next_request(Slot& s, std::uint64_t n);
  std::int64_t elapsed_us(SteadyTime t0) const {
    return std::chrono::duration_cast<std::chrono::microseconds>(steady_now() - t0).count();
  }
  void record(SteadyTime t0, std::uint64_t n, const Result<client::SendResult>& r);
  void record_oneway(SteadyTime t0, const Status& s);
  void ok(std::int64_t us, std::uint64_t n);
  void failed(std::uint64_t n) { errors_interval += n; }
  Task<Status> create_topic();
  Task<void> shutdown();
};

namespace {

using State = ProduceBench::State;

Task<void> sync_sender(State* b, Slot* s) {
  while (true) {
    Task<std::uint64_t> rt = b->reserve(static_cast<std::uint64_t>(b->o.batch));
    const std::uint64_t reserved = co_await std::move(rt);
    if (reserved == 0) break;
    std::vector<Message> msgs = b->next_request(*s, reserved);
    const std::uint64_t n = msgs.size();
    const SteadyTime t0 = steady_now();
    ++s->in_flight;
    ++b->in_flight;
    Task<Result<client::SendResult>> t =
        n == 1 ? s->producer->send(std::move(msgs.front())) : s->producer->send_batch(std::move(msgs));
    Result<client::SendResult> r = co_await std::move(t);
    --s->in_flight;
    --b->in_flight;
    b->record(t0, n, r);
  }
  --b->senders_running;
}

Task<void> oneway_sender(State* b, Slot* s) {
  while (true) {
    Task<std::uint64_t> rt = b->reserve(1);
    if (co_await std::move(rt) == 0) break;
    Message m = b->next_message(*s);
    const SteadyTime t0 = steady_now();
    ++s->in_flight;
    ++b->in_flight;
    Task<Status> t = s->producer->send_oneway(std::move(m));
    Status st = co_await std::move(t);
    --s->in_flight;
    --b->in_flight;
    b->record_oneway(t0, st);
  }
  --b->senders_running;
}

// A transaction per message: the half message, a local transaction that commits at once, the
// COMMIT (oneway). Latency: to the half's outcome plus the verdict handed to the connection.
Task<void> transaction_sender(State* b, Slot* s) {
  while (true) {
    Task<std::uint64_t> rt = b->reserve(1);
    if (co_await std::move(rt) == 0) break;
    Message m = b->next_message(*s);
    const SteadyTime t0 = steady_now();
    ++s->in_flight;
    ++b->in_flight;
    Task<Result<client::TransactionSendResult>> t = s->tx->send_in_transaction(std::move(m));
    Result<client::TransactionSendResult> r = co_await std::move(t);
    --s->in_flight;
    --b->in_flight;
    // Only SEND_OK counts (record()): after any other status the producer rolled it back.
    b->record(t0, 1, r.ok() ? Result<client::SendResult>(r->send) : Result<client::SendResult>(std::move(r).error()));
  }
  --b->senders_running;
}

// One batch of the async mode: its own task, so that the sender goes on while it is in flight.
Task<void> async_batch(State* b, Slot* s, std::vector<Message> msgs, SteadyTime t0) {
  const std::uint64_t n = msgs.size();
  Task<Result<client::SendResult>> t = s->producer->send_batch(std::move(msgs));
  Result<client::SendResult> r = co_await std::move(t);
  --s->in_flight;
  --b->in_flight;
  b->record(t0, n, r);
  s->space->wake();
  --b->batch_tasks_running;
}

Task<void> async_sender(State* b, Slot* s) {
  while (true) {
    if (s->in_flight >= b->o.window) {
      if (b->stopping) break;
      Task<bool> w = s->space->wait_for(std::chrono::milliseconds(100));
      (void)co_await std::move(w);
      continue;
    }
    Task<std::uint64_t> rt = b->reserve(static_cast<std::uint64_t>(b->o.batch));
    const std::uint64_t reserved = co_await std::move(rt);
    if (reserved == 0) break;
    std::vector<Message> msgs = b->next_request(*s, reserved);
    const SteadyTime t0 = steady_now();
    ++s->in_flight;
    ++b->in_flight;
    if (msgs.size() > 1) {
      ++b->batch_tasks_running;
      b->br.rt().spawn(async_batch(b, s, std::move(msgs), t0), "mqbench-batch");
      continue;
    }
    client::SendCallback cb = [b, s, t0](Result<client::SendResult> r) {
      --s->in_flight;
      --b->in_flight;
      b->record(t0, 1, r);
      s->space->wake();
    };
    s->producer->send_async(std::move(msgs.front()), std::move(cb));
  }
  while (s->in_flight > 0) {  // every async send ends with its outcome (the send timeout bounds it)
    Task<bool> w = s->space->wait_for(std::chrono::milliseconds(100));
    (void)co_await std::move(w);
  }
  --b->senders_running;
}

Task<void> reporter(State* b) {
  SteadyTime last = b->start;
  for (int tick = 1; !b->stopping; ++tick) {
    Task<void> tick_wait = until_tick(*b->report_wake, b->start, tick);
    co_await std::move(tick_wait);
    if (b->stopping) break;
    const SteadyTime at = steady_now();
    const double secs = seconds_between(last, at);
    last = at;
    const double tps = secs > 0 ? static_cast<double>(b->ok_interval) / secs : 0.0;
    const double mbs = tps * static_cast<double>(b->o.size_bytes) / 1e6;
    std::fprintf(b->human(), "[%4ds] %8.0f msg/s %8.2f MB/s  latency ms %s  errors %llu  in-flight %lld\n", tick, tps, mbs,
                 percentiles_text(b->interval).c_str(), static_cast<unsigned long long>(b->errors_interval),
                 static_cast<long long>(b->in_flight));
    std::fflush(b->human());
    b->interval.reset();
    b->ok_interval = 0;
    b->errors_interval = 0;
  }
  b->reporter_running = false;
}

}  // namespace

Task<std::uint64_t> State::reserve(std::uint64_t n) {
  if (stopping) co_return 0;
  if (o.messages > 0) {
    const auto count = static_cast<std::uint64_t>(o.messages);
    const std::uint64_t left = count - std::min(messages_started, count);
    if (left == 0) co_return 0;
    n = std::min(n, left);
  }
  const std::uint64_t k = messages_started;
  messages_started += n;
  if (o.messages > 0 && messages_started >= static_cast<std::uint64_t>(o.messages)) done_wake->wake();
  if (o.rate > 0) {
    // Message k is due at k/rate, rounded up to the pacing step: every message due within one
    // step starts together, so the pacing costs one timer wake a step rather than one a message.
    const auto step_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(kPacingStep).count();
    const auto offset_ns = static_cast<std::int64_t>(static_cast<double>(k) / o.rate * 1e9);
    const std::int64_t steps = (offset_ns + step_ns - 1) / step_ns;
    const SteadyTime due = start + std::chrono::nanoseconds(steps * step_ns);
    const SteadyTime now = steady_now();
    if (due > now) co_await br.rt().sleep(std::chrono::duration_cast<Duration>(due - now));
    if (time_up) co_return 0;  // (a count reached meanwhile does not drop the reserved messages)
  }
  co_return n;
}

Message State::next_message(Slot& s) {
  Message m;
  m.topic = o.topic;
  const std::uint64_t seq = s.sequence++;
  m.body = bodies.make(s.index, seq);
  if (o.keys) m.set_keys(fmt::format("mqbench-{}-{}", s.index, seq));
  if (o.tag) m.set_tags(*o.tag);
  if (o.timer_delay_ms) {
    // Spread evenly over the range: a multiplicative hash of (producer, seq), not a clock or a
    // random device, so that two runs ask for the same delays.
    const auto [lo, hi] = *o.timer_delay_ms;
    const std::uint64_t h = (seq * 0x9E3779B97F4A7C15ULL) ^ (static_cast<std::uint64_t>(s.index) << 32);
    const std::int64_t delay = lo + static_cast<std::int64_t>(h % static_cast<std::uint64_t>(hi - lo + 1));
    m.properties.set(std::string(prop::kTimerDelayMs), std::to_string(delay));
  }
  return m;
}

std::vector<Message> State::next_request(Slot& s, std::uint64_t n) {
  std::vector<Message> msgs;
  msgs.reserve(n);
  for (std::uint64_t i = 0; i < n; ++i) msgs.push_back(next_message(s));
  return msgs;
}

void State::ok(std::int64_t us, std::uint64_t n) {
  ok_interval += n;
  ok_total += n;
  for (std::uint64_t i = 0; i < n; ++i) {
    interval.record_us(us);
    total.record_us(us);
  }
}

void State::record(SteadyTime t0, std::uint64_t n, const Result<client::SendResult>& r) {
  const std::int64_t us = elapsed_us(t0);
  if (!r.ok()) {
    failed(n);
    for (std::uint64_t i = 0; i < n; ++i) errors.add(r.error());
  } else if (r->status != client::SendStatus::SEND_OK) {
    failed(n);
    for (std::uint64_t i = 0; i < n; ++i) {
      errors.add(fmt::format("status {} (stored, not SEND_OK)", client::name(r->status)),
                 fmt::format("queue {} offset {}", r->queue.to_string(), r->queue_offset.value()));
    }
  } else {
    ok(us, n);
  }
}

void State::record_oneway(SteadyTime t0, const Status& s) {
  const std::int64_t us = elapsed_us(t0);
  if (!s.ok()) {
    failed(1);
    errors.add(s.error());
  } else {
    ok(us, 1);
  }
}

Task<Status> State::create_topic() {
  client::AdminClient admin(*slots.front()->ci);
  std::vector<std::string> clusters;
  if (o.cluster) {
    clusters.push_back(*o.cluster);
  } else {
    Task<Result<remoting::body::ClusterInfo>> it = admin.cluster_info();
    Result<remoting::body::ClusterInfo> info = co_await std::move(it);
    if (!info.ok()) co_return std::move(info).error();
    for (const auto& [name, brokers] : info->cluster_addr_table) clusters.push_back(name);
    if (clusters.empty()) co_return Error(Errc::not_found, "the NameServers know no cluster");
  }
  remoting::body::TopicConfig config;
  config.topic_name = o.topic;
  config.read_queue_nums = o.queues;
  config.write_queue_nums = o.queues;
  config.perm = 6;
  for (const std::string& cluster : clusters) {
    Task<Status> ct = admin.create_topic_in_cluster(cluster, config);
    Status s = co_await std::move(ct);
    if (!s.ok()) co_return s;
  }
  // The brokers register the topic with the NameServers at once; wait until a route shows it.
  const SteadyTime end = steady_now() + std::chrono::seconds(10);
  while (true) {
    Task<Result<remoting::body::TopicRouteData>> rt = admin.topic_route(o.topic);
    Result<remoting::body::TopicRouteData> route = co_await std::move(rt);
    if (route.ok()) co_return Status{};
    if (steady_now() >= end) co_return client::with_context("the route after creating the topic", std::move(route).error());
    co_await br.rt().sleep(std::chrono::milliseconds(100));
  }
}

Task<void> State::shutdown() {
  for (auto& s : slots) {
    if (s->producer) {
      Task<void> t = s->producer->shutdown();
      co_await std::move(t);
    }
    if (s->tx) {
      Task<void> t = s->tx->shutdown();
      co_await std::move(t);
    }
  }
  for (auto& s : slots) {
    Task<void> t = s->ci->shutdown();
    co_await std::move(t);
  }
}

ProduceBench::ProduceBench(ProduceOptions o, BenchRuntime& br) : s_(std::make_unique<State>(std::move(o), br)) {}
ProduceBench::~ProduceBench() = default;
bool ProduceBench::stuck() const { return s_->in_flight > 0; }
std::uint64_t ProduceBench::sent_ok() const { return s_->ok_total; }

Task<int> ProduceBench::open() {
  State& b = *s_;
  for (int i = 0; i < b.o.producers; ++i) {
    auto s = std::make_unique<Slot>();
    s->index = static_cast<std::uint32_t>(i);
    s->ci = std::make_unique<client::ClientInstance>(b.br.rt(), b.br.client_config(b.o.namesrv, i));
    client::ProducerConfig pc;
    pc.group = b.o.group;
    pc.async_sends_in_flight_max = std::max<std::size_t>(pc.async_sends_in_flight_max, static_cast<std::size_t>(b.o.window));
    s->space = std::make_unique<WakeSignal>(b.br.rt());
    Status started;
    if (b.o.mode == ProduceMode::transaction) {
      client::TransactionListener listener;
      listener.execute = [](const Message&, const client::SendResult&) { return client::LocalTransactionState::commit; };
      listener.check = [](const MessageExt&) { return client::LocalTransactionState::commit; };
      s->tx = std::make_unique<client::TransactionProducer>(*s->ci, pc, std::move(listener));
      started = s->tx->start();
    } else {
      s->producer = std::make_unique<client::Producer>(*s->ci, pc);
      started = s->producer->start();
    }
    b.slots.push_back(std::move(s));
    if (!started.ok()) {
      std::fprintf(stderr, "mqbench %s: producer %d: %s\n", kSub.data(), i, started.error().to_string().c_str());
      co_return kExitFailed;
    }
  }
  if (b.o.create_topic) {
    Task<Status> ct = b.create_topic();
    Status created = co_await std::move(ct);
    if (!created.ok()) {
      std::fprintf(stderr, "mqbench %s: create topic '%s': %s\n", kSub.data(), b.o.topic.c_str(),
                   created.error().to_string().c_str());
      co_return kExitFailed;
    }
  }
  // Routes before the clock starts (connections are still made by the first sends).
  std::size_t queues = 0;
  for (auto& s : b.slots) {
    Task<Status> ut = s->ci->update_topic_route(b.o.topic);
    Status routed = co_await std::move(ut);
    if (routed.ok()) queues = s->ci->subscribe_queues(b.o.topic).size();
  }
  const std::string where = queues > 0 ? fmt::format("{} queues", queues) : "no route yet: the broker may auto-create it";
  std::string limits = fmt::format("{} s", b.o.seconds);
  if (b.o.messages > 0) limits += fmt::format(" or {} messages", b.o.messages);
  if (b.o.rate > 0) limits += fmt::format(", {:.0f} msg/s target", b.o.rate);
  std::fputs(fmt::format("mqbench produce: topic {} ({}), {} producer(s) x window {}, batch {}, mode {}, {}-byte bodies, {}\n",
                         b.o.topic, where, b.o.producers, b.o.window, b.o.batch, mode_name(b.o.mode), b.o.size_bytes, limits)
                 .c_str(),
             b.human());
  std::fflush(b.human());
  co_return kExitOk;
}

Task<void> ProduceBench::send() {
  State& b = *s_;
  b.report_wake = std::make_unique<WakeSignal>(b.br.rt());
  b.done_wake = std::make_unique<WakeSignal>(b.br.rt());
  b.start = steady_now();
  for (auto& s : b.slots) {
    const int coroutines = b.o.mode == ProduceMode::async ? 1 : b.o.window;
    for (int k = 0; k < coroutines; ++k) {
      ++b.senders_running;
      switch (b.o.mode) {
        case ProduceMode::sync: b.br.rt().spawn(sync_sender(&b, s.get()), "mqbench-sync"); break;
        case ProduceMode::async: b.br.rt().spawn(async_sender(&b, s.get()), "mqbench-async"); break;
        case ProduceMode::oneway: b.br.rt().spawn(oneway_sender(&b, s.get()), "mqbench-oneway"); break;
        case ProduceMode::transaction: b.br.rt().spawn(transaction_sender(&b, s.get()), "mqbench-transaction"); break;
      }
    }
  }
  b.reporter_running = true;
  b.br.rt().spawn(reporter(&b), "mqbench-report");
  const SteadyTime deadline = b.start + std::chrono::seconds(b.o.seconds);
  while (true) {  // the time, or the count (done_wake)
    const SteadyTime now = steady_now();
    if (now >= deadline) {
      b.time_up = true;
      break;
    }
    Task<bool> w = b.done_wake->wait_for(std::chrono::duration_cast<Duration>(deadline - now));
    if (co_await std::move(w)) break;
  }
  b.stopping = true;
  b.report_wake->wake();
  for (auto& s : b.slots) s->space->wake();
  b.send_end = steady_now();
  while ((b.senders_running > 0 || b.batch_tasks_running > 0 || b.reporter_running) &&
         steady_now() - b.send_end < kDrainMax) {
    co_await b.br.rt().sleep(std::chrono::milliseconds(1));
  }
  b.drain_end = steady_now();
}

ProduceFigures ProduceBench::summary() {
  const State& b = *s_;
  ProduceFigures f;
  f.sent_ok = b.ok_total;
  f.errors = b.errors.total() + static_cast<std::uint64_t>(std::max<std::int64_t>(0, b.in_flight));
  f.send_seconds = seconds_between(b.start, b.send_end);
  f.total_seconds = seconds_between(b.start, b.drain_end);
  f.msgs_per_s = f.total_seconds > 0 ? static_cast<double>(b.ok_total) / f.total_seconds : 0.0;
  f.mb_per_s = f.msgs_per_s * static_cast<double>(b.o.size_bytes) / 1e6;
  f.latency = &b.total;
  std::string out = "\n--- mqbench produce summary ---\n";
  out += fmt::format("mode {}, {} producer(s) x window {}, batch {}, {}-byte bodies, topic {}\n", mode_name(b.o.mode),
                     b.o.producers, b.o.window, b.o.batch, b.o.size_bytes, b.o.topic);
  out += fmt::format("duration:      {:.2f} s sending + {:.2f} s draining in-flight sends\n", f.send_seconds,
                     f.total_seconds - f.send_seconds);
  out += fmt::format("sent ok:       {}{}\n", b.ok_total,
                     b.o.mode == ProduceMode::oneway ? " (oneway: handed to the connection, never acknowledged)" : " (SEND_OK)");
  out += fmt::format("errors:        {}\n", f.errors);
  out += b.errors.render();
  if (b.in_flight > 0) {
    out += fmt::format("  {:<40} {:>10}  (no outcome {} s after the end)\n", "still in flight", b.in_flight, kDrainMax.count());
  }
  out += fmt::format("throughput:    {:.0f} msg/s, {:.2f} MB/s of bodies (ok sends / {:.2f} s)\n", f.msgs_per_s, f.mb_per_s,
                     f.total_seconds);
  out += fmt::format("latency ms:    avg {}, {} (n={}, ok sends, send call to outcome)\n",
                     ms_text(static_cast<std::int64_t>(b.total.mean_us())), percentiles_text(b.total), b.total.count());
  std::fputs(out.c_str(), b.human());
  std::fflush(b.human());
  return f;
}

std::string ProduceBench::json_members() const {
  const State& b = *s_;
  const double secs = seconds_between(b.start, b.drain_end);
  const double tps = secs > 0 ? static_cast<double>(b.ok_total) / secs : 0.0;
  return fmt::format(
      "\"mode\":\"{}\",\"producers\":{},\"window\":{},\"batch\":{},\"size_bytes\":{},\"rate_target\":{:.0f},"
      "\"sent_ok\":{},\"errors\":{},\"seconds\":{:.3f},\"msgs_per_s\":{:.1f},\"mb_per_s\":{:.3f},\"latency_ms\":{}",
      mode_name(b.o.mode), b.o.producers, b.o.window, b.o.batch, b.o.size_bytes, b.o.rate, b.ok_total,
      b.errors.total() + static_cast<std::uint64_t>(std::max<std::int64_t>(0, b.in_flight)), secs, tps,
      tps * static_cast<double>(b.o.size_bytes) / 1e6, json_latency(b.total));
}

Task<int> ProduceBench::close() {
  State& b = *s_;
  const bool clean = b.errors.total() == 0 && b.in_flight == 0 && b.ok_total > 0;
  if (stuck()) co_return kExitFailed;  // no shutdown: sends in flight still use the producers
  Task<void> t = b.shutdown();
  co_await std::move(t);
  co_return clean ? kExitOk : kExitFailed;
}

namespace {

const std::vector<cli::FlagSpec> kSpecs = {
    {'t', "topic", "TOPIC", "topic to send to", true},
    {'s', "size", "BYTES", "body size, 32..4194304 (default 1024)"},
    {'p', "producers", "N", "producer instances, each with its own connection to every broker (default 1)"},
    {0, "connections", "N", "the same as --producers"},
    {'w', "window", "N", "requests in flight per producer at most (default 64)"},
    {'b', "batch", "N", "messages per request: N > 1 sends batches (SEND_BATCH_MESSAGE), not with oneway (default 1)"},
    {'m', "mode", "MODE", "sync | async | oneway | transaction (default async)"},
    {'d', "seconds", "S", "how long to send at most (default 10; 3600 with --messages)"},
    {0, "messages", "N", "stop after N messages (default: no count)"},
    {0, "rate", "N", "start N messages a second over all producers, paced in 1 ms steps (default: as fast as the window allows)"},
    {0, "create-topic", "", "create the topic first (UPDATE_AND_CREATE_TOPIC on every master)"},
    {'q', "queues", "N", "with --create-topic: read and write queues (default 8)"},
    {'c', "cluster", "CLUSTER", "with --create-topic: only this cluster (default: every cluster)"},
    {'g', "group", "GROUP", "producer group (default mqbench_producer)"},
    {'k', "keys", "", "give every message a unique KEYS value (indexed by the broker)"},
    {0, "tag", "TAG", "TAGS of every message (default none)"},
    {0, "timer-delay-ms", "MIN[-MAX]",
     "timer messages: each asks for a delay (TIMER_DELAY_MS) spread over MIN..MAX ms; a consumer reports lateness"},
    {0, "json", "", "print the summary's figures as one JSON object on stdout (the rest goes to stderr)"},
};

}  // namespace

const std::vector<cli::FlagSpec>& produce_flag_specs() { return kSpecs; }

Result<ProduceOptions> produce_options(const BenchArgs& a) {
  const cli::ParsedFlags& f = a.flags;
  ProduceOptions o;
  o.namesrv = a.namesrv;
  o.topic = *f.get("topic");
  if (f.has("producers") && f.has("connections")) {
    return Error(Errc::invalid_argument, "--producers and --connections are the same flag: give one");
  }
  Result<std::int64_t> size = f.int_in("size", static_cast<std::int64_t>(kBodyHeaderBytes), 4 * 1024 * 1024, 1024);
  Result<std::int64_t> producers = f.int_in(f.has("connections") ? "connections" : "producers", 1, 256, 1);
  Result<std::int64_t> window = f.int_in("window", 1, 65536, 64);
  Result<std::int64_t> batch = f.int_in("batch", 1, 1024, 1);
  Result<std::int64_t> messages = f.int_in("messages", 1, std::int64_t{1} << 40, 0);
  Result<std::int64_t> seconds = f.int_in("seconds", 1, 86400, f.has("messages") ? 3600 : 10);
  Result<std::int64_t> rate = f.int_in("rate", 1, 100'000'000, 0);
  Result<std::int64_t> queues = f.int_in("queues", 1, 1024, 8);
  for (const auto* r : {&size, &producers, &window, &batch, &messages, &seconds, &rate, &queues}) {
    if (!r->ok()) return r->error();
  }
  o.size_bytes = static_cast<std::size_t>(*size);
  o.producers = static_cast<int>(*producers);
  o.window = static_cast<int>(*window);
  o.batch = static_cast<int>(*batch);
  o.messages = *messages;
  o.seconds = *seconds;
  o.rate = static_cast<double>(*rate);
  o.queues = static_cast<int>(*queues);
  const std::string mode = f.get_or("mode", "async");
  if (mode == "sync") {
    o.mode = ProduceMode::sync;
  } else if (mode == "async") {
    o.mode = ProduceMode::async;
  } else if (mode == "oneway") {
    o.mode = ProduceMode::oneway;
  } else if (mode == "transaction") {
    o.mode = ProduceMode::transaction;
  } else {
    return Error(Errc::invalid_argument, fmt::format("--mode: '{}' is not one of sync, async, oneway, transaction", mode));
  }
  if (o.mode == ProduceMode::transaction && o.batch > 1) {
    return Error(Errc::invalid_argument, "--batch: RocketMQ has no transactional batches, so not with --mode transaction");
  }
  if (o.mode == ProduceMode::oneway && o.batch > 1) {
    return Error(Errc::invalid_argument, "--batch: a batch needs a reply, so not with --mode oneway");
  }
  o.create_topic = f.has("create-topic");
  o.cluster = f.get("cluster");
  o.group = f.get_or("group", "mqbench_producer");
  o.keys = f.has("keys");
  o.tag = f.get("tag");
  if (const auto timer = f.get("timer-delay-ms")) {
    const std::string_view t = *timer;
    const std::size_t dash = t.find('-');
    const std::string_view lo_text = t.substr(0, dash);
    const std::string_view hi_text = dash == std::string_view::npos ? lo_text : t.substr(dash + 1);
    std::int64_t lo = 0, hi = 0;
    const auto a = std::from_chars(lo_text.data(), lo_text.data() + lo_text.size(), lo);
    const auto b = std::from_chars(hi_text.data(), hi_text.data() + hi_text.size(), hi);
    if (a.ec != std::errc() || a.ptr != lo_text.data() + lo_text.size() || b.ec != std::errc() ||
        b.ptr != hi_text.data() + hi_text.size() || lo < 1 || hi < lo || hi > 259'200'000) {
      return Error(Errc::invalid_argument,
                   fmt::format("--timer-delay-ms: '{}' is not MIN or MIN-MAX, 1 <= MIN <= MAX <= 259200000", t));
    }
    if (o.batch > 1) return Error(Errc::invalid_argument, "--timer-delay-ms: timer messages cannot be batched");
    o.timer_delay_ms = std::make_pair(lo, hi);
  }
  o.json = f.has("json");
  return o;
}

int produce_main(std::span<const std::string> args) {
  std::variant<BenchArgs, int> parsed =
      parse_args(kSub, "send messages for a while; per-second and final throughput, send latency and errors", kSpecs, args);
  if (const int* code = std::get_if<int>(&parsed)) return *code;
  Result<ProduceOptions> o = produce_options(std::get<BenchArgs>(parsed));
  if (!o.ok()) return usage_error(kSub, o.error().detail);
  const bool json = o->json;

  BenchRuntime br(1, std::get<BenchArgs>(parsed).tls);
  br.set_credentials(std::get<BenchArgs>(parsed).credentials);
  auto bench = std::make_unique<ProduceBench>(std::move(*o), br);
  auto run = [](ProduceBench* b, bool json) -> Task<int> {
    Task<int> ot = b->open();
    if (const int opened = co_await std::move(ot); opened != kExitOk) {
      Task<int> ct = b->close();
      (void)co_await std::move(ct);
      co_return opened;
    }
    Task<void> st = b->send();
    co_await std::move(st);
    (void)b->summary();
    if (json) {
      std::fputs(fmt::format("{{\"sub\":\"produce\",{}}}\n", b->json_members()).c_str(), stdout);
      std::fflush(stdout);
    }
    Task<int> ct = b->close();
    co_return co_await std::move(ct);
  };
  const int code = br.rt().block_on(run(bench.get(), json));
  if (bench->stuck()) {
    (void)bench.release();  // see ProduceBench::stuck()
  } else {
    bench.reset();
  }
  return code;
}

}  // namespace ferry::bench
