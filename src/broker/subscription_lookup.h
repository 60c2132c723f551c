// SubscriptionLookup: how the pull path learns a group's subscription when the request does not
// carry one (pull sysFlag bit 4 unset), and whether a group may pull at all. The Broker serves
// BrokerSubscriptions (heartbeats + subscription groups); NoSubscriptions answers "none", which
// the pull path reports as SUBSCRIPTION_NOT_EXIST (24).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/subscription_filter.h"

namespace ferry::broker {

struct GroupSubscription {
  // nullopt when the heartbeat's expression does not compile (`problem` says why): a pull gets
  // SUBSCRIPTION_NOT_EXIST (24) for a tag expression, FILTER_DATA_NOT_EXIST (27) for SQL92, as
  // RocketMQ's ConsumerFilterManager keeps no filter data for an expression it cannot compile.
  std::optional<SubscriptionFilter> filter;
  std::string expression_type;  // as the heartbeat gave it ("TAG", "SQL92", ...)
  std::string problem;
  std::int64_t sub_version = 0;  // a pull with a newer subVersion gets SUBSCRIPTION_NOT_LATEST
};

// Why a group may not pull at all (SUBSCRIPTION_GROUP_NOT_EXIST 26, NO_PERMISSION 16).
struct PullRefusal {
  std::int32_t code = 0;
  std::string remark;
};

// Which broker of its group a subscription group reads from (SubscriptionGroupConfig's brokerId
// and whichBrokerWhenConsumeSlowly, with RocketMQ's defaults): what a pull reply suggests when
// slave reads are enabled.
struct GroupReadPreference {
  std::int64_t broker_id = 0;                          // when the consumer keeps up
  std::int64_t which_broker_when_consume_slowly = 1;   // when it lags (reads from "disk")
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
  // The group's read preference; the defaults when the group is unknown. Called on the node's
  // loop, after check_group() accepted the group.
  virtual GroupReadPreference read_preference(std::string_view group) const {
    (void)group;
    return {};
  }
  // The subscription of `group` to `topic` from its latest heartbeat (with or without a usable
  // filter); nullopt when the group is unknown or does not subscribe to the topic. Called on the
  // node's loop.
  virtual std::optional<GroupSubscription> find(std::string_view group, std::string_view topic) const = 0;
};

class NoSubscriptions final : public SubscriptionLookup {
 public:
  std::optional<GroupSubscription> find(std::string_view, std::string_view) const override {
    return std::nullopt;
  }
};

}  // namespace ferry::broker
