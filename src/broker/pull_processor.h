// PullProcessor: PULL_MESSAGE (11) (RocketMQ's PullMessageProcessor).
//
// Checks, each answered with a code and a remark:
//   header fields missing or malformed, maxMsgNums <= 0     1 SYSTEM_ERROR naming the field
//   broker or topic without read permission                 16 NO_PERMISSION
//   topic unknown                                           17 TOPIC_NOT_EXIST
//   the subscription group does not exist (and was not
//   auto-created) / has consumeEnable false                 26 / 16 (SubscriptionLookup::check_group)
//   queueId < 0 or >= the read queue count                  1 SYSTEM_ERROR
//   subscription flag: an expression (or type) that does
//     not compile; the remark names the line and column    23 SUBSCRIPTION_PARSE_FAILED
//   no subscription flag: the group has no subscription    24 SUBSCRIPTION_NOT_EXIST
//   ... or an older subVersion than the request's          25 SUBSCRIPTION_NOT_LATEST
//   ... or one that did not compile: TAG / SQL92           24 / 27 FILTER_DATA_NOT_EXIST
//   SQL92 while enablePropertyFilter is false              1 SYSTEM_ERROR
// RocketMQ answers a pull whose own SQL92 subscription does not compile the same 23 but without
// the reason; and it answers a heartbeat's that did not compile with 27.
//
// The store's result maps to (docs/compatibility.md): found 0; queue missing or empty 19 when the
// requested offset is 0, else 21; offset = max 19; offset > max 21; offset < min 21; nothing
// matched the filter / data being removed 20. Every reply carries nextBeginOffset, minOffset,
// maxOffset and suggestWhichBrokerId.
//
// suggestWhichBrokerId (RocketMQ 4.9's PullMessageProcessor): with slave_read_enable, the
// group's whichBrokerWhenConsumeSlowly when the store read further behind the CommitLog end than
// in_memory_reach_bytes() (from the last unit the look scanned to the log's max offset:
// RocketMQ's suggestPullingFromSlave), else the group's brokerId (defaults 1 and 0); without it,
// always 0, the master. The client pulls the queue from that broker next time (when it is in the
// route).
//
// On a slave, no offset is corrected (RocketMQ's offsetCheckInSlave, false): a slave may only
// lag its master, and a consumer sent to what the slave has would skip or re-consume. Where a
// master answers 21, a slave answers with the request's own offset as nextBeginOffset: 20 below
// its min offset (as RocketMQ), and 19 past its max offset or for a queue it does not have yet
// (RocketMQ: 20, which makes consumers pull again at once until replication catches up; a 19
// parks the long poll until the queue reaches the offset instead).
//
// On a slave: pulls are served from its store whatever slave_read_enable says, and the
// suggestion is computed the same way (so without slave reads it is 0: back to the master as
// soon as the route has one). RocketMQ 4.9 sets PULL_RETRY_IMMEDIATELY on a slave without slave
// reads but then overwrites the code from the store's status in the same reply, so its slaves
// serve too; that is what lets consumers go on from the slave while the master is gone.
// Answering 20 instead would make them spin on the slave (the client pulls again at once) and,
// since a 20 moves the client to nextBeginOffset, skip whatever the slave holds.
//
// Filtering, SQL92: the store evaluates the expression on each candidate record's properties
// (common/subscription_filter.h), as RocketMQ's ExpressionMessageFilter does, before the record
// leaves the broker; nothing is filtered on the client. Subscriptions that come with the pull are
// compiled once and kept in a FilterCache.
//
// Filtering, TAG: the store filters on the ConsumeQueue tag hash, and that is all, as RocketMQ's
// broker does: a message whose tag shares the hash of a subscribed one (Java's String.hashCode:
// "Aa" and "BB") is delivered, and the client drops it on the exact tag (Ferry's client does, as
// RocketMQ's and ali-ons do). The broker never decodes a record to serve a pull; the reply's
// records are views of the CommitLog (RemotingCommand::body_views), written without a copy.
//
// The commitOffset flag (bit 1) stores commitOffset for the group, forward only, on the first
// pass only, and never on a slave (a slave's offsets come from UPDATE_CONSUMER_OFFSET and from
// its master's; the client clears the flag when it pulls from a slave anyway). A 19 with the suspend flag (bit 2) is parked in the PullHoldService for
// min(suspendTimeoutMillis, suspend_timeout_max) (short_polling_time when long polling is off)
// and then answered by running the pull once more, whatever it finds.
//
// Body: the stored records byte for byte, sent from the CommitLog's file views without a copy
// (RemotingCommand::body_views). A found reply counts its messages
// and bytes in BrokerStats (get); every look at the store counts as found or missed.
#pragma once

#include "broker/broker_config.h"
#include "broker/broker_metrics.h"
#include "broker/broker_stats.h"
#include "broker/consumer_offset_manager.h"
#include "broker/filter_cache.h"
#include "broker/pull_hold_service.h"
#include "broker/replies.h"
#include "broker/subscription_lookup.h"
#include "broker/topic_config_manager.h"
#include "remoting/header/pull_message_header.h"
#include "runtime/log_limiter.h"
#include "store/message_store.h"

namespace ferry::broker {

class PullProcessor {
 public:
  PullProcessor(Runtime& rt, const BrokerConfig& config, store::MessageStore& store,
                TopicConfigManager& topics, ConsumerOffsetManager& offsets,
                PullHoldService& hold, const SubscriptionLookup& subscriptions, BrokerStats& stats,
                BrokerMetrics& metrics);

  Task<Reply> process(RequestContext ctx);

  void set_subscriptions(const SubscriptionLookup& s) { subscriptions_ = &s; }

 private:
  // One look at the store, as a complete reply.
  RemotingCommand fetch(const RemotingCommand& request, const remoting::PullMessageRequestHeader& h,
                        const SubscriptionFilter& filter);
  // suggestWhichBrokerId for a look at the store (see above).
  std::int64_t suggest_broker(std::string_view group, const store::GetMessageResult& got) const;

  Runtime& rt_;
  const BrokerConfig& config_;
  store::MessageStore& store_;
  TopicConfigManager& topics_;
  ConsumerOffsetManager& offsets_;
  PullHoldService& hold_;
  const SubscriptionLookup* subscriptions_;
  BrokerStats& stats_;
  BrokerMetrics& metrics_;
  FilterCache filters_;
  LogLimiter bad_filter_log_;    // pulls whose subscription does not compile
  LogLimiter commit_error_log_;  // piggy-backed commits not stored, by Errc
};

}  // namespace ferry::broker
