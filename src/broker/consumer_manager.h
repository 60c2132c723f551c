// ConsumerManager: consumer groups, their members' channels and their subscriptions (RocketMQ's
// ConsumerManager + ConsumerGroupInfo), from HEART_BEAT's consumerDataSet.
//
// Membership: a member is a channel (one client instance per connection) with its clientID.
// It joins on a heartbeat and leaves by unregister_consumer() (UNREGISTER_CLIENT), by the close
// of its channel (at once), or by scan_expired() after channel_expired_timeout (120 s) without a
// heartbeat (its channel is then closed too). A group without members is forgotten.
//
// Change notification: on every change of a group's membership (a new channel, a member gone)
// or of its set of subscribed topics, the notifier is called with the group and its remaining
// members' channels (sorted by client_key()), unless the group's subscription config disabled
// notifyConsumerIdsChangedEnable. The Broker's notifier sends NOTIFY_CONSUMER_IDS_CHANGED (40).
// RocketMQ does not notify when its scan drops a silent client (the close that follows finds
// nothing left); Ferry does, so the others rebalance at once.
//
// Subscriptions (SubscriptionLookup for the pull path): per group and topic, the latest
// heartbeat's subscription. A topic already known keeps its entry unless the heartbeat carries
// a newer subVersion; topics absent from a heartbeat are dropped (RocketMQ updateSubscription).
// Each subscription's expression is compiled when it arrives (a new topic or subVersion): TAG
// or SQL92 (common/subscription_filter.h), whether or not the broker has enablePropertyFilter
// (the pull checks that, as RocketMQ does). One that does not compile is kept for bookkeeping
// without a filter, and the reason is logged once (limited: a client can send many); find()
// returns it so the pull can say why.
//
// Bounds: registrations over all groups <= client_channels_max (register refuses beyond it).
// Threading: the node's loop.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "broker/broker_config.h"
#include "broker/client_channel.h"
#include "broker/subscription_lookup.h"
#include "remoting/body/heartbeat_data.h"
#include "runtime/log_limiter.h"
#include "runtime/runtime.h"

namespace ferry::broker {

struct ConsumerSubscription {
  remoting::body::SubscriptionData data;
  std::optional<SubscriptionFilter> filter;  // nullopt when the expression does not compile
  std::string problem;                       // why not
};

struct ConsumerGroupInfo {
  std::string group_name;
  remoting::body::ConsumeType consume_type = remoting::body::ConsumeType::CONSUME_PASSIVELY;
  remoting::body::MessageModel message_model = remoting::body::MessageModel::CLUSTERING;
  remoting::body::ConsumeFromWhere consume_from_where =
      remoting::body::ConsumeFromWhere::CONSUME_FROM_LAST_OFFSET;
  std::map<std::uint64_t, ClientChannel> channels;  // by client_key()
  std::map<std::string, ConsumerSubscription, std::less<>> subscriptions;  // by topic
  bool notify_enabled = true;

  std::vector<std::string> client_ids() const;  // sorted
};

class ConsumerManager final : public SubscriptionLookup {
 public:
  using Notifier = std::function<void(const std::string& group,
                                      std::vector<std::shared_ptr<remoting::Channel>> channels)>;

  ConsumerManager(Runtime& rt, const BrokerConfig& config) : rt_(rt), config_(config) {}

  void set_notifier(Notifier n) { notifier_ = std::move(n); }

  // Registers or refreshes `client` in data.group_name and takes its subscriptions.
  // `notify_enabled` is the group's notifyConsumerIdsChangedEnable. Returns false (nothing
  // changed) when a new registration would pass client_channels_max.
  bool register_consumer(const remoting::body::ConsumerData& data, ClientChannel client, bool notify_enabled);
  // `key`: the registration's client_key().
  void unregister_consumer(std::string_view group, std::uint64_t key);
  void channel_closed(std::uint64_t key);
  // Drops (and closes) members silent for channel_expired_timeout; returns how many.
  std::size_t scan_expired();

  const ConsumerGroupInfo* find_group(std::string_view group) const;
  std::size_t registrations() const;
  const std::map<std::string, ConsumerGroupInfo, std::less<>>& groups() const { return groups_; }

  // SubscriptionLookup
  std::optional<GroupSubscription> find(std::string_view group, std::string_view topic) const override;

 private:
  // Applies a heartbeat's subscriptions; true when the set of topics changed.
  bool update_subscriptions(ConsumerGroupInfo& g, const std::vector<remoting::body::SubscriptionData>& subs);
  // Removes a channel from a group; forgets the group when empty; notifies the rest.
  void remove_member(std::map<std::string, ConsumerGroupInfo, std::less<>>::iterator g, std::uint64_t channel_id,
                     std::string_view why);
  void notify(const ConsumerGroupInfo& g);

  Runtime& rt_;
  const BrokerConfig& config_;
  std::map<std::string, ConsumerGroupInfo, std::less<>> groups_;
  Notifier notifier_;
  // A client can join and leave (reconnect, unregister) at will: each of these lines is limited,
  // one limiter each so that alternating lines do not let each other through.
  LogLimiter joined_log_;
  LogLimiter left_log_;
  LogLimiter forgotten_log_;
  LogLimiter client_id_log_;   // a channel's clientID changed
  LogLimiter bad_filter_log_;  // subscriptions that do not compile
};

}  // namespace ferry::broker
