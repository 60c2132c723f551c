#include "sim/scenario/metrics_observer.h"

#include "broker/broker.h"
#include "controller/controller.h"
#include "namesrv/name_server.h"

namespace ferry::sim::scenario {

void MetricsObserver::sample(MonoTime now, const std::string& node, const metrics::Registry& registry) {
  const metrics::Snapshot snap = registry.collect(sim::kSampledMetrics);
  for (const metrics::FamilySnapshot& f : snap.families) {
    double total = 0;
    for (const metrics::Sample& s : f.samples) total += s.value;
    auto [it, fresh] = last_.emplace(std::pair{node, f.name}, total);
    if (!fresh && it->second == total) continue;
    it->second = total;
    if (history_->metric_samples.size() >= kMetricSamplesKeptMax) {
      ++history_->metric_samples_not_kept;
      continue;
    }
    history_->metric_samples.push_back(sim::MetricSample{now, node, f.name, total});
  }
}

void MetricsObserver::gone(MonoTime now, const std::string& node) {
  for (auto it = last_.lower_bound({node, std::string()}); it != last_.end() && it->first.first == node; ++it) {
    if (it->second == 0) continue;
    it->second = 0;
    if (history_->metric_samples.size() >= kMetricSamplesKeptMax) {
      ++history_->metric_samples_not_kept;
      continue;
    }
    history_->metric_samples.push_back(sim::MetricSample{now, node, it->first.second, 0});
  }
}

void MetricsObserver::look(MonoTime now) {
  if (next_ && now < *next_) return;
  next_ = now + kMetricsEvery;
  for (std::size_t i = 0; i < cluster_.broker_count(); ++i) {
    broker::Broker* b = cluster_.broker(i);
    if (b == nullptr || b->state() != broker::Broker::State::running) {
      gone(now, cluster_.broker_label(i));
      continue;
    }
    sample(now, cluster_.broker_label(i), b->metrics());
  }
  for (std::size_t i = 0; i < cluster_.namesrv_count(); ++i) {
    const std::string& name = cluster_.world().node(cluster_.namesrv_node(i)).node_name();
    if (namesrv::NameServer* ns = cluster_.namesrv(i)) {
      sample(now, name, ns->metrics());
    } else {
      gone(now, name);
    }
  }
  for (std::size_t i = 0; i < cluster_.controller_count(); ++i) {
    const std::string& name = cluster_.world().node(cluster_.controller_node(i)).node_name();
    if (controller::Controller* c = cluster_.controller(i)) {
      sample(now, name, c->metrics());
    } else {
      gone(now, name);
    }
  }
}

}  // namespace ferry::sim::scenario
