// SubscriptionGroupAdminProcessor: UPDATE_AND_CREATE_SUBSCRIPTIONGROUP (200),
// GET_ALL_SUBSCRIPTIONGROUP_CONFIG (201), DELETE_SUBSCRIPTIONGROUP (207) (RocketMQ's
// AdminBrokerProcessor).
//   200: body = one SubscriptionGroupConfig as JSON → stored (replacing); SUCCESS.
//   201: reply body {"subscriptionGroupTable":{...},"dataVersion":{...}} (subscriptionGroup.json's
//        shape).
//   207: header groupName → removed (also when unknown); SUCCESS.
// A body or header that does not decode, or an invalid group name → 1 SYSTEM_ERROR naming it.
#pragma once

#include "broker/replies.h"
#include "broker/subscription_group_manager.h"

namespace ferry::broker {

class SubscriptionGroupAdminProcessor {
 public:
  explicit SubscriptionGroupAdminProcessor(SubscriptionGroupManager& groups) : groups_(groups) {}

  Task<Reply> update(RequestContext ctx);
  Task<Reply> get_all(RequestContext ctx);
  Task<Reply> remove(RequestContext ctx);

 private:
  SubscriptionGroupManager& groups_;
};

}  // namespace ferry::broker
