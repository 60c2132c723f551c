#include "broker/reply_push.h"

#include <fmt/format.h>

#include "common/message_const.h"
#include "common/properties.h"
#include "remoting/header/reply_message_header.h"
#include "remoting/request_code.h"
#include "remoting/response_code.h"

namespace ferry::broker {

Task<std::optional<std::string>> ReplyPusher::push(const remoting::RequestContext& ctx,
                                                   const remoting::SendMessageRequestHeader& h) {
  auto props = decode_properties(h.properties ? std::string_view(*h.properties) : std::string_view());
  if (!props) co_return "reply message properties: " + props.error().detail;
  const std::optional<std::string_view> requester = props->get(prop::kMessageReplyToClient);
  if (!requester) co_return std::string("reply message properties[REPLY_TO_CLIENT] is null");
  const std::string client_id(*requester);
  std::optional<ClientChannel> channel = producers_.find_channel(client_id);
  if (!channel) co_return fmt::format("push reply message fail, channel of {} not found.", client_id);

  props->set(prop::kPushReplyTime, std::to_string(rt_.wall_ms()));
  auto text = encode_properties(*props);
  if (!text) co_return "reply message properties: " + text.error().detail;
  remoting::ReplyMessageRequestHeader push;
  push.producer_group = h.producer_group;
  push.topic = h.topic;
  push.default_topic = h.default_topic;
  push.default_topic_queue_nums = h.default_topic_queue_nums;
  push.queue_id = h.queue_id.value();
  push.sys_flag = h.sys_flag;
  push.born_timestamp = h.born_timestamp;
  push.flag = h.flag;
  push.properties = std::move(*text);
  push.reconsume_times = h.reconsume_times;
  push.unit_mode = h.unit_mode;
  push.born_host = ctx.channel && ctx.channel->peer_host_port() ? ctx.channel->peer_host_port()->to_string() : std::string();
  push.store_host = config_.store.store_host.to_string();
  push.store_timestamp = rt_.wall_ms();
  remoting::RemotingCommand req = remoting::make_request(remoting::request_code::PUSH_REPLY_MESSAGE_TO_CLIENT, 0);
  req.ext_fields = push.to_fields();
  req.body = ctx.request.body;
  Task<Result<remoting::RemotingCommand>> calling = calls_.call(*channel, std::move(req), kReplyPushTimeout);
  Result<remoting::RemotingCommand> r = co_await std::move(calling);
  if (!r.ok()) co_return fmt::format("push reply message to {} fail. ({})", client_id, r.error().to_string());
  if (r->code != remoting::response_code::SUCCESS) {
    co_return fmt::format("push reply message to {} fail. (code {}: {})", client_id, r->code, r->remark.value_or(""));
  }
  co_return std::nullopt;
}

}  // namespace ferry::broker
