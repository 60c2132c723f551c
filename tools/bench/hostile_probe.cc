#include "tools/bench/hostile_probe.h"

#include "cli/latency_histogram.h"

namespace ferry::bench {

HostileProbe::HostileProbe(std::string broker_addr, std::string topic, std::chrono::milliseconds interval,
                           std::chrono::milliseconds timeout)
    : addr_(std::move(broker_addr)), topic_(std::move(topic)), interval_(interval), timeout_(timeout) {}

HostileProbe::~HostileProbe() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

void HostileProbe::start() { thread_ = std::thread([this] { run(); }); }

void HostileProbe::run() {
  WireConn conn;
  auto next = WireClock::now();
  while (!stop_) {
    std::this_thread::sleep_until(next);
    next = std::max(next + interval_, WireClock::now());
    if (!conn.connected() && !conn.connect(addr_, timeout_).ok()) continue;
    const auto sent = WireClock::now();
    {
      std::lock_guard lock(mu_);
      in_flight_since_ = sent;
    }
    auto reply = conn.call(hostile_send(topic_, "p", ""), timeout_);
    const ProbeSample s{sent, WireClock::now(), reply.ok() && reply->command.code == 0};
    if (!reply.ok()) conn.close();  // a late reply must not be taken for the next request's
    std::lock_guard lock(mu_);
    in_flight_since_.reset();
    samples_.push_back(s);
  }
}

ProbeStats HostileProbe::stats(WireClock::time_point from, WireClock::time_point to) const {
  cli::LatencySamples lat;
  ProbeStats out;
  std::lock_guard lock(mu_);
  for (const ProbeSample& s : samples_) {
    if (s.done < from || s.sent > to) continue;
    ++out.count;
    if (!s.ok) ++out.failed;
    lat.add(std::chrono::duration_cast<std::chrono::nanoseconds>(s.done - s.sent).count());
  }
  out.p50_ms = static_cast<double>(lat.percentile(50)) / 1e6;
  out.p99_ms = static_cast<double>(lat.percentile(99)) / 1e6;
  out.max_ms = static_cast<double>(lat.max()) / 1e6;
  return out;
}

void HostileProbe::wait_answered_since(WireClock::time_point t, std::chrono::milliseconds limit) const {
  const auto until = WireClock::now() + limit;
  while (WireClock::now() < until) {
    {
      std::lock_guard lock(mu_);
      if (!in_flight_since_ || *in_flight_since_ > t) return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

}  // namespace ferry::bench
