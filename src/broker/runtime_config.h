// The broker settings UPDATE_BROKER_CONFIG (25) may change while the broker runs, and the text
// GET_BROKER_CONFIG (26) reports (RocketMQ's properties format, "key=value" lines, sorted).
//
// RocketMQ accepts any key and writes it into its config objects; Ferry changes only the keys in
// kRuntimeKeys, each read where it is used, so a change applies to the next request:
//   autoCreateTopicEnable, autoCreateSubscriptionGroup, slaveReadEnable, longPollingEnable,
//   traceOn (true/false), accessMessageInMemoryMaxRatio (0..100), brokerPermission (2, 4 or 6;
//   the broker registers at once so routes follow).
// kReportedKeys are reported too but fixed for the life of the process (the store, the ports,
// the identity); a request to change one is refused naming it. Any other key is refused as
// unknown. Updates are all-or-nothing: the first refused key refuses the request.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "broker/broker_config.h"
#include "runtime/result.h"

namespace ferry::broker {

// Checks every key=value of `changes`, then applies them all to `config` in place (nothing is
// applied when one is refused). Errors (invalid_argument) name the key: "key 'listenPort' cannot change while the
// broker runs (edit broker.conf and restart)", "key 'fooBar' is not a broker setting Ferry
// knows", "accessMessageInMemoryMaxRatio: \"120\" is not in 0..100".
Status apply_runtime_changes(BrokerConfig& config, const std::map<std::string, std::string>& changes);

// Every reported key with its current value as broker.conf spells it, sorted by key (the body
// of GET_BROKER_CONFIG: remoting/body/properties_text.h).
std::map<std::string, std::string> reported_settings(const BrokerConfig& config);

}  // namespace ferry::broker
