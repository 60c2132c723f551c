// The broker calls of the consumers (RocketMQ's MQClientAPIImpl, consumer half): one function
// per request, with one route update when the broker's address is unknown. Reads and consumer
// offsets (QUERY/UPDATE_CONSUMER_OFFSET, min/max/search offsets, consumer ids) go to the master
// of the queue's broker, or to a slave while the route has no master (RocketMQ's
// findBrokerAddressInAdmin): a slave stores the offsets a consumer commits while its master is
// away. Queue locks and send-backs go to the master only (not_found without one): orderly
// consumption pauses while the master is away.
//
// Errors: not_found (no address for the broker, naming it), the RPC errors (with the broker's
// name and address), reply_error for an unexpected reply code, corrupt for a malformed reply.
// Every Task refers to `ci`: it must not outlive it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "client/client_instance.h"
#include "common/message.h"
#include "common/message_queue.h"

namespace ferry::client {

// GET_CONSUMER_LIST_BY_GROUP to one broker of `topic`'s route (picked with the node's Random,
// master address preferred, as RocketMQ's findBrokerAddrByTopic). The ids as the broker sent
// them (unsorted).
Task<Result<std::vector<std::string>>> find_consumer_ids(ClientInstance& ci, std::string topic, std::string group);

// QUERY_CONSUMER_OFFSET: the committed offset, or nullopt when the broker has none (22).
Task<Result<std::optional<QueueOffset>>> query_consumer_offset(ClientInstance& ci, std::string group, MessageQueue mq);
// UPDATE_CONSUMER_OFFSET, oneway (RocketMQ's updateConsumeOffsetToBroker): done once handed to
// the connection to the master (to a slave while the route has no master).
Task<Status> update_consumer_offset_oneway(ClientInstance& ci, std::string group, MessageQueue mq, QueueOffset offset);
// UPDATE_CONSUMER_OFFSET, two-way: done once the broker (master, else slave) answered SUCCESS (it
// holds the offset). Errors: the call's (no route, no reply within api_timeout, a refusal).
Task<Status> update_consumer_offset(ClientInstance& ci, std::string group, MessageQueue mq, QueueOffset offset);

// GET_MIN_OFFSET, GET_MAX_OFFSET and SEARCH_OFFSET_BY_TIMESTAMP of one queue.
Task<Result<QueueOffset>> min_offset(ClientInstance& ci, MessageQueue mq);
Task<Result<QueueOffset>> max_offset(ClientInstance& ci, MessageQueue mq);
Task<Result<QueueOffset>> search_offset(ClientInstance& ci, MessageQueue mq, WallMs timestamp_ms);

// LOCK_BATCH_MQ of `mqs` (all of broker `broker_name`) at its master: the queues now locked by
// this client.
Task<Result<std::vector<MessageQueue>>> lock_batch(ClientInstance& ci, std::string group, std::string broker_name,
                                                   std::vector<MessageQueue> mqs);
// UNLOCK_BATCH_MQ (oneway when `oneway`).
Task<Status> unlock_batch(ClientInstance& ci, std::string group, std::string broker_name, std::vector<MessageQueue> mqs,
                          bool oneway);

struct SendBackRequest {
  std::string group;
  std::string broker_name;            // the broker the message was pulled from
  std::int32_t delay_level = 0;       // 0: broker picks; < 0: DLQ
  std::int32_t max_reconsume_times = 16;
  Duration timeout = std::chrono::seconds(5);
};
// CONSUMER_SEND_MSG_BACK of `msg` (its commit-log offset, msgId and topic — the original topic
// for a retried message). Success: the broker stored the retry (or DLQ) copy.
Task<Status> send_message_back(ClientInstance& ci, SendBackRequest req, MessageExt msg);

}  // namespace ferry::client
