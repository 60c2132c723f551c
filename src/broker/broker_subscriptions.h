// BrokerSubscriptions: the pull path's SubscriptionLookup as the broker serves it — group checks
// from the SubscriptionGroupManager (26 when the group does not exist and cannot be auto-created,
// 16 when consumeEnable is false), subscriptions from the ConsumerManager's heartbeats.
#pragma once

#include <fmt/format.h>

#include "broker/consumer_manager.h"
#include "broker/subscription_group_manager.h"
#include "remoting/response_code.h"

namespace ferry::broker {

class BrokerSubscriptions final : public SubscriptionLookup {
 public:
  BrokerSubscriptions(SubscriptionGroupManager& groups, const ConsumerManager& consumers)
      : groups_(groups), consumers_(consumers) {}

  std::optional<PullRefusal> check_group(std::string_view group) const override {
    const SubscriptionGroupConfig* c = groups_.find_or_create(group);
    if (c == nullptr) {
      return PullRefusal{remoting::response_code::SUBSCRIPTION_GROUP_NOT_EXIST,
                         fmt::format("subscription group [{}] does not exist", group)};
    }
    if (!c->consume_enable) {
      return PullRefusal{remoting::response_code::NO_PERMISSION,
                         fmt::format("subscription group [{}] no permission (consumeEnable is false)", group)};
    }
    return std::nullopt;
  }

  GroupReadPreference read_preference(std::string_view group) const override {
    const SubscriptionGroupConfig* c = groups_.find(group);
    if (c == nullptr) return {};
    return GroupReadPreference{c->broker_id, c->which_broker_when_consume_slowly};
  }

  std::optional<GroupSubscription> find(std::string_view group, std::string_view topic) const override {
    return consumers_.find(group, topic);
  }

 private:
  SubscriptionGroupManager& groups_;  // find_or_create() may add a group (auto-creation)
  const ConsumerManager& consumers_;
};

}  // namespace ferry::broker
