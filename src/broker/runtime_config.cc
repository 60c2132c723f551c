#include "broker/runtime_config.h"

#include <fmt/format.h>

#include <functional>
#include <vector>

#include "remoting/decimal_text.h"

namespace ferry::broker {

namespace {

struct RuntimeKey {
  std::string_view key;
  std::function<std::string(const BrokerConfig&)> get;
  std::function<Status(BrokerConfig&, std::string_view)> set;  // nullptr: fixed while running
};

std::string bool_text(bool b) { return b ? "true" : "false"; }

RuntimeKey bool_key(std::string_view key, bool BrokerConfig::*field) {
  return RuntimeKey{key, [field](const BrokerConfig& c) { return bool_text(c.*field); },
                    [key, field](BrokerConfig& c, std::string_view v) -> Status {
                      const std::optional<bool> b = remoting::parse_bool(v);
                      if (!b) return Error(Errc::invalid_argument, fmt::format("{}: \"{}\" is not true or false", key, v));
                      c.*field = *b;
                      return Status();
                    }};
}

RuntimeKey fixed(std::string_view key, std::function<std::string(const BrokerConfig&)> get) {
  return RuntimeKey{key, std::move(get), nullptr};
}

std::string role_text(BrokerRole r) {
  switch (r) {
    case BrokerRole::async_master: return "ASYNC_MASTER";
    case BrokerRole::sync_master: return "SYNC_MASTER";
    case BrokerRole::slave: return "SLAVE";
  }
  return "?";
}

std::string joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ";") + s;
  return out;
}

const std::vector<RuntimeKey>& keys() {
  static const std::vector<RuntimeKey> table = {
      bool_key("autoCreateTopicEnable", &BrokerConfig::auto_create_topic_enable),
      bool_key("autoCreateSubscriptionGroup", &BrokerConfig::auto_create_subscription_group),
      bool_key("slaveReadEnable", &BrokerConfig::slave_read_enable),
      bool_key("longPollingEnable", &BrokerConfig::long_polling_enable),
      bool_key("traceOn", &BrokerConfig::trace_on),
      bool_key("rejectTransactionMessage", &BrokerConfig::reject_transaction_message),
      bool_key("enablePropertyFilter", &BrokerConfig::enable_property_filter),
      fixed("transactionTimeOut", [](const BrokerConfig& c) { return std::to_string(to_ms(c.transaction_timeout)); }),
      fixed("transactionCheckMax", [](const BrokerConfig& c) { return std::to_string(c.transaction_check_max); }),
      fixed("transactionCheckInterval", [](const BrokerConfig& c) { return std::to_string(to_ms(c.transaction_check_interval)); }),
      RuntimeKey{"accessMessageInMemoryMaxRatio",
                 [](const BrokerConfig& c) { return std::to_string(c.access_message_in_memory_max_ratio); },
                 [](BrokerConfig& c, std::string_view v) -> Status {
                   const auto n = remoting::parse_int32(v);
                   if (!n || *n < 0 || *n > 100) {
                     return Error(Errc::invalid_argument, fmt::format("accessMessageInMemoryMaxRatio: \"{}\" is not in 0..100", v));
                   }
                   c.access_message_in_memory_max_ratio = *n;
                   return Status();
                 }},
      RuntimeKey{"brokerPermission", [](const BrokerConfig& c) { return std::to_string(c.broker_permission); },
                 [](BrokerConfig& c, std::string_view v) -> Status {
                   const auto n = remoting::parse_int32(v);
                   if (!n || (*n != perm::kRead && *n != perm::kWrite && *n != perm::kReadWrite)) {
                     return Error(Errc::invalid_argument, fmt::format("brokerPermission: \"{}\" is not 2, 4 or 6", v));
                   }
                   c.broker_permission = *n;
                   return Status();
                 }},
      fixed("brokerClusterName", [](const BrokerConfig& c) { return c.broker_cluster_name; }),
      fixed("brokerName", [](const BrokerConfig& c) { return c.broker_name; }),
      fixed("brokerId", [](const BrokerConfig& c) { return std::to_string(c.broker_id); }),
      fixed("brokerIP1", [](const BrokerConfig& c) { return c.broker_ip1; }),
      fixed("listenPort", [](const BrokerConfig& c) { return std::to_string(c.listen_port); }),
      fixed("namesrvAddr", [](const BrokerConfig& c) { return joined(c.namesrv_addr); }),
      fixed("brokerRole", [](const BrokerConfig& c) { return role_text(c.broker_role); }),
      fixed("flushDiskType", [](const BrokerConfig& c) {
        return std::string(c.flush_disk_type == store::FlushMode::sync_flush ? "SYNC_FLUSH" : "ASYNC_FLUSH");
      }),
      fixed("defaultTopicQueueNums", [](const BrokerConfig& c) { return std::to_string(c.default_topic_queue_nums); }),
      fixed("clusterTopicEnable", [](const BrokerConfig& c) { return bool_text(c.cluster_topic_enable); }),
      fixed("brokerTopicEnable", [](const BrokerConfig& c) { return bool_text(c.broker_topic_enable); }),
      fixed("brokerVIPChannelEnable", [](const BrokerConfig& c) { return bool_text(c.vip_channel_enable); }),
      fixed("mappedFileSizeCommitLog", [](const BrokerConfig& c) { return std::to_string(c.store.commit_log_file_size_bytes); }),
      fixed("maxMessageSize", [](const BrokerConfig& c) { return std::to_string(c.store.message_size_max_bytes); }),
  };
  return table;
}

const RuntimeKey* find_key(std::string_view key) {
  for (const RuntimeKey& k : keys()) {
    if (k.key == key) return &k;
  }
  return nullptr;
}


}  // namespace

Status apply_runtime_changes(BrokerConfig& config, const std::map<std::string, std::string>& changes) {
  BrokerConfig trial = config;  // every change is checked before any is applied
  for (int pass = 0; pass < 2; ++pass) {
    BrokerConfig& out = pass == 0 ? trial : config;
    for (const auto& [key, value] : changes) {
      const RuntimeKey* k = find_key(key);
      if (k == nullptr) return Error(Errc::invalid_argument, fmt::format("key '{}' is not a broker setting Ferry knows", key));
      if (!k->set) {
        return Error(Errc::invalid_argument,
                     fmt::format("key '{}' cannot change while the broker runs (edit broker.conf and restart)", key));
      }
    if (Status s = k->set(out, value); !s.ok()) return std::move(s).error();
    }
  }
  return Status();
}

std::map<std::string, std::string> reported_settings(const BrokerConfig& config) {
  std::map<std::string, std::string> out;
  for (const RuntimeKey& k : keys()) out.emplace(std::string(k.key), k.get(config));
  return out;
}

}  // namespace ferry::broker
