#include "client/topic_publish_info.h"

#include <algorithm>
#include <charconv>
#include <string_view>

#include "common/permission.h"
#include "runtime/assert.h"

namespace ferry::client {

namespace {

const remoting::body::BrokerData* find_broker(const TopicRouteData& route, const std::string& name) {
  for (const auto& b : route.broker_datas) {
    if (b.broker_name == name) return &b;
  }
  return nullptr;
}

// "brokerA:4;brokerB:4" → queues; malformed pieces are skipped.
std::vector<MessageQueue> order_queues(const std::string& topic, std::string_view conf) {
  std::vector<MessageQueue> out;
  while (!conf.empty()) {
    const std::size_t semi = conf.find(';');
    std::string_view item = conf.substr(0, semi);
    conf = semi == std::string_view::npos ? std::string_view() : conf.substr(semi + 1);
    const std::size_t colon = item.find(':');
    if (colon == std::string_view::npos) continue;
    std::int32_t n = 0;
    std::string_view num = item.substr(colon + 1);
    auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), n);
    if (ec != std::errc() || p != num.data() + num.size()) continue;
    for (std::int32_t i = 0; i < n; ++i) out.push_back(MessageQueue{topic, std::string(item.substr(0, colon)), QueueId(i)});
  }
  return out;
}

}  // namespace

TopicRouteData normalized(TopicRouteData route) {
  std::stable_sort(route.queue_datas.begin(), route.queue_datas.end(),
                   [](const auto& a, const auto& b) { return a.broker_name < b.broker_name; });
  std::stable_sort(route.broker_datas.begin(), route.broker_datas.end(),
                   [](const auto& a, const auto& b) { return a.broker_name < b.broker_name; });
  return route;
}

TopicPublishInfo::TopicPublishInfo(std::string topic, const TopicRouteData& route, std::uint32_t start_index)
    : route_(normalized(route)), index_(start_index) {
  if (route_.order_topic_conf && !route_.order_topic_conf->empty()) {
    queues_ = order_queues(topic, *route_.order_topic_conf);
    order_topic_ = true;
    return;
  }
  for (const auto& qd : route_.queue_datas) {
    if (!perm::is_writeable(qd.perm)) continue;
    const auto* b = find_broker(route_, qd.broker_name);
    if (b == nullptr || !b->broker_addrs.contains(0)) continue;  // no master: not writable
    for (std::int32_t i = 0; i < qd.write_queue_nums; ++i) queues_.push_back(MessageQueue{topic, qd.broker_name, QueueId(i)});
  }
}

const MessageQueue& TopicPublishInfo::select_one() {
  FERRY_ASSERT(!queues_.empty(), "select_one on a topic without queues");
  return queues_[next_index() % queues_.size()];
}

const MessageQueue& TopicPublishInfo::select_one_avoiding(const std::optional<std::string>& last_broker) {
  if (!last_broker) return select_one();
  for (std::size_t i = 0; i < queues_.size(); ++i) {
    const MessageQueue& mq = queues_[next_index() % queues_.size()];
    if (mq.broker_name != *last_broker) return mq;
  }
  return select_one();
}

std::int32_t TopicPublishInfo::write_queue_nums_of(const std::string& broker_name) const {
  for (const auto& qd : route_.queue_datas) {
    if (qd.broker_name == broker_name) return qd.write_queue_nums;
  }
  return 0;
}

std::vector<MessageQueue> subscribe_queues(const std::string& topic, const TopicRouteData& route) {
  std::vector<MessageQueue> out;
  for (const auto& qd : normalized(route).queue_datas) {
    if (!perm::is_readable(qd.perm)) continue;
    for (std::int32_t i = 0; i < qd.read_queue_nums; ++i) out.push_back(MessageQueue{topic, qd.broker_name, QueueId(i)});
  }
  return out;
}

}  // namespace ferry::client
