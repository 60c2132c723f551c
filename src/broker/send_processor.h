// SendProcessor: SEND_MESSAGE (10), SEND_MESSAGE_V2 (310) and SEND_BATCH_MESSAGE (320)
// (RocketMQ's SendMessageProcessor).
//
// Checks, in order, each answered with a code and a remark (docs/compatibility.md):
//   header fields missing or malformed              1 SYSTEM_ERROR, the remark names the field
//   a slave broker                                  14 SERVICE_NOT_AVAILABLE
//   broker permission without write                 16 NO_PERMISSION
//   topic blank / invalid characters / too long     1 SYSTEM_ERROR
//   a system topic (TBW102, SCHEDULE_TOPIC_XXXX...) 16 NO_PERMISSION
//   topic unknown and not auto-creatable            17 TOPIC_NOT_EXIST
//   topic without the write permission              16 NO_PERMISSION
//   queueId >= max(read, write queue count)         1 SYSTEM_ERROR
//   a properties field over 32767 bytes (checked
//   before it is parsed; a batch's own field too)   13 MESSAGE_ILLEGAL
//   malformed properties or batch body, a delayed
//   message in a batch, body > 4 MiB, properties
//   over 32767 bytes once CLUSTER is added          13 MESSAGE_ILLEGAL
//   disk full / store shut down                     14 SERVICE_NOT_AVAILABLE
// queueId < 0 picks a random writable queue (the runtime's Random).
//
// Stored messages get the CLUSTER property. A message with DELAY > 0 (levels above 18 count as
// 18) is stored in SCHEDULE_TOPIC_XXXX queue level-1 with REAL_TOPIC / REAL_QID; its tagsCode is
// the delivery time (Broker installs the store's TagsCodeHook); the ScheduleMessageService
// delivers it.
//
// The reply carries msgId (comma-joined for a batch), queueId, queueOffset (of the first
// message), MSG_REGION and TRACE_ON. When WAIT is not "false" the reply waits, under SYNC_FLUSH,
// for durability (FLUSH_DISK_TIMEOUT, 10, after 5 s) and then, on a SYNC_MASTER, until a slave
// holds the bytes (HaMaster::wait_replicated: FLUSH_SLAVE_TIMEOUT, 12, after 3 s;
// SLAVE_NOT_AVAILABLE, 11, with no slave or one too far behind — replication wins over the
// flush code, as in RocketMQ). Each of these keeps the full header: the message is stored.
//
// Retry topics (set_subscription_groups installed): a send to `%RETRY%{group}` names a
// subscription group (found or auto-created; else 26); when its reconsumeTimes header field is
// >= maxReconsumeTimes (the header's, else the group's retryMaxTimes) the message goes to
// `%DLQ%{group}` (1 queue, perm 6, created on demand) undelayed instead.
//
// Every stored put (also a FLUSH_DISK_TIMEOUT one) is counted in BrokerStats (messages, record
// bytes; in total and under the topic the producer addressed) before the reply.
//
// Half messages (TRAN_MSG=true): refused with 16 NO_PERMISSION while reject_transaction_message
// (rejectTransactionMessage, default false), else kept on RMQ_SYS_TRANS_HALF_TOPIC
// queue 0 for END_TRANSACTION (end_transaction_processor.h). A record flagged prepared or rolled
// back without TRAN_MSG is refused (16): it would be stored with no queue entry.
//
// Not served: send hooks (no seam is built for them yet).
#pragma once

#include <string>
#include <variant>

#include "broker/broker_config.h"
#include "broker/broker_metrics.h"
#include "broker/broker_stats.h"
#include "broker/replies.h"
#include "broker/reply_push.h"
#include "broker/subscription_group_manager.h"
#include "broker/topic_config_manager.h"
#include "common/offsets.h"
#include "remoting/header/send_message_header.h"
#include "store/ha/ha_master.h"
#include "store/message_store.h"

namespace ferry::broker {

class SendProcessor {
 public:
  SendProcessor(Runtime& rt, const BrokerConfig& config, store::MessageStore& store, store::ha::HaMaster& ha,
                TopicConfigManager& topics, BrokerStats& stats, BrokerMetrics& metrics);

  // For the RpcServer (codes 10, 310, 320). Never throws for bad input.
  Task<Reply> process(RequestContext ctx);

  // Enables the retry-topic → DLQ rule (the groups outlive this processor).
  void set_subscription_groups(SubscriptionGroupManager* groups) { groups_ = groups; }
  // Controller mode: why a send must be refused now (SERVICE_NOT_AVAILABLE with the reason), or
  // nullopt (replicas_manager.h's write_fence()).
  void set_write_fence(std::function<std::optional<std::string>()> fence) { write_fence_ = std::move(fence); }
  // Controller mode: the masterEpoch a put is stored in (read right after the put); each SEND_OK
  // is counted under it (BrokerStats::on_acked). Unset: epoch 0.
  void set_epoch_source(std::function<std::int32_t()> epoch) { epoch_ = std::move(epoch); }
  // Enables SEND_REPLY_MESSAGE(_V2) (324/325): the reply is pushed to its requester through
  // `pusher` (outlives this processor), then stored when store_reply_message_enable.
  void set_reply_pusher(ReplyPusher* pusher) { replies_ = pusher; }
  // The timer clock (TimerMessageService::now_ms) timer messages are due by; the wall clock without.
  void set_timer_clock(std::function<WallMs()> clock) { timer_clock_ = std::move(clock); }

 private:
  // NO_PERMISSION for a transactional send the broker does not take, saying `why`.
  RemotingCommand transaction_refusal(const RemotingCommand& request, std::string_view why) const;
  // Controller mode, a SYNC_MASTER and a send that waits for the store: SYSTEM_ERROR while the
  // SyncStateSet has fewer than minInSyncReplicas members (checked before the put).
  std::optional<RemotingCommand> in_sync_refusal(const RemotingCommand& request, bool wait) const;

  std::function<std::optional<std::string>()> write_fence_;
  std::function<std::int32_t()> epoch_;
  std::function<WallMs()> timer_clock_;
  // Where a send goes, once its topic and queue passed the checks.
  struct Target {
    std::string topic;
    QueueId queue_id;  // a queue of the topic, never negative
    BrokerMetrics::MessageType type = BrokerMetrics::MessageType::normal;  // for the metrics
  };
  // The target, or the error reply.
  std::variant<Target, RemotingCommand> route(const RemotingCommand& request,
                                              const remoting::SendMessageRequestHeader& h);
  Task<Reply> send_one(RequestContext ctx, remoting::SendMessageRequestHeader h, Target target);
  Task<Reply> send_batch(RequestContext ctx, remoting::SendMessageRequestHeader h, Target target);
  // A reply message (324/325): pushed to its requester first, then stored (reply_push.h).
  Task<Reply> send_reply(RequestContext ctx, remoting::SendMessageRequestHeader h, Target target);
  // Puts the request's body as one message with these (encoded) properties.
  store::PutResult put_one(const RequestContext& ctx, const remoting::SendMessageRequestHeader& h,
                           std::string_view topic, QueueId queue_id, std::string_view properties);
  // Maps the put status; awaits durability under SYNC_FLUSH when `wait`. The reply names
  // target.queue_id; a stored put is counted under target.topic (the topic the producer addressed).
  Task<Reply> finish(RemotingCommand request, store::PutResult put, Target target, bool wait);

  Runtime& rt_;
  const BrokerConfig& config_;
  store::MessageStore& store_;
  store::ha::HaMaster& ha_;
  TopicConfigManager& topics_;
  BrokerStats& stats_;
  BrokerMetrics& metrics_;
  SubscriptionGroupManager* groups_ = nullptr;
  ReplyPusher* replies_ = nullptr;
};

}  // namespace ferry::broker
