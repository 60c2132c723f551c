#include "client/message_selector.h"

namespace ferry::client {

Result<remoting::body::SubscriptionData> subscription_data(const std::string& topic, const MessageSelector& selector,
                                                           std::int64_t sub_version) {
  auto filter = SubscriptionFilter::compile(selector.type, selector.expression);
  if (!filter.ok()) return std::move(filter).error();
  remoting::body::SubscriptionData d;
  d.topic = topic;
  d.sub_version = sub_version;
  d.expression_type = std::string(expression_type_name(selector.type));
  if (selector.type == ExpressionType::sql92) {
    d.sub_string = selector.expression;
    return d;
  }
  const TagSubscription& tags = filter->tags();
  d.sub_string = tags.all ? std::string(kSubscribeAll) : selector.expression;
  d.tags_set = tags.tags;
  d.code_set = tags.codes;
  return d;
}

MessageSelector selector_of(const remoting::body::SubscriptionData& data) {
  const auto type = parse_expression_type(data.expression_type);
  return MessageSelector{type.ok() ? *type : ExpressionType::tag, data.sub_string};
}

}  // namespace ferry::client
