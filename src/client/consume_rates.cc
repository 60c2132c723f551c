#include "client/consume_rates.h"

namespace ferry::client {

namespace {
std::int64_t second_of(MonoTime t) {
  return std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
}
std::int64_t ms_of(Duration d) { return std::chrono::duration_cast<std::chrono::milliseconds>(d).count(); }
}  // namespace

ConsumeRates::ConsumeRates(const std::vector<std::string>& topics) {
  for (const std::string& t : topics) rings_.emplace(t, Ring{});
}

ConsumeRates::Bucket* ConsumeRates::bucket(const std::string& topic, MonoTime now) {
  auto it = rings_.find(topic);
  if (it == rings_.end()) return nullptr;
  const std::int64_t s = second_of(now);
  Bucket& b = it->second[static_cast<std::size_t>(s) % kBuckets];
  if (b.second != s) b = Bucket{.second = s};
  return &b;
}

void ConsumeRates::pulled(const std::string& topic, std::int64_t messages, Duration rt, MonoTime now) {
  if (Bucket* b = bucket(topic, now)) {
    ++b->pulls;
    b->pulled += messages;
    b->pull_rt_ms += ms_of(rt);
  }
}

void ConsumeRates::consumed(const std::string& topic, std::int64_t ok, std::int64_t failed, Duration rt, MonoTime now) {
  if (Bucket* b = bucket(topic, now)) {
    ++b->calls;
    b->ok += ok;
    b->failed += failed;
    b->consume_rt_ms += ms_of(rt);
  }
}

remoting::body::ConsumeStatus ConsumeRates::status(const std::string& topic, MonoTime now) const {
  remoting::body::ConsumeStatus st;
  auto it = rings_.find(topic);
  if (it == rings_.end()) return st;
  const std::int64_t s = second_of(now);
  Bucket sum;
  for (const Bucket& b : it->second) {
    if (b.second < 0 || b.second <= s - static_cast<std::int64_t>(kBuckets) || b.second > s) continue;
    sum.pulls += b.pulls;
    sum.pulled += b.pulled;
    sum.pull_rt_ms += b.pull_rt_ms;
    sum.calls += b.calls;
    sum.ok += b.ok;
    sum.failed += b.failed;
    sum.consume_rt_ms += b.consume_rt_ms;
  }
  constexpr double kWindowSeconds = static_cast<double>(kBuckets);
  st.pull_tps = static_cast<double>(sum.pulled) / kWindowSeconds;
  st.pull_rt = sum.pulls == 0 ? 0.0 : static_cast<double>(sum.pull_rt_ms) / static_cast<double>(sum.pulls);
  st.consume_ok_tps = static_cast<double>(sum.ok) / kWindowSeconds;
  st.consume_failed_tps = static_cast<double>(sum.failed) / kWindowSeconds;
  st.consume_rt = sum.calls == 0 ? 0.0 : static_cast<double>(sum.consume_rt_ms) / static_cast<double>(sum.calls);
  st.consume_failed_msgs = sum.failed;
  return st;
}

}  // namespace ferry::client
