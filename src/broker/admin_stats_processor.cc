#include "broker/admin_stats_processor.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "remoting/body/admin_stats.h"
#include "remoting/body/connection.h"
#include "remoting/header/admin_stats_header.h"
#include "remoting/language_code.h"
#include "remoting/response_code.h"

namespace ferry::broker {

namespace code = remoting::response_code;
namespace body = remoting::body;

namespace {

RemotingCommand with_body(const RemotingCommand& request, std::vector<std::uint8_t> bytes) {
  RemotingCommand r = reply(request, code::SUCCESS);
  r.body = std::move(bytes);
  return r;
}

body::Connection connection_of(const ClientChannel& c) {
  return body::Connection{c.client_id, c.channel ? c.channel->peer_text() : std::string(),
                          std::string(remoting::language_name(c.language)), c.version};
}

void sort_by_client_id(std::vector<body::Connection>& v) {
  std::sort(v.begin(), v.end(), [](const body::Connection& a, const body::Connection& b) {
    return std::tie(a.client_id, a.client_addr) < std::tie(b.client_id, b.client_addr);
  });
}

}  // namespace

Task<Reply> AdminStatsProcessor::topic_stats(RequestContext ctx) {
  auto h = remoting::GetTopicStatsInfoRequestHeader::from_fields(ctx.request.ext_fields);
  if (!h) co_return bad_header(ctx.request, h.error());
  const TopicConfig* t = topics_.find(h->topic);
  if (t == nullptr) co_return reply(ctx.request, code::TOPIC_NOT_EXIST, fmt::format("topic[{}] not exist", h->topic));
  body::TopicStatsTable table;
  for (std::int32_t i = 0; i < t->write_queue_nums; ++i) {
    const QueueId q(i);
    body::TopicOffset o;
    o.min_offset = std::max<std::int64_t>(0, store_.min_offset(h->topic, q).value());
    o.max_offset = std::max<std::int64_t>(0, store_.max_offset(h->topic, q).value());
    if (o.max_offset > 0) {
      auto ts = store_.store_time_at(h->topic, q, QueueOffset(o.max_offset - 1));
      if (ts.ok()) o.last_update_timestamp = *ts;
    }
    table.offset_table.emplace(MessageQueue{h->topic, config_.broker_name, q}, o);
  }
  co_return with_body(ctx.request, table.encode());
}

Task<Reply> AdminStatsProcessor::consumer_connections(RequestContext ctx) {
  auto h = remoting::GetConsumerConnectionListRequestHeader::from_fields(ctx.request.ext_fields);
  if (!h) co_return bad_header(ctx.request, h.error());
  const ConsumerGroupInfo* g = consumers_.find_group(h->consumer_group);
  if (g == nullptr || g->channels.empty()) {
    co_return reply(ctx.request, code::CONSUMER_NOT_ONLINE,
                    fmt::format("the consumer group[{}] not online", h->consumer_group));
  }
  body::ConsumerConnection c;
  c.consume_type = g->consume_type;
  c.message_model = g->message_model;
  c.consume_from_where = g->consume_from_where;
  for (const auto& [topic, sub] : g->subscriptions) c.subscription_table.emplace(topic, sub.data);
  for (const auto& [key, ch] : g->channels) c.connection_set.push_back(connection_of(ch));
  sort_by_client_id(c.connection_set);
  co_return with_body(ctx.request, c.encode());
}

Task<Reply> AdminStatsProcessor::producer_connections(RequestContext ctx) {
  auto h = remoting::GetProducerConnectionListRequestHeader::from_fields(ctx.request.ext_fields);
  if (!h) co_return bad_header(ctx.request, h.error());
  const auto* members = producers_.find_group(h->producer_group);
  if (members == nullptr) {
    co_return reply(ctx.request, code::SYSTEM_ERROR, fmt::format("the producer group[{}] not exist", h->producer_group));
  }
  body::ProducerConnection p;
  for (const auto& [key, ch] : *members) p.connection_set.push_back(connection_of(ch));
  sort_by_client_id(p.connection_set);
  co_return with_body(ctx.request, p.encode());
}

Task<Reply> AdminStatsProcessor::consume_stats(RequestContext ctx) {
  auto h = remoting::GetConsumeStatsRequestHeader::from_fields(ctx.request.ext_fields);
  if (!h) co_return bad_header(ctx.request, h.error());
  const std::string& group = h->consumer_group;
  std::set<std::string> topics;
  const bool blank = !h->topic || h->topic->find_first_not_of(" \t\r\n") == std::string::npos;
  if (blank) {
    const std::string suffix = "@" + group;  // keys are "topic@group"
    for (const auto& [key, queues] : offsets_.table()) {
      if (key.size() > suffix.size() && key.ends_with(suffix)) topics.insert(key.substr(0, key.size() - suffix.size()));
    }
  } else {
    topics.insert(*h->topic);
  }
  const ConsumerGroupInfo* online = consumers_.find_group(group);
  body::ConsumeStats stats;
  for (const std::string& topic : topics) {
    const TopicConfig* t = topics_.find(topic);
    if (t == nullptr) continue;
    if (online != nullptr && !online->subscriptions.empty() && !online->subscriptions.contains(topic)) continue;
    for (std::int32_t i = 0; i < t->read_queue_nums; ++i) {
      const QueueId q(i);
      body::OffsetWrapper o;
      o.broker_offset = std::max<std::int64_t>(0, store_.max_offset(topic, q).value());
      const std::optional<QueueOffset> committed = offsets_.query(group, topic, q);
      o.consumer_offset = committed ? std::max<std::int64_t>(0, committed->value()) : 0;
      if (o.consumer_offset > 0) {
        auto ts = store_.store_time_at(topic, q, QueueOffset(o.consumer_offset - 1));
        if (ts.ok() && *ts > 0) o.last_timestamp = *ts;
      }
      stats.offset_table.emplace(MessageQueue{topic, config_.broker_name, q}, o);
    }
  }
  co_return with_body(ctx.request, stats.encode());
}

}  // namespace ferry::broker
