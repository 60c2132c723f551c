// SendBackProcessor: CONSUMER_SEND_MSG_BACK (36), a consumer returning a message it failed to
// consume (RocketMQ's SendMessageProcessor.consumerSendMsgBack).
//
// Header: offset (the CommitLog offset of the consumed message), group, delayLevel,
// originMsgId, originTopic, unitMode, maxReconsumeTimes (optional; else the group's
// retryMaxTimes, 16).
//
// The message is read back from the CommitLog and stored again as a copy with
//   RETRY_TOPIC        the original topic (kept when already set: a retry of a retry),
//   ORIGIN_MESSAGE_ID  kept when set, else the original's offset msgId,
//   reconsumeTimes     the original's + 1,
// and routed:
//   * original reconsumeTimes >= maxReconsumeTimes, or delayLevel < 0: to `%DLQ%{group}`
//     (1 queue, perm 6, created on demand), not delayed;
//   * otherwise to `%RETRY%{group}` (a random one of retryQueueNums queues) through
//     SCHEDULE_TOPIC_XXXX: DELAY = delayLevel, or 3 + reconsumeTimes when it is 0, capped at 18;
//     REAL_TOPIC / REAL_QID name the retry queue. The ScheduleMessageService delivers it.
// Codes: a bad header field → 1 naming it; invalid group name → 1; the subscription group does
// not exist and cannot be created → 26; a slave → 14; broker or target topic not writable → 16;
// retryQueueNums <= 0 → 0 (dropped, as RocketMQ does); no message at the offset → 1; store
// errors as for a send (14, 13, 1). SUCCESS once stored (not awaiting a SYNC_FLUSH).
#pragma once

#include <functional>
#include <string_view>

#include "broker/broker_config.h"
#include "broker/replies.h"
#include "broker/subscription_group_manager.h"
#include "broker/topic_config_manager.h"
#include "store/message_store.h"

namespace ferry::broker {

class SendBackProcessor {
 public:
  SendBackProcessor(Runtime& rt, const BrokerConfig& config, store::MessageStore& store, TopicConfigManager& topics,
                    SubscriptionGroupManager& groups)
      : rt_(rt), config_(config), store_(store), topics_(topics), groups_(groups) {}

  Task<Reply> process(RequestContext ctx);
  // Told of each message stored into a group's DLQ: the group and the topic it was consumed from.
  void set_dlq_observer(std::function<void(std::string_view group, std::string_view topic)> fn) { on_dlq_ = std::move(fn); }

 private:
  std::function<void(std::string_view, std::string_view)> on_dlq_;
  Runtime& rt_;
  const BrokerConfig& config_;
  store::MessageStore& store_;
  TopicConfigManager& topics_;
  SubscriptionGroupManager& groups_;
};

// Maps a put that did not store to its reply (14 disk full / stopped, 13 illegal, 1 otherwise).
RemotingCommand put_failure_reply(const RemotingCommand& request, const store::PutResult& put);

}  // namespace ferry::broker
