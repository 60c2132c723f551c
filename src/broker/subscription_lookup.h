// SubscriptionLookup: how the pull path learns a group's subscription when the request does not
// carry one (pull sysFlag bit 4 unset), and whether a group may pull at all. The Broker serves
// BrokerSubscriptions (heartbeats + subscription groups); NoSubscriptions answers "none", which
// the pull path reports as SUBSCRIPTION_NOT_EXIST (24).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/tag_filter.h"

namespace ferry::broker {

struct GroupSubscription {
  TagSubscription filter;
  std::int64_t sub_version = 0;  // a pull with a newer subVersion gets SUBSCRIPTION_NOT_LATEST
};

// Why a group may not pull at all (SUBSCRIPTION_GROUP_NOT_EXIST 26, NO_PERMISSION 16).
struct PullRefusal {
  std::int32_t code = 0;
  std::string remark;
};

class SubscriptionLookup {
 public:
  virtual ~SubscriptionLookup() = default;
  // Whether `group` may pull (its subscription group exists, or is auto-created, and has
  // consumeEnable); nullopt = yes. Checked on every pull, with or without the subscription flag.
  virtual std::optional<PullRefusal> check_group(std::string_view group) const {
    (void)group;
    return std::nullopt;
  }
  // The subscription of `group` to `topic` from its latest heartbeat; nullopt when the group is
  // unknown or does not subscribe to the topic. Called on the node's loop.
  virtual std::optional<GroupSubscription> find(std::string_view group, std::string_view topic) const = 0;
};

class NoSubscriptions final : public SubscriptionLookup {
 public:
  std::optional<GroupSubscription> find(std::string_view, std::string_view) const override {
    return std::nullopt;
  }
};

}  // namespace ferry::broker
