// PopService: POP consumption on the broker (RocketMQ 5's PopMessageProcessor,
// AckMessageProcessor and ChangeInvisibleTimeProcessor; docs/broker.md "POP consumption").
//
// Any number of consumers of a group share a queue: a POP hands out up to 32 messages, each
// invisible to the group for the invisible time asked for; an ACK by the message's receipt handle
// (common/pop_receipt.h) ends it; one not acknowledged in time comes back on the group's POP retry
// topic (pop_revive_service.h), and after the group's retryMaxTimes goes to its DLQ. A FIFO POP
// (order=true) hands out one batch of a queue at a time (pop_order_manager.h).
//
// POP_MESSAGE (200050), in order:
//   maxMsgNums outside 1..32, invisibleTime outside 1 ms..12 h, a bad header field   1 SYSTEM_ERROR
//   broker not readable                                                            16 NO_PERMISSION
//   a slave (POP moves offsets and stores checkpoints)                             14 SERVICE_NOT_AVAILABLE
//   topic unknown / not readable                                                   17 / 16
//   queueId >= the read queue count (< 0 is every queue)                           1 SYSTEM_ERROR
//   the group does not exist (nor auto-created) / consumeEnable false              26 / 16
//   exp (TAG or SQL92) does not compile                                            23 SUBSCRIPTION_PARSE_FAILED
//   SQL92 while enablePropertyFilter is false                                       1
// then it reads: without order, first the group's POP retry topic in popFromRetryProbability %
// of requests (else after the topic, if the batch is not full), then the topic's queues from a
// random one; a FIFO POP reads the topic only. Each queue starts at the group's committed offset
// (none yet: initMode MIN, the queue's first message; MAX, the last one, or the first of a queue
// that never lost any) and, without order, the offset moves past what was handed out at once.
// Found: SUCCESS, the records in the body, the header's popTime, invisibleTime, reviveQid,
// restNum, startOffsetInfo and msgOffsetInfo (and orderCountInfo for FIFO). Messages from the
// retry topic are re-encoded with the topic the consumer asked for and their receipt handle in
// POP_CK (as RocketMQ's broker does); the others go out as stored, zero-copy, and the client
// builds their handles from the header. Nothing found: with pollTime > 0 the request waits
// (pop_hold_service.h; POLLING_FULL 209 when too many wait) and looks again at each arrival until
// the poll time is over (RocketMQ answers after the first wake, which sends every POP woken by
// one message but the first back empty); nothing still: POLLING_TIMEOUT 210. RocketMQ's "timeout too much" check of bornTime is not made (it
// compares the client's clock with the broker's).
//
// ACK_MESSAGE (200051): topic (the one the handle's message is in) unknown 17; queueId out of range
// 13 MESSAGE_ILLEGAL; offset outside [min, max] of the queue 208 NO_MESSAGE; a handle that does not
// parse 1; a FIFO handle's offset not in the queue's current batch 13. Else SUCCESS, also for a
// stale handle (its message came back already: nothing to do, as RocketMQ). A refused store of
// the ack record: 14 (the client may retry).
// BATCH_ACK_MESSAGE (200151): the body (body/batch_ack_body.h); entries with an unknown topic or
// queue, or offsets outside the queue, are skipped; SUCCESS, or NO_MESSAGE for no entry at all.
// CHANGE_MESSAGE_INVISIBLETIME (200053): checks as ACK; then a new checkpoint holds the message
// alone from now for the new invisible time, and the old handle is acknowledged. Reply header:
// popTime (now), invisibleTime, reviveQid; the client builds the new handle
// (ReceiptHandle::after_change). Ferry refuses a stale handle here with 208 NO_MESSAGE (its
// message came back already; RocketMQ would hand it out a second time). FIFO: the message's
// visibility alone changes; popTime stays the batch's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "broker/broker_config.h"
#include "broker/consumer_offset_manager.h"
#include "broker/filter_cache.h"
#include "broker/pop_hold_service.h"
#include "broker/pop_order_manager.h"
#include "broker/pop_revive_service.h"
#include "broker/replies.h"
#include "broker/subscription_group_manager.h"
#include "broker/subscription_lookup.h"
#include "broker/topic_config_manager.h"
#include "common/pop_receipt.h"
#include "remoting/header/pop_header.h"
#include "remoting/rpc/rpc_server.h"
#include "runtime/log_limiter.h"
#include "store/message_store.h"

namespace ferry::broker {

class PopService {
 public:
  PopService(Runtime& rt, const BrokerConfig& config, store::MessageStore& store, TopicConfigManager& topics,
             ConsumerOffsetManager& offsets, SubscriptionGroupManager& groups, const SubscriptionLookup& subscriptions);
  PopService(const PopService&) = delete;
  PopService& operator=(const PopService&) = delete;

  void register_processors(remoting::RpcServer& server);
  // After the store opened and the offsets loaded: a master replays the revive log.
  void start(bool master);
  // Role changes: a master revives and serves POP; a slave neither.
  void set_master(bool master);
  // Graceful stop: parked POPs answer, the revive progress is committed (persist offsets after).
  void stop();
  void on_arrival(const std::string& topic) { hold_.on_arrival(topic); }

  const PopReviveService& revive() const { return revive_; }
  // FIFO queues with a batch out (for operators).
  std::size_t fifo_batches() const { return order_.size(); }
  PopReviveService& revive() { return revive_; }
  const PopHoldService& hold() const { return hold_; }

 private:
  // What one look at the queues found.
  struct Found {
    std::vector<std::uint8_t> body;      // re-encoded retry-topic records
    std::vector<FileView> views;         // records of the topic itself, as stored
    std::vector<PopQueueInfo> queues;
    std::int64_t rest = 0;
    std::int32_t count = 0;
    std::optional<WallMs> unblocks_at;  // FIFO: the earliest a queue skipped as blocked may be read
  };
  Task<Reply> pop(RequestContext ctx);
  Task<Reply> ack(RequestContext ctx);
  Task<Reply> batch_ack(RequestContext ctx);
  Task<Reply> change_invisible(RequestContext ctx);

  Found look(const remoting::PopMessageRequestHeader& h, const SubscriptionFilter& filter, WallMs pop_time,
             std::int32_t revive_qid);
  void look_queue(const remoting::PopMessageRequestHeader& h, const std::string& topic, std::int32_t queue,
                  PopRetry retry, const SubscriptionFilter& filter, WallMs pop_time, std::int32_t revive_qid,
                  Found& found);
  // Where a POP of the group starts in topic-queue (committing an initial offset).
  std::int64_t start_offset(const std::string& group, const std::string& topic, std::int32_t queue,
                            std::int32_t init_mode, PopRetry retry);
  RemotingCommand found_reply(const RemotingCommand& request, const remoting::PopMessageRequestHeader& h, Found found,
                              WallMs pop_time, std::int32_t revive_qid);
  // The checks ACK and CHANGE share; nullopt when they pass.
  std::optional<RemotingCommand> check_target(const RemotingCommand& request, const std::string& topic,
                                              QueueId queue, QueueOffset offset);
  // FIFO ack of one offset; false when it is not in the queue's batch.
  bool ack_order(const std::string& topic, const std::string& group, std::int32_t queue, WallMs pop_time,
                 std::int64_t offset);
  std::string retry_topic_of(const std::string& group, const std::string& topic) const;

  Runtime& rt_;
  const BrokerConfig& config_;
  store::MessageStore& store_;
  TopicConfigManager& topics_;
  ConsumerOffsetManager& offsets_;
  const SubscriptionLookup& subscriptions_;
  PopReviveService revive_;
  PopOrderManager order_;
  PopHoldService hold_;
  FilterCache filters_;
  std::uint64_t ck_counter_ = 0;  // round-robin over the revive queues
  bool master_ = false;
  LogLimiter offset_error_log_;      // offsets not stored (initial, FIFO ack), by Errc
  LogLimiter offset_moved_log_;      // committed offsets outside their queue, moved
  LogLimiter checkpoint_error_log_;  // checkpoints or acks of the revive service not stored, by Errc
  LogLimiter bad_record_log_;        // retried messages that are not message records, by RecordKind
};

}  // namespace ferry::broker
