// SlaveSync: a slave copies its master's metadata (RocketMQ's SlaveSynchronize).
//
// A round calls, on the master the registrar knows (NameServerRegistrar::master_address()),
// in this order, each bounded by kCallTimeout (3 s, RocketMQ's BrokerOuterAPI):
//   GET_ALL_TOPIC_CONFIG (21)             → topics: replaced wholesale, with the master's
//                                           dataVersion, when that differs from the slave's
//   GET_ALL_CONSUMER_OFFSET (43)          → consumer offsets: each topic@group the master has
//                                           replaces the slave's (RocketMQ's putAll: a pair only
//                                           the slave has stays)
//   GET_ALL_DELAY_OFFSET (45)             → delay offsets: replaced wholesale when different
//   GET_ALL_SUBSCRIPTIONGROUP_CONFIG (201)→ subscription groups: replaced wholesale, with the
//                                           master's dataVersion, when that differs
// (bodies: metadata_export_processor.h and subscription_group_admin_processor.h). What changed
// is written through its manager and the round waits for the write: when a round that changed a
// table has ended, that table is durable on the slave (a failed write is logged and the
// manager's next persist retries it).
//
// When: rounds run every config.slave_sync_interval (10 s), and at once after master_changed()
// (the Broker forwards the registrar's on_master_changed) or set_enabled(true). No round runs
// while disabled, while the master is unknown, or when the master's address is the slave's own.
//
// Failures change nothing and are retried at the next round:
//   * no reply (the master is down or unreachable): the rest of the round is skipped; logged
//     once when the outage starts ("cannot reach master") and once when it ends;
//   * a refusal (a code other than SUCCESS), a body that does not decode (the error names the
//     body and the path, "GET_ALL_TOPIC_CONFIG body.topicConfigTable[\"T\"].perm: ..."), or a
//     table past its manager's bound: that table is left as it was and the rest of the round
//     goes on; logged once per table until the table syncs again.
// A round whose master changed, or that was disabled or stopped while it waited for a reply,
// applies nothing more.
//
// Lifecycle: run_loop() is spawned on the node by the Broker and ends at stop() (checked at each
// wake-up) or when the node's tasks are destroyed (a crash: a round's pending calls and writes
// are abandoned, and each file stays whole, old or new). SlaveSync is a member of the Broker and
// outlives the node's tasks. Loop thread only.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "broker/broker_config.h"
#include "broker/consumer_offset_manager.h"
#include "broker/name_server_registrar.h"
#include "broker/schedule_message_service.h"
#include "broker/subscription_group_manager.h"
#include "broker/topic_config_manager.h"
#include "remoting/rpc/rpc_client.h"
#include "runtime/wake_signal.h"

namespace ferry::broker {

class SlaveSync {
 public:
  // The slave's tables a round replaces.
  struct Tables {
    TopicConfigManager& topics;
    ConsumerOffsetManager& offsets;
    SubscriptionGroupManager& groups;
    ScheduleMessageService& schedule;
  };
  // The four tables, in the order of a round.
  enum class Part : std::uint8_t { topics, consumer_offsets, delay_offsets, subscription_groups };
  static constexpr std::size_t kParts = 4;
  static constexpr Duration kCallTimeout = std::chrono::seconds(3);

  // `own_address` is the slave's "ip:port" (a master address equal to it is never synced from).
  // `enabled`: whether rounds run (a slave's Broker starts enabled, a master's not).
  SlaveSync(Runtime& rt, const BrokerConfig& config, remoting::RpcClient& client, const NameServerRegistrar& registrar,
            Tables tables, std::string own_address, bool enabled);
  SlaveSync(const SlaveSync&) = delete;
  SlaveSync& operator=(const SlaveSync&) = delete;

  // Rounds every interval, or at once when woken. Runs until stop() or its frame is destroyed.
  Task<void> run_loop();
  // The registrar's master address changed: a round soon (at once if the loop waits).
  void master_changed() { wake_.wake(); }
  // Off: no round starts, and a round in progress applies nothing more (promotion to master).
  // On: a round soon.
  void set_enabled(bool on);
  bool enabled() const { return enabled_; }
  void stop();

  // One body applied to the slave's tables (what a round does with a reply): true when a table
  // changed, false when it already matched. Errors (nothing changes): corrupt or
  // invalid_argument naming the body and the path of what is wrong; busy when the table would
  // pass its manager's bound. The table's write has only been started (see persist()).
  Result<bool> apply(Part part, std::string_view body);
  // Writes the part's table now (for a round, after apply() changed it). Success = durable.
  Task<Status> persist(Part part);

  // For tests and status: rounds started, rounds in which every table synced, and per table how
  // often the master's content was applied (changed something) and how often a body was
  // refused (a refusal code, a body that did not decode, a table past its bound).
  struct Counters {
    std::uint64_t rounds = 0;
    std::uint64_t rounds_complete = 0;
    std::array<std::uint64_t, kParts> applied{};
    std::array<std::uint64_t, kParts> refused{};
  };
  const Counters& counters() const { return counters_; }

  static std::string_view name(Part part);  // "topics", "consumer offsets", ...
  static std::int32_t request_code(Part part);

 private:
  enum class CallOutcome : std::uint8_t { synced, refused, unreachable, abandoned };
  static Task<void> run_round(SlaveSync* self, std::string master);
  static Task<CallOutcome> sync_part(SlaveSync* self, std::string master, Part part);
  // The round may still apply what it got from `master`.
  bool current(const std::string& master) const;
  void note_refused(Part part, const std::string& why);

  Runtime& rt_;
  const BrokerConfig& config_;
  remoting::RpcClient& client_;
  const NameServerRegistrar& registrar_;
  Tables tables_;
  const std::string own_address_;
  WakeSignal wake_;
  bool enabled_;
  bool stopped_ = false;
  bool unreachable_ = false;                 // logged: the master gives no replies
  std::array<bool, kParts> refusing_{};      // logged: that table's body is being refused
  Counters counters_;
};

}  // namespace ferry::broker
