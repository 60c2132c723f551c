// ClientInstance: route fetching and the tables built from routes.
#include <fmt/format.h>

#include <algorithm>

#include "client/client_errors.h"
#include "client/client_instance.h"
#include "remoting/header/route_header.h"
#include "remoting/request_code.h"
#include "remoting/response_code.h"

namespace ferry::client {

namespace rc = remoting::request_code;
namespace code = remoting::response_code;

Task<Result<TopicRouteData>> ClientInstance::fetch_route(std::string topic) {
  if (shut_down_) co_return Error(Errc::closed, fmt::format("client {} is shut down", client_id_));
  remoting::RemotingCommand req = remoting::make_request(rc::GET_ROUTEINFO_BY_TOPIC, 0);
  req.ext_fields = remoting::GetRouteInfoRequestHeader{topic}.to_fields();
  Result<remoting::RemotingCommand> r = co_await names_.invoke(std::move(req));
  if (!r.ok()) co_return with_context(fmt::format("route of topic '{}'", topic), std::move(r).error());
  if (r->code != code::SUCCESS) {
    Error e = reply_error(fmt::format("NameServer {}", names_.current()), rc::GET_ROUTEINFO_BY_TOPIC, *r);
    if (r->code == code::TOPIC_NOT_EXIST) e.detail = fmt::format("no route for topic '{}': {}", topic, e.detail);
    co_return e;
  }
  Result<TopicRouteData> route = TopicRouteData::decode(r->body);
  if (!route.ok()) co_return with_context(fmt::format("route of topic '{}'", topic), std::move(route).error());
  co_return normalized(std::move(*route));
}

Task<Status> ClientInstance::update_topic_route(std::string topic) {
  Result<TopicRouteData> route = co_await fetch_route(topic);
  if (!route.ok()) co_return std::move(route).error();
  apply_route(topic, std::move(*route), false);
  co_return Status{};
}

Task<Status> ClientInstance::update_topic_route_from_default(std::string topic, std::string default_topic,
                                                             std::int32_t queue_nums) {
  Result<TopicRouteData> route = co_await fetch_route(default_topic);
  if (!route.ok()) co_return std::move(route).error();
  for (auto& qd : route->queue_datas) {
    const std::int32_t n = std::min(queue_nums, qd.read_queue_nums);
    qd.read_queue_nums = n;
    qd.write_queue_nums = n;
  }
  apply_route(topic, std::move(*route), true);
  co_return Status{};
}

void ClientInstance::apply_route(const std::string& topic, TopicRouteData route, bool force) {
  auto old = routes_.find(topic);
  const bool changed = old == routes_.end() || old->second != route;
  auto pub = publish_.find(topic);
  const bool publish_stale = pub != publish_.end() && !pub->second.ok();
  if (!changed && !publish_stale && !force) return;
  if (changed) rt_.log().info("route of topic '{}' changed: {} queue datas, {} brokers", topic, route.queue_datas.size(), route.broker_datas.size());
  for (const auto& b : route.broker_datas) broker_addrs_[b.broker_name] = b.broker_addrs;
  if (pub != publish_.end()) {
    const std::uint32_t index = pub->second.next_index();  // keep the round robin going
    pub->second = TopicPublishInfo(topic, route, index);
  }
  std::vector<MessageQueue> readable = client::subscribe_queues(topic, route);
  auto sub = subscribe_.find(topic);
  const bool sub_changed = sub == subscribe_.end() || sub->second != readable;
  subscribe_[topic] = readable;
  routes_[topic] = std::move(route);
  if (sub_changed) {
    for (const auto& [group, c] : consumers_) {
      for (const auto& s : c->consumer_data().subscription_data_set) {
        if (s.topic == topic) c->on_subscribe_queues_changed(topic, readable);
      }
    }
  }
}

void ClientInstance::unwatch_topic(const std::string& topic) {
  auto it = watched_.find(topic);
  if (it == watched_.end()) return;
  if (--it->second <= 0) watched_.erase(it);
}

std::set<std::string> ClientInstance::topics_in_use() const {
  std::set<std::string> topics;
  for (const auto& [t, p] : publish_) topics.insert(t);
  for (const auto& [t, n] : watched_) topics.insert(t);
  for (const auto& [g, c] : consumers_) {
    for (const auto& s : c->consumer_data().subscription_data_set) topics.insert(s.topic);
  }
  return topics;
}

Task<void> ClientInstance::update_all_routes() {
  ++route_poll_rounds_;
  const bool may_skip = !skipped_last_poll_;
  skipped_last_poll_ = false;
  for (const std::string& topic : topics_in_use()) {
    if (shut_down_) co_return;
    // buggify: the poll keeps the previous route of this topic for one round (as when the
    // NameServer does not answer); the next round fetches it (never two rounds in a row).
    if (may_skip && FERRY_BUGGIFY(rt_)) {
      skipped_last_poll_ = true;
      continue;
    }
    Status s = co_await update_topic_route(topic);
    if (!s.ok()) rt_.log().debug("route poll: {}", s.error().to_string());
  }
}

TopicPublishInfo& ClientInstance::publish_info(const std::string& topic) {
  auto it = publish_.find(topic);
  if (it != publish_.end()) return it->second;
  // RocketMQ starts each topic's round robin at a random index.
  const auto start = static_cast<std::uint32_t>(rt_.random().below(1u << 16));
  auto route = routes_.find(topic);
  const TopicRouteData none;
  TopicPublishInfo info(topic, route == routes_.end() ? none : route->second, start);
  return publish_.emplace(topic, std::move(info)).first->second;
}

const TopicPublishInfo* ClientInstance::find_publish_info(const std::string& topic) const {
  auto it = publish_.find(topic);
  return it == publish_.end() ? nullptr : &it->second;
}

std::vector<MessageQueue> ClientInstance::subscribe_queues(const std::string& topic) const {
  auto it = subscribe_.find(topic);
  return it == subscribe_.end() ? std::vector<MessageQueue>() : it->second;
}

std::optional<TopicRouteData> ClientInstance::route(const std::string& topic) const {
  auto it = routes_.find(topic);
  if (it == routes_.end()) return std::nullopt;
  return it->second;
}

}  // namespace ferry::client
