#include "client/pull_api.h"

#include <fmt/format.h>

#include "client/client_errors.h"
#include "common/message_const.h"
#include "common/message_decoder.h"
#include "common/tag_filter.h"
#include "remoting/header/pull_message_header.h"
#include "remoting/request_code.h"
#include "remoting/response_code.h"

namespace ferry::client {

namespace rc = remoting::request_code;
namespace code = remoting::response_code;

namespace {
constexpr std::int32_t kPullCommitOffset = 1;
constexpr std::int32_t kPullSuspend = 2;
constexpr std::int32_t kPullSubscription = 4;
}  // namespace

std::string_view name(PullStatus s) {
  switch (s) {
    case PullStatus::FOUND: return "FOUND";
    case PullStatus::NO_NEW_MSG: return "NO_NEW_MSG";
    case PullStatus::NO_MATCHED_MSG: return "NO_MATCHED_MSG";
    case PullStatus::OFFSET_ILLEGAL: return "OFFSET_ILLEGAL";
  }
  return "?";
}

Task<Result<PullResult>> PullAPI::pull(PullRequest q) {
  // Tags are re-checked here on the exact tag; SQL92 is the broker's alone.
  Result<TagSubscription> sub = q.expression_type == ExpressionType::tag ? parse_tag_expression(q.sub_expression)
                                                                         : parse_tag_expression(kSubscribeAll);
  if (!sub.ok()) co_return with_context(fmt::format("pull from topic '{}'", q.queue.topic), std::move(sub).error());
  std::optional<ClientInstance::FoundBroker> found = ci_.subscribe_address(q.queue.broker_name, suggested_broker(q.queue));
  if (!found) {
    Status s = co_await ci_.update_topic_route(q.queue.topic);
    (void)s;  // judged by the look-up below
    found = ci_.subscribe_address(q.queue.broker_name, suggested_broker(q.queue));
  }
  if (!found) co_return Error(Errc::not_found, fmt::format("pull: no address for broker '{}'", q.queue.broker_name));
  const std::string addr = found->addr;
  const bool commit = q.commit_offset.has_value() && !found->slave();  // RocketMQ clears the bit for a slave

  remoting::PullMessageRequestHeader h;
  h.consumer_group = q.group;
  h.topic = q.queue.topic;
  h.queue_id = q.queue.queue_id;
  h.queue_offset = q.offset;
  h.max_msg_nums = q.max_nums;
  h.sys_flag = kPullSubscription | (commit ? kPullCommitOffset : 0) | (q.suspend > Duration::zero() ? kPullSuspend : 0);
  h.commit_offset = commit ? *q.commit_offset : QueueOffset(0);
  h.suspend_timeout_millis = to_ms(q.suspend);
  h.subscription = q.sub_expression;
  h.sub_version = ci_.runtime().wall_ms();
  h.expression_type = std::string(expression_type_name(q.expression_type));
  remoting::RemotingCommand req = remoting::make_request(rc::PULL_MESSAGE, 0);
  req.ext_fields = h.to_fields();
  const std::string where = broker_where(q.queue.broker_name, addr);
  Result<remoting::RemotingCommand> reply = co_await ci_.rpc().invoke(addr, std::move(req), q.timeout);
  if (!reply.ok()) co_return with_context(fmt::format("pull from {}", where), std::move(reply).error());

  PullResult out;
  switch (reply->code) {
    case code::SUCCESS: out.status = PullStatus::FOUND; break;
    case code::PULL_NOT_FOUND: out.status = PullStatus::NO_NEW_MSG; break;
    case code::PULL_RETRY_IMMEDIATELY: out.status = PullStatus::NO_MATCHED_MSG; break;
    case code::PULL_OFFSET_MOVED: out.status = PullStatus::OFFSET_ILLEGAL; break;
    default: co_return reply_error(where, rc::PULL_MESSAGE, *reply);
  }
  Result<remoting::PullMessageResponseHeader> rh = remoting::PullMessageResponseHeader::from_fields(reply->ext_fields);
  if (!rh.ok()) co_return Error(Errc::corrupt, fmt::format("{} sent a malformed pull reply: {}", where, rh.error().detail));
  out.next_begin_offset = rh->next_begin_offset;
  out.min_offset = rh->min_offset;
  out.max_offset = rh->max_offset;
  out.suggest_which_broker_id = rh->suggest_which_broker_id;
  out.pulled_from_broker_id = found->broker_id;
  keep_suggestion(q.queue, rh->suggest_which_broker_id);
  if (out.status != PullStatus::FOUND) co_return out;

  Result<std::vector<MessageExt>> msgs = decode_messages(Bytes(reply->body.data(), reply->body.size()), MessagesDecodeOptions{});
  if (!msgs.ok()) co_return with_context(fmt::format("pull reply from {}", where), std::move(msgs).error());
  const std::string min_text = std::to_string(rh->min_offset.value());
  const std::string max_text = std::to_string(rh->max_offset.value());
  for (MessageExt& m : *msgs) {
    if (!sub->matches_tag(m.tags())) continue;  // a tag-hash collision at the broker
    m.properties.set(prop::kMinOffset, min_text);
    m.properties.set(prop::kMaxOffset, max_text);
    out.messages.push_back(std::move(m));
  }
  co_return out;
}

std::int64_t PullAPI::suggested_broker(const MessageQueue& mq) const {
  auto it = suggested_.find(mq);
  return it == suggested_.end() ? kMasterId : it->second;
}

void PullAPI::keep_suggestion(const MessageQueue& mq, std::int64_t broker_id) {
  if (broker_id == kMasterId) {
    suggested_.erase(mq);
    return;
  }
  auto it = suggested_.find(mq);
  if (it != suggested_.end()) {
    it->second = broker_id;
    return;
  }
  if (suggested_.size() >= kSuggestionsMax) return;  // stated in the header: pulled from the master
  suggested_.emplace(mq, broker_id);
}

}  // namespace ferry::client
