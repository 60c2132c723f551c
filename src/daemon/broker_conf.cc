#include "daemon/broker_conf.h"

#include <fmt/format.h>

#include <charconv>
#include <filesystem>

#include "common/delay_levels.h"
#include "common/host_port.h"
#include "daemon/acl_keys.h"
#include "daemon/conf_folder.h"
#include "daemon/config_binder.h"
#include "daemon/server_keys.h"
#include "daemon/tls_keys.h"
#include "store/ha/ha_format.h"

namespace ferry::daemon {

namespace {

using broker::BrokerRole;
using store::FlushMode;

constexpr std::int64_t kInt32Max = 2'147'483'647;
constexpr std::int64_t kHourMs = 3'600'000;
constexpr std::int64_t kBlankMarkerBytes = 8;  // the end-of-file marker a CommitLog file keeps room for

// deleteWhen: hours 0..23 of one or two digits, ';'-separated ("04", "04;16").
Status check_delete_when(std::string_view v) {
  if (v.empty()) return Error(Errc::invalid_argument, "must not be empty");
  while (true) {
    const auto semi = v.find(';');
    const std::string_view item = v.substr(0, semi);
    if (item.empty() || item.size() > 2) {
      return Error(Errc::invalid_argument, fmt::format("\"{}\" is not an hour (00..23)", item));
    }
    auto h = parse_int_in(item, 0, 23);
    if (!h || item.front() == '+' || item.front() == '-') {
      return Error(Errc::invalid_argument, fmt::format("\"{}\" is not an hour (00..23)", item));
    }
    if (semi == std::string_view::npos) return Status();
    v.remove_prefix(semi + 1);
  }
}

std::string normal(const std::string& path) {
  std::string s = std::filesystem::path(path).lexically_normal().string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

struct Extra {  // keys checked after the whole file is applied
  AclKeys acl;
  std::string store_path_commit_log;
  std::int64_t ha_listen_port = -1;
};

void bind_broker(ConfigBinder& b, BrokerConf& c, Extra& x) {
  broker::BrokerConfig& k = c.broker;
  store::StoreConfig& s = k.store;
  b.bind_string("brokerClusterName", k.broker_cluster_name);
  b.bind_string("brokerName", k.broker_name);
  b.bind_int("brokerId", k.broker_id, -1, kInt32Max);  // -1: controller mode's "the controllers give it"
  b.bind("namesrvAddr", [&k](std::string_view v) -> Status {
    auto addrs = parse_namesrv_addr(v);
    if (!addrs) return std::move(addrs).error();
    k.namesrv_addr = std::move(*addrs);
    return Status();
  });
  b.bind("brokerIP1", [&k](std::string_view v) -> Status {
    if (v.empty()) {
      k.broker_ip1.clear();
      return Status();
    }
    FERRY_TRY(check_ipv4(v));
    k.broker_ip1 = std::string(v);
    return Status();
  });
  b.bind_int("listenPort", k.listen_port, 1, 65534);  // the HA port is listenPort + 1
  // Read only to warn when it is not listenPort + 1 (check_combinations).
  b.bind_int("haListenPort", x.ha_listen_port, 1, 65535);
  b.bind_bool("autoCreateTopicEnable", k.auto_create_topic_enable);
  b.bind_int("defaultTopicQueueNums", k.default_topic_queue_nums, 1, 1024);
  b.bind_bool("clusterTopicEnable", k.cluster_topic_enable);
  b.bind_bool("brokerTopicEnable", k.broker_topic_enable);
  b.bind_int("brokerPermission", k.broker_permission, 0, 15);
  b.bind_string("regionId", k.region_id);
  b.bind_bool("traceOn", k.trace_on);
  b.bind_enum("flushDiskType", k.flush_disk_type,
              {{"ASYNC_FLUSH", FlushMode::async_flush}, {"SYNC_FLUSH", FlushMode::sync_flush}});
  b.bind_enum("brokerRole", k.broker_role,
              {{"ASYNC_MASTER", BrokerRole::async_master},
               {"SYNC_MASTER", BrokerRole::sync_master},
               {"SLAVE", BrokerRole::slave}});
  b.bind_ms("registerNameServerPeriod", k.register_name_server_period, 1'000, 600'000);
  b.bind_ms("registerBrokerTimeoutMills", k.register_broker_timeout, 100, 60'000);
  b.bind_ms("flushConsumerOffsetInterval", k.flush_consumer_offset_interval, 100, kHourMs);
  b.bind_ms("flushDelayOffsetInterval", k.flush_delay_offset_interval, 100, kHourMs);
  b.bind_bool("longPollingEnable", k.long_polling_enable);
  b.bind_ms("shortPollingTimeMills", k.short_polling_time, 1, 60'000);
  b.bind_bool("autoCreateSubscriptionGroup", k.auto_create_subscription_group);
  b.bind_int("accessMessageInMemoryMaxRatio", k.access_message_in_memory_max_ratio, 0, 100);
  b.bind_bool("slaveReadEnable", k.slave_read_enable);
  b.bind_bool("rejectTransactionMessage", k.reject_transaction_message);
  b.bind_bool("enablePropertyFilter", k.enable_property_filter);
  b.bind_bool("storeReplyMessageEnable", k.store_reply_message_enable);
  b.bind_ms("transactionTimeOut", k.transaction_timeout, 1, 24 * kHourMs);
  b.bind_int("transactionCheckMax", k.transaction_check_max, 1, 10'000);
  b.bind_ms("transactionCheckInterval", k.transaction_check_interval, 100, 24 * kHourMs);
  b.bind("messageDelayLevel", [&k](std::string_view v) -> Status {
    auto table = parse_delay_levels(v);
    if (!table) return std::move(table).error();
    k.message_delay_levels = std::move(*table);
    return Status();
  });
  b.bind_bool("timerWheelEnable", k.timer_wheel_enable);
  b.bind("timerPrecisionMs", [&k](std::string_view v) -> Status {
    for (const std::int64_t allowed : {100, 200, 500, 1000}) {
      if (v == std::to_string(allowed)) {
        k.timer_precision_ms = allowed;
        return Status();
      }
    }
    return Error(Errc::invalid_argument, fmt::format("'{}' is not one of 100, 200, 500, 1000", v));
  });
  b.bind_int("timerMaxDelaySec", k.timer_max_delay_sec, 1, 90 * 24 * 3600);
  b.bind_ms("timerFlushIntervalMs", k.timer_flush_interval, 100, kHourMs);
  b.bind_int("timerWheelSlotsMax", k.timer_wheel_slots_max, 2, std::int64_t{1} << 26);
  b.bind("mappedFileSizeTimerLog", [&k](std::string_view v) -> Status {
    std::int64_t bytes = 0;
    const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), bytes);
    if (ec != std::errc() || p != v.data() + v.size() || bytes < 40 || bytes > kInt32Max || bytes % 40 != 0) {
      return Error(Errc::invalid_argument, fmt::format("'{}' is not a multiple of 40 (a TimerLog entry) in [40, {}]", v, kInt32Max));
    }
    k.timer_log_entries_per_file = bytes / 40;
    return Status();
  });
  b.bind_int("reviveQueueNum", k.revive_queue_num, 1, 64);
  b.bind_ms("reviveInterval", k.revive_interval, 10, 60'000);
  b.bind_int("popPollingSize", k.pop_polling_size, 1, 1'000'000);
  b.bind_int("maxPopPollingSize", k.max_pop_polling_size, 1, 10'000'000);
  b.bind_int("popFromRetryProbability", k.pop_from_retry_probability, 0, 100);
  b.bind_bool("enableRetryTopicV2", k.enable_retry_topic_v2);
  b.bind_int("popCkMaxBufferSize", k.pop_ck_max_buffer_size, 1, 100'000'000);
  bind_server_keys(b, k.rpc);  // maxConnections, serverChannelMaxIdleTimeSeconds
  bind_tls_keys(b, c.tls, c.tls_config_file);
  bind_acl_keys(b, x.acl);     // aclEnable, aclFilePath, accessKey, secretKey, listenAddress
  bind_metrics_keys(b, c.metrics);

  // The store.
  b.bind("storePathRootDir", [&c](std::string_view v) -> Status {
    if (v.empty()) return Error(Errc::invalid_argument, "must not be empty");
    c.store_root_dir = std::string(v);
    return Status();
  });
  b.bind_string("storePathCommitLog", x.store_path_commit_log);
  for (const char* key : {"mappedFileSizeCommitLog", "mapedFileSizeCommitLog"}) {
    b.bind_int(key, s.commit_log_file_size_bytes, 4096, kInt32Max);
  }
  for (const char* key : {"mappedFileSizeConsumeQueue", "mapedFileSizeConsumeQueue"}) {
    b.bind(key, [&s](std::string_view v) -> Status {
      auto n = parse_int_in(v, 20, kInt32Max);
      if (!n) return std::move(n).error();
      if (*n % 20 != 0) return Error(Errc::invalid_argument, fmt::format("{} is not a multiple of 20 (the unit size)", *n));
      s.consume_queue_units_per_file = *n / 20;
      return Status();
    });
  }
  b.bind_int("maxMessageSize", s.message_size_max_bytes, 1, kInt32Max);
  b.bind_ms("flushIntervalCommitLog", s.async_flush_interval, 1, 60'000);
  b.bind_int("flushCommitLogLeastPages", s.async_flush_pages_min, 0, 1 << 20);
  b.bind_ms("flushCommitLogThoroughInterval", s.async_flush_thorough_interval, 1, kHourMs);
  b.bind_ms("syncFlushTimeout", s.sync_flush_timeout, 1, 600'000);
  b.bind_ms("flushIntervalConsumeQueue", s.consume_queue_flush_interval, 1, 60'000);
  b.bind_ms("cleanResourceInterval", s.clean_resource_interval, 100, kHourMs);
  b.bind("fileReservedTime", [&s](std::string_view v) -> Status {
    auto hours = parse_int_in(v, 1, 24 * 365 * 10);
    if (!hours) return std::move(hours).error();
    s.file_reserved_time = std::chrono::hours(*hours);
    return Status();
  });
  b.bind("deleteWhen", [&s](std::string_view v) -> Status {
    FERRY_TRY(check_delete_when(v));
    s.delete_when = std::string(v);
    return Status();
  });
  b.bind_int("diskMaxUsedSpaceRatio", s.disk_max_used_space_ratio_pct, 10, 95);
  b.bind_int("diskSpaceCleanForciblyRatio", s.disk_space_clean_forcibly_ratio_pct, 10, 99);
  b.bind_int("diskSpaceWarningLevelRatio", s.disk_space_warning_level_ratio_pct, 10, 99);
  b.bind_int("maxTransferBytesOnMessageInMemory", s.pull_transfer_bytes_max, 1, kInt32Max);
  b.bind_int("maxTransferCountOnMessageInMemory", s.pull_transfer_count_max, 1, 65536);
  b.bind_int("maxFilterMessageCount", s.pull_filter_bytes_max, 20, kInt32Max);
  b.bind_int("maxMsgsNumBatch", s.index_query_results_max, 1, 65536);
  b.bind_bool("warmMapedFileEnable", s.commit_log_preallocate);
  // Ferry's own: what recovery does with corruption in the middle of the CommitLog
  // (store/recover_mode.h; `mqbroker --recover=` overrides it).
  b.bind_enum("recoverMode", s.recover_mode,
              {{"abort", store::RecoverMode::abort},
               {"truncate", store::RecoverMode::truncate},
               {"skip", store::RecoverMode::skip}});

  // Replication (store/ha/ha_config.h). RocketMQ's units: ms and bytes.
  store::ha::HaConfig& h = k.ha;
  b.bind("haMasterAddress", [&k](std::string_view v) -> Status {
    if (v.empty()) {
      k.ha_master_address.clear();
      return Status();
    }
    auto hp = HostPort::parse(v);
    if (!hp || hp->ipv6 || hp->port == 0) {
      return Error(Errc::invalid_argument, fmt::format("\"{}\" is not an IPv4 address with a port (ip:port)", v));
    }
    k.ha_master_address = std::string(v);
    return Status();
  });
  b.bind_ms("haSendHeartbeatInterval", h.heartbeat_interval, 100, 60'000);
  b.bind_ms("haHousekeepingInterval", h.housekeeping_interval, 1'000, 600'000);
  // A slave refuses a batch above kBatchBytesMax, so a master never sends one.
  b.bind_int("haTransferBatchSize", h.transfer_batch_bytes, 1024, store::ha::kBatchBytesMax);
  b.bind_int("haSlaveFallbehindMax", h.slave_fallbehind_max_bytes, 1, kInt32Max);
  b.bind_ms("slaveTimeout", h.slave_timeout, 10, 600'000);

  // Controller mode (RocketMQ 5; docs/controller.md).
  b.bind_bool("enableControllerMode", k.enable_controller_mode);
  b.bind("controllerAddr", [&k](std::string_view v) -> Status {
    auto addrs = parse_namesrv_addr(v);
    if (!addrs) return std::move(addrs).error();
    k.controller_addr = std::move(*addrs);
    return Status();
  });
  b.bind_ms("brokerHeartbeatInterval", k.broker_heartbeat_interval, 100, 60'000);
  b.bind_ms("controllerHeartBeatTimeoutMills", k.controller_heartbeat_timeout, 1'000, 600'000);
  b.bind_ms("syncBrokerMetadataPeriod", k.sync_broker_metadata_period, 100, 600'000);
  b.bind_ms("checkSyncStateSetPeriod", k.check_sync_state_set_period, 100, 600'000);
  b.bind_int("brokerElectionPriority", k.broker_election_priority, 0, kInt32Max);
  b.bind_bool("allAckInSyncStateSet", h.all_ack_in_sync_state_set);
  b.bind_int("inSyncReplicas", h.in_sync_replicas, 1, 64);
  b.bind_ms("haMaxTimeSlaveNotCatchup", h.max_time_slave_not_catchup, 1'000, kHourMs);
  b.bind_bool("syncFromLastFile", h.sync_from_last_file);
  b.bind_bool("readUnCommitted", k.read_uncommitted);
  b.bind_int("minInSyncReplicas", k.min_in_sync_replicas, 1, 64);
  b.ignore("enableAutoInSyncReplicas", "used by RocketMQ's slaveActingMaster mode only, which Ferry does not have");
  b.ignore("fetchControllerAddrByDnsLookup", "set controllerAddr to the controllers' ip:port list");

  // Known to RocketMQ, not used by Ferry.
  b.ignore("brokerIP2",
           "Ferry's HA port listens on brokerIP1 (listenPort + 1) and registers that address as the "
           "master's HA address; a separate replication address is not supported");
  const std::string threads = "Ferry runs each node on one event loop; thread pools do not apply";
  for (const char* key : {"sendMessageThreadPoolNums", "pullMessageThreadPoolNums", "queryMessageThreadPoolNums",
                          "adminBrokerThreadPoolNums", "clientManageThreadPoolNums", "consumerManageThreadPoolNums",
                          "heartbeatThreadPoolNums", "endTransactionThreadPoolNums", "serverWorkerThreads",
                          "serverCallbackExecutorThreads", "serverSelectorThreads", "useReentrantLockWhenPutMessage",
                          "sendThreadPoolQueueCapacity", "pullThreadPoolQueueCapacity"}) {
    b.ignore(key, threads);
  }
  b.ignore("rocketmqHome", "Ferry does not read a RocketMQ installation");
  b.ignore("enableDLegerCommitLog", "DLedger is not implemented");
  b.ignore("transientStorePoolEnable", "Ferry writes to the mapped CommitLog files directly");
  b.ignore("fetchNamesrvAddrByAddressServer", "address servers are not supported; set namesrvAddr");
}

Status check_combinations(const PropertiesFile& file, ConfigBinder::Applied& applied, BrokerConf& c,
                          const Extra& x) {
  auto line_of = [&](const char* key) -> std::size_t {
    auto it = applied.lines.find(key);
    return it == applied.lines.end() ? 0 : it->second;
  };
  // The first of `keys` that the file set (for the error's line), else the first key.
  auto blame = [&](std::initializer_list<const char*> keys, std::string what) -> Error {
    for (const char* k : keys) {
      if (line_of(k) != 0) return config_error(file.file, line_of(k), k, what);
    }
    return config_error(file.file, 0, *keys.begin(), what);
  };
  broker::BrokerConfig& k = c.broker;
  store::StoreConfig& s = k.store;

  if (!x.store_path_commit_log.empty() &&
      normal(x.store_path_commit_log) != normal(c.store_root_dir + "/commitlog")) {
    return blame({"storePathCommitLog"},
                 fmt::format("Ferry keeps the commit log in {{storePathRootDir}}/commitlog ({}/commitlog); got {}",
                             c.store_root_dir, x.store_path_commit_log));
  }
  // RocketMQ 4.9's BrokerStartup overwrites haListenPort with listenPort + 1; so does Ferry, and
  // says so.
  if (x.ha_listen_port >= 0 && x.ha_listen_port != k.listen_port + 1) {
    applied.warnings.push_back(fmt::format("{}:{}: haListenPort {} is ignored: the HA port is always listenPort + 1 "
                                           "({}), as RocketMQ 4.9 overwrites it",
                                           file.file, line_of("haListenPort"), x.ha_listen_port, k.listen_port + 1));
  }
  if (k.enable_controller_mode && k.controller_addr.empty()) {
    return blame({"enableControllerMode", "controllerAddr"},
                 "enableControllerMode=true needs controllerAddr (the controllers' ip:port;ip:port)");
  }
  if (k.enable_controller_mode && k.broker_heartbeat_interval >= k.controller_heartbeat_timeout) {
    return blame({"brokerHeartbeatInterval", "controllerHeartBeatTimeoutMills"},
                 fmt::format("brokerHeartbeatInterval ({} ms) must be shorter than controllerHeartBeatTimeoutMills ({} "
                             "ms), or the controllers count the broker dead between two heartbeats",
                             to_ms(k.broker_heartbeat_interval), to_ms(k.controller_heartbeat_timeout)));
  }
  if (k.ha.heartbeat_interval >= k.ha.housekeeping_interval) {
    return blame({"haSendHeartbeatInterval", "haHousekeepingInterval"},
                 fmt::format("haSendHeartbeatInterval ({} ms) must be shorter than haHousekeepingInterval ({} ms), "
                             "or idle links are dropped as silent",
                             to_ms(k.ha.heartbeat_interval), to_ms(k.ha.housekeeping_interval)));
  }
  const std::int64_t size_for_max = s.message_size_max_bytes + kBlankMarkerBytes;
  for (const char* key : {"mappedFileSizeCommitLog", "mapedFileSizeCommitLog"}) {
    if (line_of(key) != 0 && s.commit_log_file_size_bytes < size_for_max) {
      return blame({key}, fmt::format("{} bytes cannot hold a message of maxMessageSize ({}) plus 8 bytes",
                                      s.commit_log_file_size_bytes, s.message_size_max_bytes));
    }
  }
  if (s.commit_log_file_size_bytes < size_for_max) {
    return blame({"maxMessageSize"}, fmt::format("{} does not fit a commit log file of {} bytes (needs 8 bytes to spare)",
                                                 s.message_size_max_bytes, s.commit_log_file_size_bytes));
  }
  // RocketMQ reads the two upper ratios from system properties; when the file raises
  // diskMaxUsedSpaceRatio above their defaults they follow it.
  if (line_of("diskSpaceCleanForciblyRatio") == 0) {
    s.disk_space_clean_forcibly_ratio_pct = std::max(s.disk_space_clean_forcibly_ratio_pct, s.disk_max_used_space_ratio_pct);
  }
  if (line_of("diskSpaceWarningLevelRatio") == 0) {
    s.disk_space_warning_level_ratio_pct =
        std::max(s.disk_space_warning_level_ratio_pct, s.disk_space_clean_forcibly_ratio_pct);
  }
  if (s.disk_max_used_space_ratio_pct > s.disk_space_clean_forcibly_ratio_pct) {
    return blame({"diskMaxUsedSpaceRatio", "diskSpaceCleanForciblyRatio"},
                 fmt::format("diskMaxUsedSpaceRatio ({}) must not exceed diskSpaceCleanForciblyRatio ({})",
                             s.disk_max_used_space_ratio_pct, s.disk_space_clean_forcibly_ratio_pct));
  }
  if (s.disk_space_clean_forcibly_ratio_pct > s.disk_space_warning_level_ratio_pct) {
    return blame({"diskSpaceCleanForciblyRatio", "diskSpaceWarningLevelRatio"},
                 fmt::format("diskSpaceCleanForciblyRatio ({}) must not exceed diskSpaceWarningLevelRatio ({})",
                             s.disk_space_clean_forcibly_ratio_pct, s.disk_space_warning_level_ratio_pct));
  }
  // RocketMQ's BrokerStartup: a slave needs brokerId > 0; a master is always brokerId 0. Not in
  // controller mode, where the controllers give both (RocketMQ 5's BrokerStartup skips it too).
  if (k.enable_controller_mode) return Status();
  if (k.broker_role == BrokerRole::slave && k.broker_id <= 0) {
    return blame({"brokerId", "brokerRole"}, "a SLAVE needs brokerId > 0");
  }
  if (k.broker_role != BrokerRole::slave && k.broker_id != 0) {
    return blame({"brokerId", "brokerRole"},
                 fmt::format("a master (brokerRole {}) must have brokerId 0; got {}",
                             k.broker_role == BrokerRole::sync_master ? "SYNC_MASTER" : "ASYNC_MASTER", k.broker_id));
  }
  return Status();
}

}  // namespace

BrokerConf default_broker_conf(const std::string& home) {
  BrokerConf c;
  c.store_root_dir = (home.empty() ? std::string(".") : home) + "/store";
  c.broker.store.root = "";
  return c;
}

Result<BrokerConf> parse_broker_conf(const PropertiesFile& file, const std::string& home) {
  BrokerConf c = default_broker_conf(home);
  Extra x;
  ConfigBinder binder;
  bind_broker(binder, c, x);
  auto applied = binder.apply(file);
  if (!applied) return std::move(applied).error();
  FERRY_TRY(check_combinations(file, *applied, c, x));
  FERRY_TRY(check_acl_keys(x.acl, file.file));
  c.broker.acl_enable = x.acl.enable;
  c.acl_file = acl_file_of(x.acl, file.file);
  c.broker.acl_file_path = split_folder(c.acl_file).second;
  c.broker.credentials = x.acl.credentials;
  c.broker.listen_address = x.acl.listen_address;
  c.warnings = std::move(applied->warnings);
  return c;
}

}  // namespace ferry::daemon
