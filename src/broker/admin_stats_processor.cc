#include "broker/admin_stats_processor.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "remoting/body/admin_stats.h"
#include "remoting/body/broker_stats_data.h"
#include "remoting/body/connection.h"
#include "remoting/body/consume_stats_list.h"
#include "remoting/body/group_list.h"
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

// Offset keys are "topic@group" (topic and group names never hold '@'): the topics of each group.
std::map<std::string, std::set<std::string>> topics_by_group(const OffsetTable& table) {
  std::map<std::string, std::set<std::string>> out;
  for (const auto& [key, queues] : table) {
    const std::size_t at = key.find('@');
    if (at == std::string::npos || at == 0 || at + 1 == key.size()) continue;
    out[key.substr(at + 1)].insert(key.substr(0, at));
  }
  return out;
}

body::BrokerStatsItem item_of(const KeyedStats::Window& w) { return body::BrokerStatsItem{w.sum, w.tps, w.avgpt}; }

}  // namespace

bool AdminStatsProcessor::subscribed(const ConsumerGroupInfo* online, const std::string& topic) const {
  return online == nullptr || online->subscriptions.empty() || online->subscriptions.contains(topic);
}

body::ConsumeStats AdminStatsProcessor::topic_consume_stats(const std::string& group, const std::string& topic,
                                                            std::int32_t queue_nums) const {
  body::ConsumeStats stats;
  for (std::int32_t i = 0; i < queue_nums; ++i) {
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
  stats.consume_tps = stats_.group_get_tps(rt_.now(), topic, group);
  return stats;
}

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
    if (t == nullptr || !subscribed(online, topic)) continue;
    body::ConsumeStats one = topic_consume_stats(group, topic, t->read_queue_nums);
    stats.offset_table.merge(one.offset_table);
    stats.consume_tps += one.consume_tps;
  }
  co_return with_body(ctx.request, stats.encode());
}

Task<Reply> AdminStatsProcessor::topic_consumed_by(RequestContext ctx) {
  auto h = remoting::QueryTopicConsumeByWhoRequestHeader::from_fields(ctx.request.ext_fields);
  if (!h) co_return bad_header(ctx.request, h.error());
  std::set<std::string> groups;
  for (const auto& [name, g] : consumers_.groups()) {
    if (g.subscriptions.contains(h->topic)) groups.insert(name);
  }
  const std::string prefix = h->topic + "@";
  for (auto it = offsets_.table().lower_bound(prefix); it != offsets_.table().end() && it->first.starts_with(prefix); ++it) {
    groups.insert(it->first.substr(prefix.size()));
  }
  body::GroupList list;
  list.group_list.assign(groups.begin(), groups.end());
  co_return with_body(ctx.request, list.encode());
}

Task<Reply> AdminStatsProcessor::view_stats(RequestContext ctx) {
  auto h = remoting::ViewBrokerStatsDataRequestHeader::from_fields(ctx.request.ext_fields);
  if (!h) co_return bad_header(ctx.request, h.error());
  const std::optional<KeyedStats::Windows> w = stats_.view(rt_.now(), h->stats_name, h->stats_key);
  if (!w) {
    co_return reply(ctx.request, code::SYSTEM_ERROR,
                    fmt::format("The stats <{}> <{}> not exist", h->stats_name, h->stats_key));
  }
  body::BrokerStatsData data{item_of(w->minute), item_of(w->hour), item_of(w->day)};
  co_return with_body(ctx.request, data.encode());
}

Task<Reply> AdminStatsProcessor::broker_consume_stats(RequestContext ctx) {
  auto h = remoting::GetConsumeStatsInBrokerHeader::from_fields(ctx.request.ext_fields);
  if (!h) co_return bad_header(ctx.request, h.error());
  const std::map<std::string, std::set<std::string>> by_group = topics_by_group(offsets_.table());
  body::ConsumeStatsList list;
  list.broker_addr = broker_addr_;
  for (const auto& [group, config] : groups_.table()) {
    body::GroupConsumeStats entry{group, {}};
    auto topics = by_group.find(group);
    const ConsumerGroupInfo* online = consumers_.find_group(group);
    if (topics != by_group.end()) {
      for (const std::string& topic : topics->second) {
        const TopicConfig* t = topics_.find(topic);
        if (t == nullptr || (h->is_order && !t->order) || !subscribed(online, topic)) continue;
        body::ConsumeStats stats = topic_consume_stats(group, topic, t->write_queue_nums);
        list.total_diff += stats.total_diff();
        entry.stats.push_back(std::move(stats));
      }
    }
    list.consume_stats_list.push_back(std::move(entry));
  }
  co_return with_body(ctx.request, list.encode());
}

}  // namespace ferry::broker
