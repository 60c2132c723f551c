// SubscriptionGroupAdminProcessor: UPDATE_AND_CREATE_SUBSCRIPTIONGROUP (200),
// GET_ALL_SUBSCRIPTIONGROUP_CONFIG (201), DELETE_SUBSCRIPTIONGROUP (207) (RocketMQ's
// AdminBrokerProcessor).
//   200: body = one SubscriptionGroupConfig as JSON → stored (replacing); SUCCESS.
//   201: reply body {"subscriptionGroupTable":{...},"dataVersion":{...}} (subscriptionGroup.json's
//        shape).
//   352: header group → reply body that group's SubscriptionGroupConfig as JSON; a group this
//        broker does not have: 1 SYSTEM_ERROR "No group in this broker" (RocketMQ 5's words).
//   207: header groupName (removeOffset, RocketMQ 4.9.4+) → removed (also when unknown), and with
//        removeOffset=true the group's committed offsets of every topic too; SUCCESS.
// A body or header that does not decode, or an invalid group name → 1 SYSTEM_ERROR naming it.
#pragma once

#include <functional>
#include <string_view>

#include "broker/replies.h"
#include "broker/subscription_group_manager.h"

namespace ferry::broker {

class SubscriptionGroupAdminProcessor {
 public:
  explicit SubscriptionGroupAdminProcessor(SubscriptionGroupManager& groups) : groups_(groups) {}

  Task<Reply> update(RequestContext ctx);
  Task<Reply> get_all(RequestContext ctx);
  Task<Reply> get_one(RequestContext ctx);
  Task<Reply> remove(RequestContext ctx);

  // What 207 calls with removeOffset=true (the broker's ConsumerOffsetManager::remove_group).
  // Unset: such a request gets SYSTEM_ERROR saying offsets cannot be removed here.
  using OffsetRemover = std::function<void(std::string_view group)>;
  void set_offset_remover(OffsetRemover r) { remove_offsets_ = std::move(r); }

 private:
  SubscriptionGroupManager& groups_;
  OffsetRemover remove_offsets_;
};

}  // namespace ferry::broker
