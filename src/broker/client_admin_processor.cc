#include "broker/client_admin_processor.h"

#include <fmt/format.h>

#include "common/msg_id.h"
#include "remoting/body/offset_tables.h"
#include "remoting/header/client_admin_header.h"
#include "remoting/request_code.h"
#include "remoting/response_code.h"

namespace ferry::broker {

namespace rc = remoting::request_code;
namespace code = remoting::response_code;

Task<Reply> ClientAdminProcessor::reset_offset(RequestContext ctx) {
  auto h = remoting::ResetOffsetRequestHeader::from_fields(ctx.request.ext_fields);
  if (!h) co_return bad_header(ctx.request, h.error());
  rt_.log().info("[reset-offset] requested by {}: topic={}, group={}, timestamp={}, isForce={}", ctx.channel->peer_text(),
                 h->topic, h->group, h->timestamp, h->is_force);
  const TopicConfig* topic = topics_.find(h->topic);
  if (topic == nullptr) {
    co_return reply(ctx.request, code::SYSTEM_ERROR,
                    fmt::format("[reset-offset] reset offset failed, no topic in this broker. topic={}", h->topic));
  }
  remoting::body::ResetOffsetBody body;
  for (std::int32_t i = 0; i < topic->write_queue_nums; ++i) {
    const QueueId q(i);
    QueueOffset target(0);
    if (h->timestamp == remoting::kResetToMax) {
      target = store_.max_offset(h->topic, q);
    } else {
      Result<QueueOffset> found = store_.offset_by_time(h->topic, q, WallMs(h->timestamp));
      if (found.ok()) {
        target = *found;
      } else {
        rt_.log().info("[reset-offset] {}:{} has no offset for time {}: {}; using 0", h->topic, i, h->timestamp,
                       found.error().to_string());
      }
    }
    const std::optional<QueueOffset> committed = offsets_.query(h->group, h->topic, q);
    if (!h->is_force && committed && *committed < target) target = *committed;  // only move back
    body.offset_table[MessageQueue{h->topic, config_.broker_name, q}] = target;
  }

  const ConsumerGroupInfo* group = consumers_.find_group(h->group);
  if (group == nullptr || group->channels.empty()) {
    const std::string why = fmt::format("Consumer not online, so can not reset offset, Group: {} Topic: {} Timestamp: {}",
                                        h->group, h->topic, h->timestamp);
    rt_.log().info("[reset-offset] {}", why);
    co_return reply(ctx.request, code::CONSUMER_NOT_ONLINE, why);
  }
  // Copy the members: the group may change while the frames are written.
  std::vector<ClientChannel> members;
  for (const auto& [key, member] : group->channels) members.push_back(member);
  remoting::ResetOffsetRequestHeader to_client = *h;
  const std::vector<std::uint8_t> encoded = body.encode();
  for (const ClientChannel& m : members) {
    RemotingCommand req = remoting::make_request(rc::RESET_CONSUMER_CLIENT_OFFSET, 0);
    req.ext_fields = to_client.to_fields();
    req.body = encoded;
    Task<Status> send = calls_.oneway(m, std::move(req));
    Status s = co_await std::move(send);
    if (s.ok()) {
      rt_.log().info("[reset-offset] told client {}: topic={}, group={}", m.client_id, h->topic, h->group);
    } else {
      if (auto held = reset_error_log_.admit(rt_.now(), static_cast<std::int64_t>(s.error().code))) {
        rt_.log().warn("[reset-offset] telling client {} failed: {}{}", m.client_id, s.error().to_string(),
                       held_back_note(*held));
      }
    }
  }
  RemotingCommand out = reply(ctx.request, code::SUCCESS);
  out.body = encoded;
  co_return out;
}

Task<Reply> ClientAdminProcessor::consumer_status(RequestContext ctx) {
  auto h = remoting::GetConsumerStatusRequestHeader::from_fields(ctx.request.ext_fields);
  if (!h) co_return bad_header(ctx.request, h.error());
  const ConsumerGroupInfo* group = consumers_.find_group(h->group);
  if (group == nullptr || group->channels.empty()) {
    co_return reply(ctx.request, code::SYSTEM_ERROR,
                    fmt::format("No Any Consumer online in the consumer group: [{}]", h->group));
  }
  const bool one = h->client_addr.has_value() && !h->client_addr->empty();
  std::vector<ClientChannel> members;
  for (const auto& [key, member] : group->channels) {
    if (!one || member.client_id == *h->client_addr) members.push_back(member);
  }
  remoting::GetConsumerStatusRequestHeader to_client{h->topic, h->group, std::nullopt};
  remoting::body::GetConsumerStatusBody out_body;
  for (const ClientChannel& m : members) {
    RemotingCommand req = remoting::make_request(rc::GET_CONSUMER_STATUS_FROM_CLIENT, 0);
    req.ext_fields = to_client.to_fields();
    Task<Result<RemotingCommand>> call = calls_.call(m, std::move(req), timeouts_.client_call);
    Result<RemotingCommand> r = co_await std::move(call);
    if (!r.ok()) {
      if (auto held = status_error_log_.admit(rt_.now(), 1)) {
        rt_.log().warn("[get-consumer-status] client {} of group {}: {}{}", m.client_id, h->group, r.error().to_string(),
                       held_back_note(*held));
      }
      continue;
    }
    if (r->code != code::SUCCESS) {
      if (auto held = status_error_log_.admit(rt_.now(), 2)) {
        rt_.log().warn("[get-consumer-status] client {} of group {} answered {} {}{}", m.client_id, h->group, r->code,
                       r->remark.value_or(""), held_back_note(*held));
      }
      continue;
    }
    auto status = remoting::body::GetConsumerStatusBody::decode(r->body);
    if (!status.ok()) {
      if (auto held = status_error_log_.admit(rt_.now(), 3)) {
        rt_.log().warn("[get-consumer-status] client {} of group {}: {}{}", m.client_id, h->group,
                       status.error().to_string(), held_back_note(*held));
      }
      continue;
    }
    out_body.consumer_table[m.client_id] = std::move(status->message_queue_table);
    if (one) break;
  }
  RemotingCommand out = reply(ctx.request, code::SUCCESS);
  out.body = out_body.encode();
  co_return out;
}

Task<Reply> ClientAdminProcessor::running_info(RequestContext ctx) {
  auto h = remoting::GetConsumerRunningInfoRequestHeader::from_fields(ctx.request.ext_fields);
  if (!h) co_return bad_header(ctx.request, h.error());
  co_return co_await call_consumer(rc::GET_CONSUMER_RUNNING_INFO, std::move(ctx.request), h->consumer_group, h->client_id);
}

Task<Reply> ClientAdminProcessor::consume_directly(RequestContext ctx) {
  auto h = remoting::ConsumeMessageDirectlyResultRequestHeader::from_fields(ctx.request.ext_fields);
  if (!h) co_return bad_header(ctx.request, h.error());
  const std::string msg_id = h->msg_id.value_or("");
  Result<OffsetMsgId> id = decode_offset_msg_id(msg_id);
  if (!id.ok()) {
    co_return reply(ctx.request, code::SYSTEM_ERROR, fmt::format("msgId '{}' is not an offset msgId: {}", msg_id, id.error().detail));
  }
  Result<FileView> record = store_.message_at(id->offset);
  if (!record.ok()) {
    co_return reply(ctx.request, code::SYSTEM_ERROR,
                    fmt::format("can not find message {} (offset {}): {}", msg_id, id->offset, record.error().to_string()));
  }
  RemotingCommand relayed = ctx.request;
  relayed.ext_fields.set("brokerName", config_.broker_name);
  relayed.body.assign(record->bytes().begin(), record->bytes().end());
  co_return co_await call_consumer(rc::CONSUME_MESSAGE_DIRECTLY, std::move(relayed), h->consumer_group,
                                   h->client_id.value_or(""));
}

std::optional<ClientChannel> ClientAdminProcessor::find_client(std::string_view group, std::string_view client_id) const {
  const ConsumerGroupInfo* g = consumers_.find_group(group);
  if (g == nullptr) return std::nullopt;
  for (const auto& [key, member] : g->channels) {
    if (member.client_id == client_id) return member;
  }
  return std::nullopt;
}

Task<Reply> ClientAdminProcessor::call_consumer(std::int32_t request_code, RemotingCommand request, std::string group,
                                                std::string client_id) {
  std::optional<ClientChannel> client = find_client(group, client_id);
  if (!client) {
    co_return reply(request, code::SYSTEM_ERROR, fmt::format("The Consumer <{}> <{}> not online", group, client_id));
  }
  RemotingCommand to_client = remoting::make_request(request_code, 0);
  to_client.ext_fields = request.ext_fields;
  to_client.body = request.body;
  Task<Result<RemotingCommand>> call = calls_.call(*client, std::move(to_client), timeouts_.relay);
  Result<RemotingCommand> r = co_await std::move(call);
  if (!r.ok()) {
    if (r.error().code == Errc::timed_out) {
      co_return reply(request, code::CONSUME_MSG_TIMEOUT,
                      fmt::format("consumer <{}> <{}> Timeout: {}", group, client_id, r.error().to_string()));
    }
    co_return reply(request, code::SYSTEM_ERROR,
                    fmt::format("invoke consumer <{}> <{}> Exception: {}", group, client_id, r.error().to_string()));
  }
  RemotingCommand out = reply(request, r->code, r->remark.value_or(""));
  out.ext_fields = r->ext_fields;
  out.body = std::move(r->body);
  co_return out;
}

}  // namespace ferry::broker
