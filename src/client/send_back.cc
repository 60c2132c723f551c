#include "client/send_back.h"

#include <fmt/format.h>

#include "client/client_errors.h"
#include "client/producer.h"
#include "common/message_const.h"
#include "common/names.h"

namespace ferry::client {

namespace {
// RocketMQ: newMsg.setDelayTimeLevel(3 + msg.getReconsumeTimes()).
constexpr std::int32_t kRetryDelayLevelBase = 3;
}  // namespace

Message retry_topic_message(const MessageExt& msg, const std::string& group, std::int32_t max_reconsume_times) {
  Message m;
  m.topic = retry_topic(group);
  m.flag = msg.flag;
  m.body = msg.body;
  m.properties = msg.properties;
  const std::optional<std::string_view> origin = msg.origin_message_id();
  const bool has_origin = origin && origin->find_first_not_of(" \t\r\n") != std::string_view::npos;
  const std::string origin_id(has_origin ? *origin : msg.msg_id());
  m.set_origin_message_id(origin_id);
  m.set_retry_topic(msg.topic);
  m.properties.set(prop::kReconsumeTime, fmt::format("{}", msg.reconsume_times + 1));
  m.set_max_reconsume_times(max_reconsume_times);
  (void)m.properties.erase(prop::kTransactionPrepared);
  m.set_delay_level(kRetryDelayLevelBase + msg.reconsume_times);
  return m;
}

Task<Result<SendBackPath>> send_back_with_fallback(ClientInstance& ci, SendBackRequest req, MessageExt msg,
                                                   LogLimiter& fallback_log) {
  const std::string group = req.group;
  const std::int32_t max_reconsume = req.max_reconsume_times;
  Status back;
  // buggify: the send-back fails before it reaches the broker, so the message goes to the
  // retry topic through the client's own producer (RocketMQ's fallback).
  if (FERRY_BUGGIFY(ci.runtime())) {
    back = Error(Errc::reset, "the connection broke before the send-back was sent (buggify)");
  } else {
    Task<Status> sb = send_message_back(ci, std::move(req), msg);
    back = co_await std::move(sb);
  }
  if (back.ok()) co_return SendBackPath::broker;
  if (auto held = fallback_log.admit(ci.runtime().now(), static_cast<std::int64_t>(back.error().code))) {
    ci.runtime().log().info("send back {} for group '{}': {}; re-sending it to {}{}", msg.msg_id(), group,
                            back.error().to_string(), retry_topic(group), held_back_note(*held));
  }
  Result<Producer*> producer = ci.inner_producer();
  if (!producer.ok()) {
    co_return Error(producer.error().code,
                    fmt::format("send back: {}; re-send: {}", back.error().detail, producer.error().detail));
  }
  Message again = retry_topic_message(msg, group, max_reconsume);
  Task<Result<SendResult>> st = (*producer)->send(std::move(again));
  Result<SendResult> sent = co_await std::move(st);
  if (!sent.ok()) {
    co_return Error(sent.error().code, fmt::format("send back: {}; re-send to {}: {}", back.error().detail, retry_topic(group),
                                                   sent.error().detail));
  }
  co_return SendBackPath::retry_topic;
}

}  // namespace ferry::client
