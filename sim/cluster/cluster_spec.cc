#include "sim/cluster/cluster_spec.h"

#include <fmt/format.h>

#include <set>

#include "common/names.h"

namespace ferry::sim::cluster {

store::StoreConfig small_store() {
  store::StoreConfig c;
  c.commit_log_file_size_bytes = 1 << 20;
  c.message_size_max_bytes = 64 * 1024;
  c.consume_queue_units_per_file = 1000;
  c.index_geometry = store::IndexGeometry{64, 1024};
  return c;
}

remoting::body::TopicConfig topic_config(const TopicSpec& t, std::optional<std::int32_t> queues) {
  remoting::body::TopicConfig tc;
  tc.topic_name = t.name;
  tc.read_queue_nums = queues.value_or(t.queues);
  tc.write_queue_nums = queues.value_or(t.queues);
  tc.perm = t.perm;
  tc.order = t.ordered;
  return tc;
}

const TopicSpec* find_topic(const ClusterSpec& spec, const std::string& name) {
  for (const TopicSpec& t : spec.topics) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

Status ClusterSpec::check() const {
  if (namesrvs == 0) return Error(Errc::invalid_argument, "namesrvs: a cluster needs at least one NameServer");
  if (namesrvs > 8) return Error(Errc::invalid_argument, fmt::format("namesrvs: {} is more than 8", namesrvs));
  if (controllers > 7) return Error(Errc::invalid_argument, fmt::format("controllers: {} is more than 7", controllers));
  if (brokers.empty() && !topics.empty()) {
    return Error(Errc::invalid_argument, "topics: a cluster without broker groups cannot serve topics");
  }
  std::set<std::string> names;
  for (std::size_t i = 0; i < brokers.size(); ++i) {
    const BrokerGroupSpec& b = brokers[i];
    if (b.name.empty()) return Error(Errc::invalid_argument, fmt::format("brokers[{}].name is empty", i));
    if (!names.insert(b.name).second) {
      return Error(Errc::invalid_argument, fmt::format("brokers[{}].name \"{}\" is used twice", i, b.name));
    }
    if (b.slaves > 4) {
      return Error(Errc::invalid_argument, fmt::format("brokers[{}].slaves = {}: at most 4 a group", i, b.slaves));
    }
    if (b.role == broker::BrokerRole::slave) {
      return Error(Errc::invalid_argument, fmt::format("brokers[{}].role: a group's first broker is its master", i));
    }
    if (b.controller_mode && controllers == 0) {
      return Error(Errc::invalid_argument, fmt::format("brokers[{}].controller_mode: the cluster has no controllers", i));
    }
  }
  std::set<std::string> topic_names;
  for (std::size_t i = 0; i < topics.size(); ++i) {
    const TopicSpec& t = topics[i];
    if (Status v = validate_topic(t.name); !v.ok()) {
      return Error(Errc::invalid_argument, fmt::format("topics[{}].name: {}", i, v.error().detail));
    }
    if (!topic_names.insert(t.name).second) {
      return Error(Errc::invalid_argument, fmt::format("topics[{}].name \"{}\" is used twice", i, t.name));
    }
    if (t.queues < 1 || t.queues > 1024) {
      return Error(Errc::invalid_argument, fmt::format("topics[{}].queues: {} is not in 1..1024", i, t.queues));
    }
  }
  return {};
}

}  // namespace ferry::sim::cluster
