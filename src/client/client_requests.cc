// ClientInstance (client_instance.h): the requests a broker sends to the consumers of this
// instance — RESET_CONSUMER_CLIENT_OFFSET (220), GET_CONSUMER_STATUS_FROM_CLIENT (221),
// GET_CONSUMER_RUNNING_INFO (307), CONSUME_MESSAGE_DIRECTLY (309) (RocketMQ's
// ClientRemotingProcessor). docs/client.md, "Broker-to-client requests".
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "client/client_instance.h"
#include "common/compression.h"
#include "common/message_const.h"
#include "common/properties.h"
#include "common/sys_flag.h"
#include "remoting/header/reply_message_header.h"
#include "common/message_decoder.h"
#include "remoting/body/offset_tables.h"
#include "remoting/header/client_admin_header.h"
#include "remoting/request_code.h"
#include "remoting/response_code.h"

namespace ferry::client {

namespace rc = remoting::request_code;
namespace code = remoting::response_code;
using remoting::RemotingCommand;
using Reply = std::optional<RemotingCommand>;

namespace {

// Ferry's client in PROP_CLIENT_VERSION (RocketMQ writes its MQVersion, e.g. V4_9_4).
constexpr std::string_view kClientVersion = "FERRY_V4_9_COMPATIBLE";

RemotingCommand error_reply(const RemotingCommand& request, std::string remark) {
  return remoting::make_response(request, code::SYSTEM_ERROR, std::move(remark));
}

std::string not_here(const std::string& group) {
  return fmt::format("The Consumer Group <{}> not exist in this consumer", group);
}

}  // namespace

void ClientInstance::register_broker_requests() {
  rpc_.register_processor(rc::RESET_CONSUMER_CLIENT_OFFSET,
                          [this](remoting::RequestContext ctx) { return on_reset_offset(this, std::move(ctx)); });
  rpc_.register_processor(rc::GET_CONSUMER_STATUS_FROM_CLIENT,
                          [this](remoting::RequestContext ctx) { return on_consumer_status(this, std::move(ctx)); });
  rpc_.register_processor(rc::GET_CONSUMER_RUNNING_INFO,
                          [this](remoting::RequestContext ctx) { return on_running_info(this, std::move(ctx)); });
  rpc_.register_processor(rc::CONSUME_MESSAGE_DIRECTLY,
                          [this](remoting::RequestContext ctx) { return on_consume_directly(this, std::move(ctx)); });
  rpc_.register_processor(rc::PUSH_REPLY_MESSAGE_TO_CLIENT,
                          [this](remoting::RequestContext ctx) { return on_push_reply(this, std::move(ctx)); });
  rpc_.register_processor(rc::CHECK_TRANSACTION_STATE,
                          [this](remoting::RequestContext ctx) { return on_check_transaction(this, std::move(ctx)); });
}

void ClientInstance::set_transaction_check_handler(const std::string& group, TransactionCheckHandler handler) {
  if (handler) {
    transaction_checks_[group] = std::move(handler);
  } else {
    transaction_checks_.erase(group);
  }
}

// RocketMQ's ClientRemotingProcessor.checkTransactionState: the group is the half message's
// PGROUP; no reply (the request is oneway; the answer is an END_TRANSACTION).
Task<Reply> ClientInstance::on_check_transaction(ClientInstance* self, remoting::RequestContext ctx) {
  ++self->broker_requests_;
  auto decoded = decode_messages(Bytes(ctx.request.body.data(), ctx.request.body.size()), MessagesDecodeOptions{});
  if (!decoded.ok() || decoded->size() != 1) {
    if (auto held = self->check_request_log_.admit(self->rt_.now(), 1)) {
      self->rt_.log().warn("CHECK_TRANSACTION_STATE from {}: the body is not one message{}", ctx.channel->peer_text(),
                           held_back_note(*held));
    }
    co_return std::nullopt;
  }
  const std::string group(decoded->front().properties.get(prop::kProducerGroup).value_or(""));
  auto it = self->transaction_checks_.find(group);
  if (it == self->transaction_checks_.end()) {
    if (auto held = self->check_request_log_.admit(self->rt_.now(), 2)) {
      self->rt_.log().warn("CHECK_TRANSACTION_STATE from {}: no transaction producer of group '{}' here{}",
                           ctx.channel->peer_text(), group, held_back_note(*held));
    }
    co_return std::nullopt;
  }
  TransactionCheckHandler handler = it->second;  // a copy: the map may change while it runs
  Task<void> work = handler(std::move(ctx));
  co_await std::move(work);
  co_return std::nullopt;
}

Status ClientInstance::await_reply(const std::string& id, ReplyHandler handler) {
  if (replies_.size() >= kRepliesAwaitedMax) {
    return Error(Errc::busy, fmt::format("{} requests await their replies already", replies_.size()));
  }
  if (!replies_.emplace(id, std::move(handler)).second) {
    return Error(Errc::invalid_argument, fmt::format("a request with CORRELATION_ID {} awaits its reply already", id));
  }
  return {};
}

// PUSH_REPLY_MESSAGE_TO_CLIENT: the reply rebuilt from the header (RocketMQ's
// receiveReplyMessage: body decompressed per sysFlag, ARRIVE_TIME added) goes to the request
// awaiting its CORRELATION_ID. SUCCESS whether or not one waits (a late reply is only logged);
// SYSTEM_ERROR for a header or body that does not decode.
Task<Reply> ClientInstance::on_push_reply(ClientInstance* self, remoting::RequestContext ctx) {
  ++self->broker_requests_;
  auto h = remoting::ReplyMessageRequestHeader::from_fields(ctx.request.ext_fields);
  auto props = h.ok() ? decode_properties(h->properties.value_or("")) : Result<Properties>(h.error());
  if (!h.ok() || !props.ok()) {
    if (auto held = self->reply_request_log_.admit(self->rt_.now(), 1)) {
      self->rt_.log().warn("PUSH_REPLY_MESSAGE_TO_CLIENT from {}: {}{}", ctx.channel->peer_text(),
                           h.ok() ? props.error().to_string() : h.error().to_string(), held_back_note(*held));
    }
    co_return remoting::make_response(ctx.request, code::SYSTEM_ERROR, "process reply message fail");
  }
  MessageExt m;
  m.topic = h->topic;
  m.queue_id = QueueId(h->queue_id);
  m.flag = h->flag;
  m.sys_flag = h->sys_flag;
  m.born_timestamp_ms = h->born_timestamp;
  m.store_timestamp_ms = h->store_timestamp;
  if (auto born = HostPort::parse(h->born_host); born.ok()) m.born_host = *born;
  if (auto store = HostPort::parse(h->store_host); store.ok()) m.store_host = *store;
  m.reconsume_times = h->reconsume_times.value_or(0);
  m.properties = std::move(*props);
  m.properties.set(std::string(prop::kReplyMessageArriveTime), std::to_string(self->rt_.wall_ms()));
  if ((h->sys_flag & sysflag::kCompressed) != 0) {
    Result<std::vector<std::uint8_t>> body =
        sysflag::compression(h->sys_flag) == sysflag::Compression::zlib
            ? zlib_decompress(Bytes(ctx.request.body.data(), ctx.request.body.size()), kReplyBodyBytesMax)
            : Result<std::vector<std::uint8_t>>(Error(Errc::unsupported, fmt::format("compression type in sys_flag {:#x}", h->sys_flag)));
    if (!body.ok()) {
      if (auto held = self->reply_request_log_.admit(self->rt_.now(), 1)) {
        self->rt_.log().warn("PUSH_REPLY_MESSAGE_TO_CLIENT from {}: {}{}", ctx.channel->peer_text(),
                             body.error().to_string(), held_back_note(*held));
      }
      co_return remoting::make_response(ctx.request, code::SYSTEM_ERROR, "process reply message fail");
    }
    m.body = std::move(*body);
  } else {
    m.body = std::move(ctx.request.body);
  }
  const std::string id(m.properties.get(prop::kCorrelationId).value_or(""));
  auto it = self->replies_.find(id);
  if (it == self->replies_.end()) {
    if (auto held = self->reply_request_log_.admit(self->rt_.now(), 2)) {
      self->rt_.log().warn("receive reply message, but not matched any request, CorrelationId: {}, reply from host: {}{}",
                           id, ctx.channel->peer_text(), held_back_note(*held));
    }
  } else {
    ReplyHandler handler = std::move(it->second);
    self->replies_.erase(it);
    handler(std::move(m));
  }
  co_return remoting::make_response(ctx.request, code::SUCCESS);
}

ConsumerHandle* ClientInstance::find_consumer(const std::string& group) const {
  auto it = consumers_.find(group);
  return it == consumers_.end() ? nullptr : it->second;
}

Task<Reply> ClientInstance::on_reset_offset(ClientInstance* self, remoting::RequestContext ctx) {
  ++self->broker_requests_;
  auto h = remoting::ResetOffsetRequestHeader::from_fields(ctx.request.ext_fields);
  if (!h.ok()) {
    if (auto held = self->reset_request_log_.admit(self->rt_.now(), 1)) {
      self->rt_.log().warn("RESET_CONSUMER_CLIENT_OFFSET from {} with a bad header: {}{}", ctx.channel->peer_text(),
                           h.error().to_string(), held_back_note(*held));
    }
    co_return std::nullopt;
  }
  remoting::body::ResetOffsetBody body;
  if (!ctx.request.body.empty()) {
    auto decoded = remoting::body::ResetOffsetBody::decode(ctx.request.body);
    if (!decoded.ok()) {
      if (auto held = self->reset_request_log_.admit(self->rt_.now(), 2)) {
        self->rt_.log().warn("RESET_CONSUMER_CLIENT_OFFSET from {} (group {}, topic {}) with a bad body: {}{}",
                             ctx.channel->peer_text(), h->group, h->topic, decoded.error().to_string(),
                             held_back_note(*held));
      }
      co_return std::nullopt;
    }
    body = std::move(*decoded);
  }
  self->rt_.log().info("reset offsets from broker {}: topic={}, group={}, timestamp={}, {} queue(s)", ctx.channel->peer_text(),
                       h->topic, h->group, h->timestamp, body.offset_table.size());
  ConsumerHandle* c = self->find_consumer(h->group);
  if (c == nullptr) {
    self->rt_.log().info("[reset-offset] consumer group '{}' is not registered in client {}", h->group, self->client_id_);
  } else {
    c->reset_offsets(h->topic, body.offset_table);
  }
  // RocketMQ answers nothing (the broker sends it oneway); a two-way request gets SUCCESS.
  if (ctx.request.is_oneway()) co_return std::nullopt;
  co_return remoting::make_response(ctx.request, code::SUCCESS);
}

Task<Reply> ClientInstance::on_consumer_status(ClientInstance* self, remoting::RequestContext ctx) {
  ++self->broker_requests_;
  auto h = remoting::GetConsumerStatusRequestHeader::from_fields(ctx.request.ext_fields);
  if (!h.ok()) co_return error_reply(ctx.request, h.error().detail);
  remoting::body::GetConsumerStatusBody body;
  if (ConsumerHandle* c = self->find_consumer(h->group)) body.message_queue_table = c->offsets_of(h->topic);
  RemotingCommand out = remoting::make_response(ctx.request, code::SUCCESS);
  out.body = body.encode();
  co_return out;
}

Task<Reply> ClientInstance::on_running_info(ClientInstance* self, remoting::RequestContext ctx) {
  ++self->broker_requests_;
  auto h = remoting::GetConsumerRunningInfoRequestHeader::from_fields(ctx.request.ext_fields);
  if (!h.ok()) co_return error_reply(ctx.request, h.error().detail);
  ConsumerHandle* c = self->find_consumer(h->consumer_group);
  std::optional<remoting::body::ConsumerRunningInfo> info = c == nullptr ? std::nullopt : c->running_info();
  if (!info) co_return error_reply(ctx.request, not_here(h->consumer_group));
  // What the instance adds (RocketMQ's MQClientInstance.consumerRunningInfo).
  std::string names;
  for (const std::string& a : self->config_.namesrv_addrs) names += a + ";";
  info->properties[std::string(remoting::body::kPropNamesrvAddr)] = names;
  info->properties[std::string(remoting::body::kPropConsumeType)] =
      std::string(remoting::body::name(c->consumer_data().consume_type));
  info->properties[std::string(remoting::body::kPropClientVersion)] = std::string(kClientVersion);
  info->properties["clientId"] = self->client_id_;
  RemotingCommand out = remoting::make_response(ctx.request, code::SUCCESS);
  out.body = info->encode();
  co_return out;
}

Task<Reply> ClientInstance::on_consume_directly(ClientInstance* self, remoting::RequestContext ctx) {
  ++self->broker_requests_;
  auto h = remoting::ConsumeMessageDirectlyResultRequestHeader::from_fields(ctx.request.ext_fields);
  if (!h.ok()) co_return error_reply(ctx.request, h.error().detail);
  auto msgs = decode_messages(Bytes(ctx.request.body.data(), ctx.request.body.size()), MessagesDecodeOptions{});
  if (!msgs.ok()) co_return error_reply(ctx.request, fmt::format("CONSUME_MESSAGE_DIRECTLY: the message: {}", msgs.error().to_string()));
  if (msgs->size() != 1) {
    co_return error_reply(ctx.request, fmt::format("CONSUME_MESSAGE_DIRECTLY: the body holds {} messages, not 1", msgs->size()));
  }
  ConsumerHandle* c = self->find_consumer(h->consumer_group);
  if (c == nullptr) co_return error_reply(ctx.request, not_here(h->consumer_group));
  Task<std::optional<remoting::body::ConsumeMessageDirectlyResult>> t =
      c->consume_directly(std::move(msgs->front()), h->broker_name.value_or(""));
  std::optional<remoting::body::ConsumeMessageDirectlyResult> r = co_await std::move(t);
  if (!r) co_return error_reply(ctx.request, not_here(h->consumer_group));
  RemotingCommand out = remoting::make_response(ctx.request, code::SUCCESS);
  out.body = r->encode();
  co_return out;
}

}  // namespace ferry::client
