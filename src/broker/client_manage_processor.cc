#include "broker/client_manage_processor.h"

#include <fmt/format.h>

#include "broker/retry_topics.h"
#include "common/names.h"
#include "common/permission.h"
#include "common/subscription_filter.h"
#include "remoting/body/consumer_id_list.h"
#include "remoting/body/heartbeat_data.h"
#include "remoting/header/client_header.h"
#include "remoting/response_code.h"

namespace ferry::broker {

namespace code = remoting::response_code;
using remoting::body::HeartbeatData;
using remoting::body::MessageModel;

namespace {
constexpr std::int32_t kTopicSysFlagUnit = 0x1;  // RocketMQ TopicSysFlag.FLAG_UNIT
}  // namespace

Task<Reply> ClientManageProcessor::heartbeat(RequestContext ctx, ServerTag tag) {
  const RemotingCommand& req = ctx.request;
  auto decoded = HeartbeatData::decode(req.body);
  if (!decoded) co_return bad_header(req, decoded.error());
  const HeartbeatData hb = std::move(*decoded);
  if (hb.client_id.empty()) co_return reply(req, code::SYSTEM_ERROR, "HeartbeatData.clientID: empty");
  if (!ctx.channel) co_return reply(req, code::SYSTEM_ERROR, "heartbeat without a channel");
  for (std::size_t i = 0; i < hb.consumer_data_set.size(); ++i) {
    const auto& c = hb.consumer_data_set[i];
    if (Status v = validate_group(c.group_name); !v) {
      co_return reply(req, code::SYSTEM_ERROR,
                      fmt::format("HeartbeatData.consumerDataSet[{}].groupName: {}", i, v.error().detail));
    }
    if (c.subscription_data_set.size() > config_.subscriptions_per_consumer_max) {
      co_return reply(req, code::SYSTEM_ERROR,
                      fmt::format("HeartbeatData.consumerDataSet[{}].subscriptionDataSet: {} topics, at most {}", i,
                                  c.subscription_data_set.size(), config_.subscriptions_per_consumer_max));
    }
  }
  for (std::size_t i = 0; i < hb.producer_data_set.size(); ++i) {
    if (Status v = validate_group(hb.producer_data_set[i].group_name); !v) {
      co_return reply(req, code::SYSTEM_ERROR,
                      fmt::format("HeartbeatData.producerDataSet[{}].groupName: {}", i, v.error().detail));
    }
  }
  if (!ctx.channel->is_open()) {
    // Closed while this request waited: registering it would leave a member nobody can reach
    // until it expires (its close was already handled).
    co_return reply(req, code::SYSTEM_ERROR, "the connection closed");
  }
  const MonoTime now = rt_.now();
  const std::uint64_t key = client_key(tag, *ctx.channel);
  for (const auto& c : hb.consumer_data_set) {
    bool notify = true;
    if (const SubscriptionGroupConfig* g = groups_.find_or_create(c.group_name)) {
      notify = g->notify_consumer_ids_changed_enable;
      if (c.message_model == MessageModel::CLUSTERING) {
        const TopicConfig* t = ensure_topic(topics_, retry_topic(c.group_name), g->retry_queue_nums, perm::kReadWrite,
                                            c.unit_mode ? kTopicSysFlagUnit : 0);
        if (t == nullptr && g->retry_queue_nums > 0) {
          if (auto held = retry_topic_log_.admit(rt_.now())) {
            rt_.log().warn("heartbeat: could not create {}{}", retry_topic(c.group_name), held_back_note(*held));
          }
        }
      }
    }
    if (!consumers_.register_consumer(c, ClientChannel{ctx.channel, hb.client_id, now, key, req.language, req.version}, notify)) {
      co_return reply(req, code::SYSTEM_BUSY,
                      fmt::format("too many client registrations ({}); consumer {} of {} not registered",
                                  config_.client_channels_max, hb.client_id, c.group_name));
    }
  }
  for (const auto& p : hb.producer_data_set) {
    const std::size_t max = config_.client_channels_max > consumers_.registrations()
                                ? config_.client_channels_max - consumers_.registrations()
                                : 0;
    if (!producers_.register_producer(p.group_name, ClientChannel{ctx.channel, hb.client_id, now, key, req.language, req.version}, max)) {
      co_return reply(req, code::SYSTEM_BUSY,
                      fmt::format("too many client registrations ({}); producer {} of {} not registered",
                                  config_.client_channels_max, hb.client_id, p.group_name));
    }
  }
  co_return reply(req, code::SUCCESS);
}

Task<Reply> ClientManageProcessor::unregister_client(RequestContext ctx, ServerTag tag) {
  auto h = remoting::UnregisterClientRequestHeader::from_fields(ctx.request.ext_fields);
  if (!h) co_return bad_header(ctx.request, h.error());
  if (!ctx.channel) co_return reply(ctx.request, code::SUCCESS);
  const std::uint64_t id = client_key(tag, *ctx.channel);
  if (h->producer_group && !h->producer_group->empty()) producers_.unregister_producer(*h->producer_group, id);
  if (h->consumer_group && !h->consumer_group->empty()) consumers_.unregister_consumer(*h->consumer_group, id);
  co_return reply(ctx.request, code::SUCCESS);
}

Task<Reply> ClientManageProcessor::check_client_config(RequestContext ctx) {
  const RemotingCommand& req = ctx.request;
  auto body = remoting::body::CheckClientRequestBody::decode(req.body);
  if (!body) co_return bad_header(req, body.error());
  if (!body->subscription_data) co_return reply(req, code::SUCCESS);
  const remoting::body::SubscriptionData& sub = *body->subscription_data;
  auto type = parse_expression_type(sub.expression_type);
  if (type.ok() && *type == ExpressionType::tag) co_return reply(req, code::SUCCESS);
  if (type.ok() && !config_.enable_property_filter) {
    co_return reply(req, code::SYSTEM_ERROR,
                    fmt::format("The broker does not support consumer to filter message by {} (enablePropertyFilter "
                                "is false)", sub.expression_type));
  }
  auto compiled = type.ok() ? SubscriptionFilter::compile(*type, sub.sub_string) : Result<SubscriptionFilter>(type.error());
  if (!compiled.ok()) {
    if (auto held = bad_filter_log_.admit(rt_.now())) {
      rt_.log().warn("client {} of {}: subscription to {} (\"{}\") does not compile: {}{}", body->client_id, body->group,
                     sub.topic, sub.sub_string.substr(0, 200), compiled.error().detail, held_back_note(*held));
    }
    co_return reply(req, code::SUBSCRIPTION_PARSE_FAILED, compiled.error().detail);
  }
  co_return reply(req, code::SUCCESS);
}

Task<Reply> ClientManageProcessor::consumer_list(RequestContext ctx) {
  auto h = remoting::GetConsumerListByGroupRequestHeader::from_fields(ctx.request.ext_fields);
  if (!h) co_return bad_header(ctx.request, h.error());
  const ConsumerGroupInfo* g = consumers_.find_group(h->consumer_group);
  if (g == nullptr || g->channels.empty()) {
    co_return reply(ctx.request, code::SYSTEM_ERROR, fmt::format("no consumer for this group, {}", h->consumer_group));
  }
  remoting::body::ConsumerIdList list;
  list.consumer_id_list = g->client_ids();
  RemotingCommand out = reply(ctx.request, code::SUCCESS);
  out.body = list.encode();
  co_return out;
}

}  // namespace ferry::broker
