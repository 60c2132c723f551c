#include <fmt/format.h>

#include <set>

#include "common/names.h"
#include "common/record_format.h"
#include "sim/scenario/parse_sections.h"

namespace ferry::sim::scenario {

namespace {

constexpr std::int64_t kGiB = std::int64_t{1} << 30;

void parse_group(TableReader& r, std::size_t index, cluster::BrokerGroupSpec& g) {
  g.name = fmt::format("broker-{}", static_cast<char>('a' + index % 26));
  r.read("name", g.name);
  r.read("cluster", g.cluster);
  r.read_int("slaves", g.slaves, 0, 4);
  r.read_enum("flush", g.flush, flush_mode_names());
  if (r.has("slave_flush")) {
    store::FlushMode f = g.flush;
    r.read_enum("slave_flush", f, flush_mode_names());
    g.slave_flush = f;
  }
  r.read_enum("role", g.role, master_role_names());
  r.read_int("disk_capacity_bytes", g.disk_capacity_bytes, 0, 1024 * kGiB);
  r.read_int("commit_log_file_size_bytes", g.store.commit_log_file_size_bytes, 4096, kGiB);
  r.read_int("consume_queue_units_per_file", g.store.consume_queue_units_per_file, 16, 1'000'000);
  r.read_int("message_size_max_bytes", g.store.message_size_max_bytes, 1024, 4 * 1024 * 1024);
  // RocketMQ's rocketmq.broker.rebalance.lockMaxLiveTime: how long a consumer's queue lock
  // lasts without renewal. Clients renew every 20 s and trust their lock 30 s; a lease shorter
  // than that lets the broker hand a queue to a second orderly consumer while the first still
  // processes it (the proof that the orderly-exclusive check can fail).
  r.read_duration("rebalance_lock_max_live_time", g.config.rebalance_lock_max_live_time, std::chrono::milliseconds(1),
                  std::chrono::hours(1));
  r.read_duration("sync_flush_timeout", g.store.sync_flush_timeout, std::chrono::milliseconds(1),
                  std::chrono::minutes(10));
  // Controller mode (RocketMQ 5, docs/controller.md): the [cluster]'s controllers elect the
  // group's master. enableControllerMode, allAckInSyncStateSet, inSyncReplicas,
  // controllerHeartBeatTimeoutMills, haMaxTimeSlaveNotCatchup, readUnCommitted.
  // Transactional messages (docs/transactions.md): transactionTimeOut, transactionCheckMax,
  // transactionCheckInterval.
  r.read_duration("transaction_timeout", g.config.transaction_timeout, std::chrono::milliseconds(1), std::chrono::hours(24));
  r.read_int("transaction_check_max", g.config.transaction_check_max, 1, 10'000);
  r.read_duration("transaction_check_interval", g.config.transaction_check_interval, std::chrono::milliseconds(100),
                  std::chrono::hours(24));
  // enablePropertyFilter: serve SQL92 subscriptions (a consumer's `sql`).
  r.read("enable_property_filter", g.config.enable_property_filter);
  r.read("controller_mode", g.controller_mode);
  r.read("all_ack_in_sync_state_set", g.config.ha.all_ack_in_sync_state_set);
  r.read("read_uncommitted", g.config.read_uncommitted);
  r.read_int("in_sync_replicas", g.config.ha.in_sync_replicas, 1, 5);
  r.read_int("min_in_sync_replicas", g.config.min_in_sync_replicas, 1, 5);
  r.read_duration("controller_heartbeat_timeout", g.config.controller_heartbeat_timeout, std::chrono::milliseconds(100),
                  std::chrono::minutes(10));
  r.read_duration("max_time_slave_not_catchup", g.config.ha.max_time_slave_not_catchup, std::chrono::milliseconds(100),
                  std::chrono::minutes(10));
  // A CommitLog file must hold the largest message and the BLANK marker that ends a file.
  const auto blank = static_cast<std::int64_t>(record::kBlankBytes);
  if (g.store.message_size_max_bytes + blank > g.store.commit_log_file_size_bytes) {
    r.fail("message_size_max_bytes",
           fmt::format("{} bytes and a file's {}-byte end marker do not fit a CommitLog file ({} bytes)",
                       g.store.message_size_max_bytes, blank, g.store.commit_log_file_size_bytes));
  }
  r.finish();
}

}  // namespace

void parse_cluster(TableReader& top, Diagnostics& diag, Scenario& out) {
  cluster::ClusterSpec& spec = out.cluster;
  if (const toml::table* t = top.table("cluster")) {
    TableReader r(diag, *t, "cluster");
    r.read_int("namesrvs", spec.namesrvs, 1, 8);
    // Controllers (nodes "controller-0", ...: a Raft quorum) for the groups in controller mode.
    r.read_int("controllers", spec.controllers, 0, 7);
    r.read("elect_unclean_master", spec.controller_config.enable_elect_unclean_master);
    r.finish();
  }
  if (const toml::array* a = top.tables("brokers", kBrokerGroupsMax)) {
    if (a->empty()) top.fail("brokers", "a scenario needs at least one broker group (or leave [[brokers]] out)");
    spec.brokers.clear();
    std::set<std::string> names;
    for (std::size_t i = 0; i < a->size(); ++i) {
      TableReader r(diag, *a->get(i)->as_table(), fmt::format("brokers[{}]", i));
      cluster::BrokerGroupSpec g;
      parse_group(r, i, g);
      if (!names.insert(g.name).second) r.fail("name", fmt::format("\"{}\" is used by another group", g.name));
      if (g.controller_mode && spec.controllers == 0) {
        r.fail("controller_mode", "a group in controller mode needs controllers ([cluster] controllers = 3)");
      }
      spec.brokers.push_back(std::move(g));
    }
  }
  if (const toml::array* a = top.tables("topics", kTopicsMax)) {
    std::set<std::string> names;
    for (std::size_t i = 0; i < a->size(); ++i) {
      TableReader r(diag, *a->get(i)->as_table(), fmt::format("topics[{}]", i));
      cluster::TopicSpec t;
      r.read("name", t.name);
      if (!r.has("name")) r.fail("name", "every topic needs a name");
      r.read_int("queues", t.queues, 1, kQueuesMax);
      r.read("ordered", t.ordered);
      if (!t.name.empty()) {
        if (Status v = validate_topic(t.name); !v.ok()) r.fail("name", v.error().detail);
        if (!names.insert(t.name).second) r.fail("name", fmt::format("\"{}\" is declared twice", t.name));
      }
      r.finish();
      spec.topics.push_back(std::move(t));
    }
  }
}

}  // namespace ferry::sim::scenario
