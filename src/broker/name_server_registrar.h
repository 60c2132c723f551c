// NameServerRegistrar: the broker side of route registration (RocketMQ's BrokerOuterAPI and
// BrokerController.registerBrokerAll).
//
// REGISTER_BROKER (103) goes to every configured NameServer in parallel: at start, every
// register_name_server_period (30 s; every kMasterlessRetry for a slave whose master is not known
// yet), and soon after trigger() (topics changed). The body is
// RegisterBrokerBody {topicConfigSerializeWrapper: {topicConfigTable, dataVersion},
// filterServerList: []} with bodyCrc32 = CRC32 & 0x7FFFFFFF in the header. Each call is bounded
// by register_broker_timeout (6 s); a failure is logged and retried at the next round.
// UNREGISTER_BROKER (104) goes to every NameServer on a graceful stop (sequentially, each
// bounded by unregister_broker_timeout).
//
// The master, as the NameServers see it (RocketMQ's BrokerController.registerBrokerAll, which
// hands the reply's masterAddr to SlaveSynchronize and its haServerAddr to the HA client). A
// NameServer answers a slave (brokerId != 0) with the broker address of its group's master
// (brokerId 0) and that master's HA address, both only while the master is registered and live;
// it answers a master with neither. Each round decides once, from its successful replies:
//   * the first successful reply that names a master (masterAddr non-empty) sets both values
//     (an empty or absent haServerAddr there = HA address unknown) at once;
//   * a round whose successful replies all name no master makes both unknown when it ends;
//   * a round without a successful reply changes nothing (the NameServers are unreachable, which
//     says nothing about the master).
// RocketMQ takes the first reply of a round whatever it says; preferring one that names a master
// keeps two NameServers that disagree for a moment (one has expired the master, the other not
// yet) from making the address flap within a round. on_master_changed runs after either value
// changed (never for a round that changes nothing), on the loop, as the reply that decided
// arrives; a handler may read master_address() and master_ha_address() but must not destroy the
// registrar.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "broker/broker_config.h"
#include "runtime/log_limiter.h"
#include "runtime/wake_signal.h"
#include "broker/topic_config_manager.h"
#include "remoting/rpc/rpc_client.h"

namespace ferry::broker {

class NameServerRegistrar {
 public:
  // A slave whose registrations named no master yet registers again after this, not a period.
  static constexpr Duration kMasterlessRetry = std::chrono::seconds(5);

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

  // The group's master as the newest deciding round saw it (see above); nullopt = unknown (no
  // round has named one, or the NameServers say there is none). A master's own registrar keeps
  // both unknown.
  const std::optional<std::string>& master_address() const { return master_addr_; }
  const std::optional<std::string>& master_ha_address() const { return master_ha_addr_; }
  // Called after master_address() or master_ha_address() changed. One handler; nullptr clears it.
  void set_on_master_changed(std::function<void()> fn) { on_master_changed_ = std::move(fn); }

 private:
  remoting::RemotingCommand build_request() const;
  // Records a decision of the round (see above) and calls the hook when something changed.
  void set_master(std::optional<std::string> addr, std::optional<std::string> ha_addr);

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
  std::optional<std::string> master_addr_;
  std::optional<std::string> master_ha_addr_;
  std::function<void()> on_master_changed_;
  LogLimiter failure_log_;    // registrations that failed (each round while a NameServer is down)
  LogLimiter bad_reply_log_;  // replies whose header does not decode
};

}  // namespace ferry::broker
