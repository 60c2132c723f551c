// mqbench produce: N producers (each its own ClientInstance, so its own connection to every
// broker), each keeping at most W sends in flight, for S seconds, on one event loop (the main
// thread's AsioRuntime).
//
//   sync:   W coroutines per producer, each awaiting Producer::send() before the next send
//   async:  one coroutine per producer issuing Producer::send_async() while fewer than W of its
//           sends await their callback, then waiting for a callback
//   oneway: W coroutines per producer awaiting Producer::send_oneway() (done when the request is
//           handed to the connection: no acknowledgement exists)
//
// Latency of a send: from just before the send call to its outcome (the callback, the awaited
// result). A send counts as ok only with SEND_OK; any other status (FLUSH_DISK_TIMEOUT, ...) and
// every error counts as an error by kind. Percentiles come from LatencyHistogram (ok sends only):
// per second for the report line, and over the whole run for the summary. When the time is up no
// new send starts; sends in flight are awaited (each is bounded by the producer's 3 s send
// timeout) and counted, and the summary's rates divide by the time including that drain.
#include <fmt/format.h>

#include <cstdio>
#include <memory>
#include <optional>
#include <vector>

#include "client/admin_client.h"
#include "client/client_errors.h"
#include "client/producer.h"
#include "runtime/wake_signal.h"
#include "tools/bench/mqbench.h"
#include "tools/bench/mqbench_common.h"

namespace ferry::bench {

namespace {

constexpr std::string_view kSub = "produce";
constexpr auto kDrainMax = std::chrono::seconds(10);  // after the send timeout (3 s): give up waiting

enum class Mode : std::uint8_t { sync, async, oneway };

std::string_view mode_name(Mode m) {
  switch (m) {
    case Mode::sync: return "sync";
    case Mode::async: return "async";
    case Mode::oneway: return "oneway";
  }
  return "?";
}

struct Options {
  std::vector<std::string> namesrv;
  std::string topic;
  std::size_t size_bytes = 1024;
  int producers = 1;
  int window = 64;
  Mode mode = Mode::async;
  std::int64_t seconds = 10;
  bool create_topic = false;
  int queues = 8;
  std::optional<std::string> cluster;
  std::string group;
  bool keys = false;
  std::optional<std::string> tag;
};

struct Slot {  // one producer
  std::uint32_t index = 0;
  std::unique_ptr<client::ClientInstance> ci;
  std::unique_ptr<client::Producer> producer;
  std::unique_ptr<WakeSignal> space;  // async: a callback freed a place in the window
  std::int64_t in_flight = 0;
  std::uint64_t sequence = 0;
};

class ProduceBench {
 public:
  ProduceBench(Options o, BenchRuntime& br) : o_(std::move(o)), br_(br), bodies_(o_.size_bytes) {}

  // Everything from start-up to the summary; the exit code.
  Task<int> run();
  // Sends still in flight after the drain bound: their tasks refer to the producers, so the bench
  // must then outlive the runtime (main leaks it; the process ends right after).
  bool stuck() const { return in_flight_ > 0; }

 private:
  static Task<void> sync_sender(ProduceBench* b, Slot* s);
  static Task<void> oneway_sender(ProduceBench* b, Slot* s);
  static Task<void> async_sender(ProduceBench* b, Slot* s);
  static Task<void> reporter(ProduceBench* b);

  Task<Status> create_topic();
  Message next_message(Slot& s);
  std::int64_t elapsed_us(SteadyTime t0) const {
    return std::chrono::duration_cast<std::chrono::microseconds>(steady_now() - t0).count();
  }
  void record(SteadyTime t0, const Result<client::SendResult>& r);
  void record_oneway(SteadyTime t0, const Status& s);
  void ok(std::int64_t us);
  void print_summary(SteadyTime start, SteadyTime send_end, SteadyTime drain_end, std::int64_t stuck);
  Task<void> shutdown();

  const Options o_;
  BenchRuntime& br_;
  const BodyMaker bodies_;
  std::vector<std::unique_ptr<Slot>> slots_;
  bool stopping_ = false;
  int senders_running_ = 0;
  bool reporter_running_ = false;
  std::int64_t in_flight_ = 0;
  SteadyTime start_{};
  std::unique_ptr<WakeSignal> report_wake_;  // ends the reporter's sleep at the stop

  LatencyHistogram interval_;
  LatencyHistogram total_;
  std::uint64_t ok_interval_ = 0;
  std::uint64_t ok_total_ = 0;
  std::uint64_t errors_interval_ = 0;
  ErrorTally errors_;
};

Message ProduceBench::next_message(Slot& s) {
  Message m;
  m.topic = o_.topic;
  const std::uint64_t seq = s.sequence++;
  m.body = bodies_.make(s.index, seq);
  if (o_.keys) m.set_keys(fmt::format("mqbench-{}-{}", s.index, seq));
  if (o_.tag) m.set_tags(*o_.tag);
  return m;
}

void ProduceBench::ok(std::int64_t us) {
  ++ok_interval_;
  ++ok_total_;
  interval_.record_us(us);
  total_.record_us(us);
}

void ProduceBench::record(SteadyTime t0, const Result<client::SendResult>& r) {
  const std::int64_t us = elapsed_us(t0);
  if (!r.ok()) {
    ++errors_interval_;
    errors_.add(r.error());
  } else if (r->status != client::SendStatus::SEND_OK) {
    ++errors_interval_;
    errors_.add(fmt::format("status {} (stored, not SEND_OK)", client::name(r->status)),
                fmt::format("msgId {} queue {} offset {}", r->msg_id, r->queue.to_string(), r->queue_offset.value()));
  } else {
    ok(us);
  }
}

void ProduceBench::record_oneway(SteadyTime t0, const Status& s) {
  const std::int64_t us = elapsed_us(t0);
  if (!s.ok()) {
    ++errors_interval_;
    errors_.add(s.error());
  } else {
    ok(us);
  }
}

Task<void> ProduceBench::sync_sender(ProduceBench* b, Slot* s) {
  while (!b->stopping_) {
    Message m = b->next_message(*s);
    const SteadyTime t0 = steady_now();
    ++s->in_flight;
    ++b->in_flight_;
    Task<Result<client::SendResult>> t = s->producer->send(std::move(m));
    Result<client::SendResult> r = co_await std::move(t);
    --s->in_flight;
    --b->in_flight_;
    b->record(t0, r);
  }
  --b->senders_running_;
}

Task<void> ProduceBench::oneway_sender(ProduceBench* b, Slot* s) {
  while (!b->stopping_) {
    Message m = b->next_message(*s);
    const SteadyTime t0 = steady_now();
    ++s->in_flight;
    ++b->in_flight_;
    Task<Status> t = s->producer->send_oneway(std::move(m));
    Status st = co_await std::move(t);
    --s->in_flight;
    --b->in_flight_;
    b->record_oneway(t0, st);
  }
  --b->senders_running_;
}

Task<void> ProduceBench::async_sender(ProduceBench* b, Slot* s) {
  while (!b->stopping_) {
    if (s->in_flight >= b->o_.window) {
      Task<bool> w = s->space->wait_for(std::chrono::milliseconds(100));
      (void)co_await std::move(w);
      continue;
    }
    Message m = b->next_message(*s);
    const SteadyTime t0 = steady_now();
    ++s->in_flight;
    ++b->in_flight_;
    client::SendCallback cb = [b, s, t0](Result<client::SendResult> r) {
      --s->in_flight;
      --b->in_flight_;
      b->record(t0, r);
      s->space->wake();
    };
    s->producer->send_async(std::move(m), std::move(cb));
  }
  while (s->in_flight > 0) {  // every async send ends with its callback (the send timeout bounds it)
    Task<bool> w = s->space->wait_for(std::chrono::milliseconds(100));
    (void)co_await std::move(w);
  }
  --b->senders_running_;
}

Task<void> ProduceBench::reporter(ProduceBench* b) {
  SteadyTime last = b->start_;
  for (int tick = 1; !b->stopping_; ++tick) {
    Task<void> tick_wait = until_tick(*b->report_wake_, b->start_, tick);
    co_await std::move(tick_wait);
    if (b->stopping_) break;
    const SteadyTime at = steady_now();
    const double secs = seconds_between(last, at);
    last = at;
    const double tps = secs > 0 ? static_cast<double>(b->ok_interval_) / secs : 0.0;
    const double mbs = tps * static_cast<double>(b->o_.size_bytes) / 1e6;
    std::printf("[%4ds] %8.0f msg/s %8.2f MB/s  latency ms %s  errors %llu  in-flight %lld\n", tick, tps, mbs,
                percentiles_text(b->interval_).c_str(), static_cast<unsigned long long>(b->errors_interval_),
                static_cast<long long>(b->in_flight_));
    std::fflush(stdout);
    b->interval_.reset();
    b->ok_interval_ = 0;
    b->errors_interval_ = 0;
  }
  b->reporter_running_ = false;
}

Task<Status> ProduceBench::create_topic() {
  client::AdminClient admin(*slots_.front()->ci);
  std::vector<std::string> clusters;
  if (o_.cluster) {
    clusters.push_back(*o_.cluster);
  } else {
    Task<Result<remoting::body::ClusterInfo>> it = admin.cluster_info();
    Result<remoting::body::ClusterInfo> info = co_await std::move(it);
    if (!info.ok()) co_return std::move(info).error();
    for (const auto& [name, brokers] : info->cluster_addr_table) clusters.push_back(name);
    if (clusters.empty()) co_return Error(Errc::not_found, "the NameServers know no cluster");
  }
  remoting::body::TopicConfig config;
  config.topic_name = o_.topic;
  config.read_queue_nums = o_.queues;
  config.write_queue_nums = o_.queues;
  config.perm = 6;
  for (const std::string& cluster : clusters) {
    Task<Status> ct = admin.create_topic_in_cluster(cluster, config);
    Status s = co_await std::move(ct);
    if (!s.ok()) co_return s;
  }
  // The brokers register the topic with the NameServers at once; wait until a route shows it.
  const SteadyTime end = steady_now() + std::chrono::seconds(10);
  while (true) {
    Task<Result<remoting::body::TopicRouteData>> rt = admin.topic_route(o_.topic);
    Result<remoting::body::TopicRouteData> route = co_await std::move(rt);
    if (route.ok()) co_return Status{};
    if (steady_now() >= end) co_return client::with_context("the route after creating the topic", std::move(route).error());
    co_await br_.rt().sleep(std::chrono::milliseconds(100));
  }
}

Task<void> ProduceBench::shutdown() {
  for (auto& s : slots_) {
    if (s->producer) {
      Task<void> t = s->producer->shutdown();
      co_await std::move(t);
    }
  }
  for (auto& s : slots_) {
    Task<void> t = s->ci->shutdown();
    co_await std::move(t);
  }
}

Task<int> ProduceBench::run() {
  for (int i = 0; i < o_.producers; ++i) {
    auto s = std::make_unique<Slot>();
    s->index = static_cast<std::uint32_t>(i);
    s->ci = std::make_unique<client::ClientInstance>(br_.rt(), br_.client_config(o_.namesrv, i));
    client::ProducerConfig pc;
    pc.group = o_.group;
    pc.async_sends_in_flight_max = std::max<std::size_t>(pc.async_sends_in_flight_max, static_cast<std::size_t>(o_.window));
    s->producer = std::make_unique<client::Producer>(*s->ci, pc);
    s->space = std::make_unique<WakeSignal>(br_.rt());
    Status started = s->producer->start();
    slots_.push_back(std::move(s));
    if (!started.ok()) {
      std::fprintf(stderr, "mqbench produce: producer %d: %s\n", i, started.error().to_string().c_str());
      Task<void> t = shutdown();
      co_await std::move(t);
      co_return kExitFailed;
    }
  }
  if (o_.create_topic) {
    Task<Status> ct = create_topic();
    Status created = co_await std::move(ct);
    if (!created.ok()) {
      std::fprintf(stderr, "mqbench produce: create topic '%s': %s\n", o_.topic.c_str(), created.error().to_string().c_str());
      Task<void> t = shutdown();
      co_await std::move(t);
      co_return kExitFailed;
    }
  }
  // Routes before the clock starts (connections are still made by the first sends).
  std::size_t queues = 0;
  for (auto& s : slots_) {
    Task<Status> ut = s->ci->update_topic_route(o_.topic);
    Status routed = co_await std::move(ut);
    if (routed.ok()) queues = s->ci->subscribe_queues(o_.topic).size();
  }
  const std::string where = queues > 0 ? fmt::format("{} queues", queues) : "no route yet: the broker may auto-create it";
  std::fputs(fmt::format("mqbench produce: topic {} ({}), {} producer(s) x window {}, mode {}, {}-byte bodies, {} s\n",
                         o_.topic, where, o_.producers, o_.window, mode_name(o_.mode), o_.size_bytes, o_.seconds)
                 .c_str(),
             stdout);
  std::fflush(stdout);

  start_ = steady_now();
  for (auto& s : slots_) {
    const int coroutines = o_.mode == Mode::async ? 1 : o_.window;
    for (int k = 0; k < coroutines; ++k) {
      ++senders_running_;
      switch (o_.mode) {
        case Mode::sync: br_.rt().spawn(sync_sender(this, s.get()), "mqbench-sync"); break;
        case Mode::async: br_.rt().spawn(async_sender(this, s.get()), "mqbench-async"); break;
        case Mode::oneway: br_.rt().spawn(oneway_sender(this, s.get()), "mqbench-oneway"); break;
      }
    }
  }
  report_wake_ = std::make_unique<WakeSignal>(br_.rt());
  reporter_running_ = true;
  br_.rt().spawn(reporter(this), "mqbench-report");
  co_await br_.rt().sleep(std::chrono::seconds(o_.seconds));
  stopping_ = true;
  report_wake_->wake();
  const SteadyTime send_end = steady_now();
  while ((senders_running_ > 0 || reporter_running_) && steady_now() - send_end < kDrainMax) {
    co_await br_.rt().sleep(std::chrono::milliseconds(5));
  }
  const SteadyTime drain_end = steady_now();
  print_summary(start_, send_end, drain_end, in_flight_);
  const bool clean = errors_.total() == 0 && in_flight_ == 0 && ok_total_ > 0;
  if (stuck()) co_return kExitFailed;  // no shutdown: sends in flight still use the producers
  Task<void> t = shutdown();
  co_await std::move(t);
  co_return clean ? kExitOk : kExitFailed;
}

void ProduceBench::print_summary(SteadyTime start, SteadyTime send_end, SteadyTime drain_end, std::int64_t stuck) {
  const double secs = seconds_between(start, drain_end);
  const double tps = secs > 0 ? static_cast<double>(ok_total_) / secs : 0.0;
  std::string out = "\n--- mqbench produce summary ---\n";
  out += fmt::format("mode {}, {} producer(s) x window {}, {}-byte bodies, topic {}\n", mode_name(o_.mode), o_.producers,
                     o_.window, o_.size_bytes, o_.topic);
  out += fmt::format("duration:      {:.2f} s sending + {:.2f} s draining in-flight sends\n", seconds_between(start, send_end),
                     seconds_between(send_end, drain_end));
  out += fmt::format("sent ok:       {}{}\n", ok_total_,
                     o_.mode == Mode::oneway ? " (oneway: handed to the connection, never acknowledged)" : " (SEND_OK)");
  out += fmt::format("errors:        {}\n", errors_.total() + static_cast<std::uint64_t>(stuck));
  out += errors_.render();
  if (stuck > 0) out += fmt::format("  {:<40} {:>10}  (no outcome {} s after the end)\n", "still in flight", stuck, kDrainMax.count());
  out += fmt::format("throughput:    {:.0f} msg/s, {:.2f} MB/s of bodies (ok sends / {:.2f} s)\n", tps,
                     tps * static_cast<double>(o_.size_bytes) / 1e6, secs);
  out += fmt::format("latency ms:    avg {}, {} (n={}, ok sends, send call to outcome)\n",
                     ms_text(static_cast<std::int64_t>(total_.mean_us())), percentiles_text(total_), total_.count());
  std::fputs(out.c_str(), stdout);
  std::fflush(stdout);
}

const std::vector<cli::FlagSpec> kSpecs = {
    {'t', "topic", "TOPIC", "topic to send to", true},
    {'s', "size", "BYTES", "body size, 24..4194304 (default 1024)"},
    {'p', "producers", "N", "producer instances, each with its own connections (default 1)"},
    {'w', "window", "N", "sends in flight per producer at most (default 64)"},
    {'m', "mode", "MODE", "sync | async | oneway (default async)"},
    {'d', "seconds", "S", "how long to send (default 10)"},
    {0, "create-topic", "", "create the topic first (UPDATE_AND_CREATE_TOPIC on every master)"},
    {'q', "queues", "N", "with --create-topic: read and write queues (default 8)"},
    {'c', "cluster", "CLUSTER", "with --create-topic: only this cluster (default: every cluster)"},
    {'g', "group", "GROUP", "producer group (default mqbench_producer)"},
    {'k', "keys", "", "give every message a unique KEYS value (indexed by the broker)"},
    {0, "tag", "TAG", "TAGS of every message (default none)"},
};

}  // namespace

int produce_main(std::span<const std::string> args) {
  std::variant<BenchArgs, int> parsed =
      parse_args(kSub, "send messages for a while; per-second and final throughput, send latency and errors", kSpecs, args);
  if (const int* code = std::get_if<int>(&parsed)) return *code;
  BenchArgs& a = std::get<BenchArgs>(parsed);
  const cli::ParsedFlags& f = a.flags;
  Options o;
  o.namesrv = a.namesrv;
  o.topic = *f.get("topic");
  Result<std::int64_t> size = f.int_in("size", static_cast<std::int64_t>(kBodyHeaderBytes), 4 * 1024 * 1024, 1024);
  Result<std::int64_t> producers = f.int_in("producers", 1, 256, 1);
  Result<std::int64_t> window = f.int_in("window", 1, 65536, 64);
  Result<std::int64_t> seconds = f.int_in("seconds", 1, 86400, 10);
  Result<std::int64_t> queues = f.int_in("queues", 1, 1024, 8);
  for (const auto* r : {&size, &producers, &window, &seconds, &queues}) {
    if (!r->ok()) return usage_error(kSub, r->error().detail);
  }
  o.size_bytes = static_cast<std::size_t>(*size);
  o.producers = static_cast<int>(*producers);
  o.window = static_cast<int>(*window);
  o.seconds = *seconds;
  o.queues = static_cast<int>(*queues);
  const std::string mode = f.get_or("mode", "async");
  if (mode == "sync") {
    o.mode = Mode::sync;
  } else if (mode == "async") {
    o.mode = Mode::async;
  } else if (mode == "oneway") {
    o.mode = Mode::oneway;
  } else {
    return usage_error(kSub, fmt::format("--mode: '{}' is not one of sync, async, oneway", mode));
  }
  o.create_topic = f.has("create-topic");
  o.cluster = f.get("cluster");
  o.group = f.get_or("group", "mqbench_producer");
  o.keys = f.has("keys");
  o.tag = f.get("tag");

  BenchRuntime br(1);
  br.set_credentials(a.credentials);
  auto bench = std::make_unique<ProduceBench>(std::move(o), br);
  const int code = br.rt().block_on(bench->run());
  if (bench->stuck()) {
    (void)bench.release();  // see ProduceBench::stuck()
  } else {
    bench.reset();
  }
  return code;
}

}  // namespace ferry::bench
