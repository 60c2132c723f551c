// ConsumerRunningInfo as text, for consumerStatus (the sections of RocketMQ's
// ConsumerRunningInfo.formatString: properties, subscriptions, offsets, process queues, rates).
#pragma once

#include <map>
#include <string>

#include "remoting/body/consumer_running_info.h"

namespace ferry::mqadmin {

std::string format_running_info(const remoting::body::ConsumerRunningInfo& info);

// RocketMQ's analyzeSubscription: true when every client of `by_client` (by clientId) has the same
// subscriptions (topic and expression).
bool same_subscriptions(const std::map<std::string, remoting::body::ConsumerRunningInfo>& by_client);

}  // namespace ferry::mqadmin
