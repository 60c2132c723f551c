// NameServerRegistrar: the broker side of route registration (RocketMQ's BrokerOuterAPI and
// BrokerController.registerBrokerAll).
//
// REGISTER_BROKER (103) goes to every configured NameServer in parallel: at start, every
// register_name_server_period (30 s), and soon after trigger() (topics changed). The body is
// RegisterBrokerBody {topicConfigSerializeWrapper: {topicConfigTable, dataVersion},
// filterServerList: []} with bodyCrc32 = CRC32 & 0x7FFFFFFF in the header. Each call is bounded
// by register_broker_timeout (6 s); a failure is logged and retried at the next round.
// UNREGISTER_BROKER (104) goes to every NameServer on a graceful stop (sequentially, each
// bounded by unregister_broker_timeout).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "broker/broker_config.h"
#include "runtime/wake_signal.h"
#include "broker/topic_config_manager.h"
#include "remoting/rpc/rpc_client.h"

namespace ferry::broker {

class NameServerRegistrar {
 public:
  NameServerRegistrar(Runtime& rt, const BrokerConfig& config, TopicConfigManager& topics,
                      remoting::RpcClient& client, std::string broker_addr, std::string ha_addr);

  // One round to every NameServer; completes when every call has ended. Returns how many
  // NameServers answered SUCCESS.
  Task<std::size_t> register_all();
  // Registers now and then every period, or soon after trigger(). Runs until its frame is
  // destroyed (node stop or crash) or stop() (checked at each wake-up).
  Task<void> run_loop();
  // The topics changed: register again without waiting for the period.
  void trigger() { wake_.wake(); }
  void stop() {
    stopped_ = true;
    wake_.wake();
  }
  Task<void> unregister_all();

  // Rounds started, and successful registrations per NameServer address (for tests and logs).
  std::uint64_t rounds() const { return rounds_; }
  const std::map<std::string, std::uint64_t>& successes() const { return successes_; }

 private:
  remoting::RemotingCommand build_request() const;

  Runtime& rt_;
  const BrokerConfig& config_;
  TopicConfigManager& topics_;
  remoting::RpcClient& client_;
  std::string broker_addr_;
  std::string ha_addr_;
  WakeSignal wake_;
  bool stopped_ = false;
  std::uint64_t rounds_ = 0;
  std::map<std::string, std::uint64_t> successes_;
};

}  // namespace ferry::broker
