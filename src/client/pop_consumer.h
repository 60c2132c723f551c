// PopConsumer: POP consumption (RocketMQ 5; the SimpleConsumer model over the remoting
// protocol): receive messages, acknowledge each by its receipt handle, or change how long it stays
// invisible. No queue is owned: any number of consumers of a group receive from the same queues,
// and a message not acknowledged within its invisible time is received again (by any of them),
// its reconsumeTimes one higher, until the group's retryMaxTimes sends it to the DLQ.
//
//   PopConsumer c(ci, PopConsumerConfig{.group = "G"});
//   FERRY_TRY(c.subscribe("T", MessageSelector::by_tag("TagA || TagB")));
//   Result<PopResult> r = co_await c.receive("T");          // long-polls up to poll_time
//   for (const MessageExt& m : r->messages) {
//     ... process ...
//     Status s = co_await c.ack(m);                         // or change_invisible_time(m, 30s)
//   }
//
// receive() sends POP_MESSAGE (queueId -1: every queue of the broker) to the masters of the
// topic's brokers in turn, one per call, and builds each message's receipt handle
// (common/pop_receipt.h) into its POP_CK property from the reply's header, as RocketMQ's clients
// do (the broker sets POP_CK itself on retried messages), and 1ST_POP_TIME; the handle names the
// broker the message came from. Messages whose tag the
// subscription does not name (a tag-hash collision at the broker) are acknowledged and dropped,
// as RocketMQ's push-pop consumer does.
//
// Statuses: FOUND; NO_NEW_MSG (POLLING_TIMEOUT or PULL_NOT_FOUND: nothing within the poll time);
// POLLING_FULL (the broker holds too many long polls; try later). Errors: invalid_argument (no
// subscription to the topic, bad arguments), not_found (no route or no master for the broker),
// the RPC errors, reply_error for any other code, corrupt (an undecodable reply).
//
// A subscribed topic's route is polled with the instance's (ClientInstance::watch_topic) until
// unsubscribe() (destroying the consumer leaves it polled: a destructor may run off the loop), and
// fetched again after a POP that failed on the way: a failover's new master is found.
//
// ack() and change_invisible_time() go to the master of the broker the handle names. ack() of a
// stale handle (the message came back already) succeeds, as RocketMQ's broker answers it; a
// change of a stale one fails with the broker's NO_MESSAGE. change_invisible_time() replaces the
// message's POP_CK with the new handle. Threading: the client's loop.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "client/client_instance.h"
#include "client/message_selector.h"
#include "common/message.h"
#include "common/pop_receipt.h"
#include "common/tag_filter.h"
#include "runtime/log_limiter.h"

namespace ferry::client {

struct PopConsumerConfig {
  std::string group;
  std::int32_t max_messages = 16;                           // per receive, 1..32
  Duration invisible_time = std::chrono::seconds(60);       // per receive
  Duration poll_time = std::chrono::seconds(15);            // long polling when nothing is there
  Duration request_timeout = std::chrono::seconds(3);       // ack, change (a POP waits poll_time more)
  bool fifo = false;                                        // order=true: one batch of a queue at a time
  bool from_first = false;  // a group without an offset starts at each queue's first message (else its last)
};

enum class PopStatus : std::uint8_t { FOUND, NO_NEW_MSG, POLLING_FULL };
std::string_view name(PopStatus s);

struct [[nodiscard]] PopResult {
  PopStatus status = PopStatus::NO_NEW_MSG;
  std::vector<MessageExt> messages;  // FOUND: each with POP_CK
  std::int64_t pop_time = 0;
  std::int64_t invisible_time = 0;
  std::int64_t rest = 0;  // messages left in the queues the broker looked at
  std::string broker_name;
  // When the POP request went out (the client's clock): the broker handed the messages out
  // between this and the reply, so their invisible time ends no earlier than this plus it.
  MonoTime sent_at{};
};

// The receipt handle of a received message (its POP_CK). Errors: invalid_argument (none, or one
// that does not parse).
Result<ReceiptHandle> receipt_handle_of(const MessageExt& m);

// Gives each message of a POP reply its receipt handle (POP_CK, unless the broker set it) and
// 1ST_POP_TIME, and the topic the consumer asked for; FIFO messages delivered before get their
// count as reconsume_times. Errors (corrupt): a header or message the handles cannot be built from.
Status assign_receipt_handles(std::vector<MessageExt>& messages, const std::string& topic, const std::string& broker_name,
                              std::int64_t pop_time, std::int64_t invisible_time, std::int32_t revive_qid,
                              const OffsetInfo& info);

class PopConsumer {
 public:
  PopConsumer(ClientInstance& instance, PopConsumerConfig config) : ci_(instance), config_(std::move(config)) {}
  PopConsumer(const PopConsumer&) = delete;
  PopConsumer& operator=(const PopConsumer&) = delete;

  // Errors (invalid_argument): an expression that does not compile, a bad topic name.
  Status subscribe(const std::string& topic, MessageSelector selector);
  Status unsubscribe(const std::string& topic);

  // One POP of `topic` (see above), with the config's batch size and invisible time.
  Task<Result<PopResult>> receive(std::string topic);
  Task<Result<PopResult>> receive(std::string topic, std::int32_t max_messages, Duration invisible_time);
  // One POP of `topic` from broker `broker` (a broker name of the topic's route), polling up to
  // `poll_time`: what a proxy does for a client that names the broker (RocketMQ 5's proxy).
  Task<Result<PopResult>> receive_from(std::string topic, std::string broker, std::int32_t max_messages,
                                       Duration invisible_time, Duration poll_time);
  Task<Status> ack(const MessageExt& m);
  // Acknowledges many at once (BATCH_ACK_MESSAGE per broker). Errors: the first failure.
  Task<Status> ack_all(const std::vector<MessageExt>& messages);
  // The message stays invisible for `invisible_time` from now; its POP_CK becomes the new handle.
  Task<Status> change_invisible_time(MessageExt& m, Duration invisible_time);

  const PopConsumerConfig& config() const { return config_; }
  std::uint64_t received() const { return received_; }
  std::uint64_t acked() const { return acked_; }

 private:
  struct Subscription {
    MessageSelector selector;
    TagSubscription tags;  // the exact tags re-checked here
  };
  Task<Result<std::string>> master_of(const std::string& topic, const std::string& broker_name);
  Task<Result<PopResult>> pop_from(std::string topic, std::string broker, Subscription subscription, std::int32_t max_messages,
                                   Duration invisible_time, Duration poll_time);
  // ACK_MESSAGE or CHANGE_MESSAGE_INVISIBLETIME (with `invisible_ms`) of `m`'s handle `h`, to the
  // master it names; the SUCCESS reply, else the error.
  Task<Result<remoting::RemotingCommand>> call_on_handle(const MessageExt& m, const ReceiptHandle& h, std::int32_t request,
                                                         std::int64_t invisible_ms);

  ClientInstance& ci_;
  PopConsumerConfig config_;
  std::map<std::string, Subscription> subscriptions_;
  std::map<std::string, std::size_t> next_broker_;  // topic -> round-robin position
  std::uint64_t received_ = 0;
  std::uint64_t acked_ = 0;
  LogLimiter unwanted_ack_log_;  // acks of messages of other tags that failed, by Errc
};

}  // namespace ferry::client
