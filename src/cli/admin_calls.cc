#include "cli/admin_calls.h"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "client/client_errors.h"
#include "remoting/header/admin_stats_header.h"
#include "remoting/request_code.h"
#include "remoting/response_code.h"

namespace ferry::cli {

namespace {

namespace rc = remoting::request_code;
namespace code = remoting::response_code;
namespace body = remoting::body;

remoting::RemotingCommand request_with(std::int32_t request_code, remoting::ExtFields f) {
  remoting::RemotingCommand r = remoting::make_request(request_code, 0);
  r.ext_fields = std::move(f);
  return r;
}

template <typename T>
Result<T> decoded(const BrokerTarget& b, Result<T> r) {
  if (!r.ok()) return Error(r.error().code, fmt::format("{}: {}", describe(b), r.error().detail));
  return r;
}

bool says_not_exist(const remoting::RemotingCommand& r, const std::string& group) {
  return r.code == code::SYSTEM_ERROR && r.remark.value_or("") == fmt::format("the producer group[{}] not exist", group);
}

}  // namespace

Result<std::vector<BrokerTarget>> topic_masters(AdminSession& s, const std::string& topic) {
  Result<body::TopicRouteData> route = s.run(s.admin().topic_route(topic));
  if (!route.ok()) return std::move(route).error();
  std::vector<BrokerTarget> out;
  for (const auto& b : route->broker_datas) {
    auto master = b.broker_addrs.find(0);
    if (master != b.broker_addrs.end()) out.push_back(BrokerTarget{b.cluster, b.broker_name, 0, master->second});
  }
  if (out.empty()) return Error(Errc::not_found, fmt::format("no broker of topic '{}' has a master", topic));
  std::sort(out.begin(), out.end(), [](const BrokerTarget& a, const BrokerTarget& b) { return a.broker_name < b.broker_name; });
  return out;
}

Result<body::TopicStatsTable> topic_stats(AdminSession& s, const BrokerTarget& b, const std::string& topic) {
  Result<remoting::RemotingCommand> r =
      call_broker(s, b.addr, request_with(rc::GET_TOPIC_STATS_INFO, remoting::GetTopicStatsInfoRequestHeader{topic}.to_fields()));
  if (!r.ok()) return std::move(r).error();
  return decoded(b, body::TopicStatsTable::decode(r->body));
}

Result<body::ConsumeStats> consume_stats(AdminSession& s, const BrokerTarget& b, const std::string& group,
                                         const std::optional<std::string>& topic) {
  Result<remoting::RemotingCommand> r = call_broker(
      s, b.addr, request_with(rc::GET_CONSUME_STATS, remoting::GetConsumeStatsRequestHeader{group, topic}.to_fields()));
  if (!r.ok()) return std::move(r).error();
  return decoded(b, body::ConsumeStats::decode(r->body));
}

Result<std::optional<body::ConsumerConnection>> consumer_connection(AdminSession& s, const BrokerTarget& b,
                                                                    const std::string& group) {
  Result<remoting::RemotingCommand> r =
      call_broker(s, b.addr,
                  request_with(rc::GET_CONSUMER_CONNECTION_LIST, remoting::GetConsumerConnectionListRequestHeader{group}.to_fields()),
                  {code::SUCCESS, code::CONSUMER_NOT_ONLINE});
  if (!r.ok()) return std::move(r).error();
  if (r->code == code::CONSUMER_NOT_ONLINE) return std::optional<body::ConsumerConnection>();
  Result<body::ConsumerConnection> c = decoded(b, body::ConsumerConnection::decode(r->body));
  if (!c.ok()) return std::move(c).error();
  return std::optional<body::ConsumerConnection>(std::move(*c));
}

Result<std::optional<body::ProducerConnection>> producer_connection(AdminSession& s, const BrokerTarget& b,
                                                                    const std::string& group) {
  Result<remoting::RemotingCommand> r =
      call_broker(s, b.addr,
                  request_with(rc::GET_PRODUCER_CONNECTION_LIST, remoting::GetProducerConnectionListRequestHeader{group}.to_fields()),
                  {code::SUCCESS, code::SYSTEM_ERROR});
  if (!r.ok()) return std::move(r).error();
  if (r->code != code::SUCCESS) {
    if (says_not_exist(*r, group)) return std::optional<body::ProducerConnection>();
    return client::reply_error(fmt::format("broker {}", b.addr), rc::GET_PRODUCER_CONNECTION_LIST, *r);
  }
  Result<body::ProducerConnection> p = decoded(b, body::ProducerConnection::decode(r->body));
  if (!p.ok()) return std::move(p).error();
  return std::optional<body::ProducerConnection>(std::move(*p));
}

Result<body::GroupList> topic_consumed_by(AdminSession& s, const BrokerTarget& b, const std::string& topic) {
  Result<remoting::RemotingCommand> r = call_broker(
      s, b.addr, request_with(rc::QUERY_TOPIC_CONSUME_BY_WHO, remoting::QueryTopicConsumeByWhoRequestHeader{topic}.to_fields()));
  if (!r.ok()) return std::move(r).error();
  return decoded(b, body::GroupList::decode(r->body));
}

Result<std::optional<body::BrokerStatsData>> broker_stats_data(AdminSession& s, const BrokerTarget& b,
                                                               const std::string& stats_name,
                                                               const std::string& stats_key) {
  Result<remoting::RemotingCommand> r =
      call_broker(s, b.addr,
                  request_with(rc::VIEW_BROKER_STATS_DATA,
                               remoting::ViewBrokerStatsDataRequestHeader{stats_name, stats_key}.to_fields()),
                  {code::SUCCESS, code::SYSTEM_ERROR});
  if (!r.ok()) return std::move(r).error();
  if (r->code == code::SYSTEM_ERROR) return std::optional<body::BrokerStatsData>();
  Result<body::BrokerStatsData> d = decoded(b, body::BrokerStatsData::decode(r->body));
  if (!d.ok()) return std::move(d).error();
  return std::optional<body::BrokerStatsData>(std::move(*d));
}

std::string time_text(std::int64_t ms) {
  if (ms <= 0) return "-";
  const std::chrono::sys_time<std::chrono::milliseconds> t{std::chrono::milliseconds(ms)};
  return fmt::format("{:%Y-%m-%dT%H:%M:%S}", t);
}

}  // namespace ferry::cli
