// MessageSelector: what a consumer subscribes to on a topic (RocketMQ's MessageSelector):
//
//   MessageSelector::by_tag("TagA || TagB")             tags; "*" (the default) is everything
//   MessageSelector::by_sql("region = 'eu' AND a > 5")  SQL92 over the message's properties
//
// SQL92 is evaluated by the broker (which needs enablePropertyFilter=true); the client does not
// filter those messages again. Tags are filtered by the broker on their hash and re-checked
// exactly by the client.
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "common/subscription_filter.h"
#include "remoting/body/heartbeat_data.h"
#include "runtime/result.h"

namespace ferry::client {

struct MessageSelector {
  ExpressionType type = ExpressionType::tag;
  std::string expression = std::string(kSubscribeAll);

  static MessageSelector by_tag(std::string tags) { return {ExpressionType::tag, std::move(tags)}; }
  static MessageSelector by_sql(std::string sql) { return {ExpressionType::sql92, std::move(sql)}; }
  bool operator==(const MessageSelector&) const = default;
};

// The heartbeat's SubscriptionData for `selector` on `topic` (tagsSet and codeSet for tags, as
// RocketMQ's FilterAPI builds them; empty for SQL92), after compiling the expression here so a
// typo fails subscribe() rather than every pull.
// Errors (invalid_argument): the expression does not compile (the SQL92 error names the line
// and column).
Result<remoting::body::SubscriptionData> subscription_data(const std::string& topic, const MessageSelector& selector,
                                                           std::int64_t sub_version);

// The selector a SubscriptionData describes.
MessageSelector selector_of(const remoting::body::SubscriptionData& data);

}  // namespace ferry::client
