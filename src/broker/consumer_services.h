// ConsumerServices: the broker's consumer side, owned by the Broker — client registrations
// (heartbeats, NOTIFY_CONSUMER_IDS_CHANGED, the 10 s scan for silent clients), subscription
// groups, retry and dead-letter delivery (send-back, and the send path's retry-topic rule via
// groups()), delayed delivery (ScheduleMessageService), timer messages (TimerMessageService) and queue locks.
//
// Serves HEART_BEAT 34, UNREGISTER_CLIENT 35, CONSUMER_SEND_MSG_BACK 36,
// GET_CONSUMER_LIST_BY_GROUP 38, LOCK_BATCH_MQ 41, UNLOCK_BATCH_MQ 42, and subscription group
// admin 200/201/207. subscriptions() is the pull path's SubscriptionLookup.
//
// Lifecycle, driven by the Broker on the node's loop: load() (subscriptionGroup.json,
// delayOffset.json, timerCheckpoint.json and the TimerLog; errors: corrupt naming the files) → start() after the store started (scan
// loop, schedule loops on a master only, persist loops) → stop() on a graceful stop, before the store shuts
// down (stops the loops, persists delay offsets and subscription groups). The Broker forwards
// the store's arrivals (on_arrival) and the server's closed channels (channel_closed).
#pragma once

#include "broker/broker_config.h"
#include "broker/broker_subscriptions.h"
#include "broker/client_manage_processor.h"
#include "broker/client_notifier.h"
#include "broker/consumer_manager.h"
#include "broker/lock_processor.h"
#include "broker/producer_manager.h"
#include "broker/rebalance_lock_manager.h"
#include "broker/schedule_message_service.h"
#include "broker/send_back_processor.h"
#include "broker/subscription_group_admin_processor.h"
#include "broker/subscription_group_manager.h"
#include "broker/timer_message_service.h"
#include "broker/topic_config_manager.h"
#include "remoting/rpc/rpc_server.h"
#include "store/message_store.h"

namespace ferry::broker {

class ConsumerServices {
 public:
  // `server` is used only after start() (notifications); it may be constructed later.
  ConsumerServices(Runtime& rt, const BrokerConfig& config, store::MessageStore& store, TopicConfigManager& topics,
                   remoting::RpcServer& server);
  ConsumerServices(const ConsumerServices&) = delete;
  ConsumerServices& operator=(const ConsumerServices&) = delete;

  // Registers the codes above on `server` (the main port, or the VIP port).
  void register_processors(remoting::RpcServer& server, ServerTag tag);
  Status load();
  void start();
  Task<void> stop();

  void on_arrival(const std::string& topic, QueueId queue);
  void channel_closed(const std::shared_ptr<remoting::Channel>& ch, ServerTag tag);

  const SubscriptionLookup& subscriptions() const { return subscriptions_; }
  SubscriptionGroupManager& groups() { return groups_; }
  const SubscriptionGroupManager& groups() const { return groups_; }
  ConsumerManager& consumers() { return consumers_; }
  const ConsumerManager& consumers() const { return consumers_; }
  ProducerManager& producers() { return producers_; }
  const ProducerManager& producers() const { return producers_; }
  ScheduleMessageService& schedule() { return schedule_; }
  SendBackProcessor& send_back() { return send_back_; }
  const ScheduleMessageService& schedule() const { return schedule_; }
  TimerMessageService& timers() { return timers_; }
  const TimerMessageService& timers() const { return timers_; }
  RebalanceLockManager& locks() { return locks_; }
  const RebalanceLockManager& locks() const { return locks_; }
  SubscriptionGroupAdminProcessor& group_admin() { return group_admin_; }
  ClientNotifier& notifier() { return notifier_; }

 private:
  static Task<void> run_scan_loop(ConsumerServices* self);

  Runtime& rt_;
  const BrokerConfig& config_;
  SubscriptionGroupManager groups_;
  ConsumerManager consumers_;
  ProducerManager producers_;
  BrokerSubscriptions subscriptions_;
  ClientNotifier notifier_;
  ClientManageProcessor client_manage_;
  SendBackProcessor send_back_;
  ScheduleMessageService schedule_;
  TimerMessageService timers_;
  RebalanceLockManager locks_;
  LockProcessor lock_;
  SubscriptionGroupAdminProcessor group_admin_;
  bool stopped_ = false;
};

}  // namespace ferry::broker
