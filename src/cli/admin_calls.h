// What the statistics subcommands (topicStatus, consumerProgress, consumerConnection,
// producerConnection, statsAll) share: which brokers serve a topic, and the admin requests
// 202 / 203 / 204 / 208 / 300 / 315 to one broker with their bodies decoded.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "remoting/body/admin_stats.h"
#include "remoting/body/broker_stats_data.h"
#include "remoting/body/connection.h"
#include "remoting/body/group_list.h"
#include "cli/broker_calls.h"

namespace ferry::cli {

// The masters (brokerId 0) of the brokers in `topic`'s route, sorted by broker name. Errors: the
// NameServer's (an unknown topic names it); not_found when no broker of the route has a master.
Result<std::vector<BrokerTarget>> topic_masters(AdminSession& s, const std::string& topic);

// GET_TOPIC_STATS_INFO (202). Errors name the broker and the reply code (TOPIC_NOT_EXIST, ...).
Result<remoting::body::TopicStatsTable> topic_stats(AdminSession& s, const BrokerTarget& b, const std::string& topic);
// GET_CONSUME_STATS (208); no topic: every topic the group has offsets for on that broker.
Result<remoting::body::ConsumeStats> consume_stats(AdminSession& s, const BrokerTarget& b, const std::string& group,
                                                   const std::optional<std::string>& topic);
// GET_CONSUMER_CONNECTION_LIST (203): nullopt when the broker answers CONSUMER_NOT_ONLINE.
Result<std::optional<remoting::body::ConsumerConnection>> consumer_connection(AdminSession& s, const BrokerTarget& b,
                                                                              const std::string& group);
// GET_PRODUCER_CONNECTION_LIST (204): nullopt when the broker knows no member of the group
// (RocketMQ answers SYSTEM_ERROR "the producer group[G] not exist").
Result<std::optional<remoting::body::ProducerConnection>> producer_connection(AdminSession& s, const BrokerTarget& b,
                                                                              const std::string& group);

// QUERY_TOPIC_CONSUME_BY_WHO (300): the groups online on or with offsets on `topic` there.
Result<remoting::body::GroupList> topic_consumed_by(AdminSession& s, const BrokerTarget& b, const std::string& topic);
// VIEW_BROKER_STATS_DATA (315): nullopt when the broker answers SYSTEM_ERROR (RocketMQ's "The
// stats <NAME> <KEY> not exist": nothing counted under that key there).
Result<std::optional<remoting::body::BrokerStatsData>> broker_stats_data(AdminSession& s, const BrokerTarget& b,
                                                                         const std::string& stats_name,
                                                                         const std::string& stats_key);

// "2026-12-01T23:10:05.123" (UTC, no space: one table cell) for a store timestamp in ms; "-" for 0.
std::string time_text(std::int64_t ms);

}  // namespace ferry::cli
