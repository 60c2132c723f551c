#include "client/admin_client.h"

#include <fmt/format.h>

#include <algorithm>

#include "client/client_errors.h"
#include "common/message_decoder.h"
#include "common/msg_id.h"
#include "common/names.h"
#include "remoting/body/topic_list.h"
#include "remoting/header/consumer_offset_header.h"
#include "remoting/header/ha_admin_header.h"
#include "remoting/header/query_message_header.h"
#include "remoting/header/queue_offset_header.h"
#include "remoting/header/route_header.h"
#include "remoting/header/topic_admin_header.h"
#include "remoting/request_code.h"
#include "remoting/response_code.h"

namespace ferry::client {

namespace rc = remoting::request_code;
namespace code = remoting::response_code;
namespace body = remoting::body;

Task<Result<remoting::RemotingCommand>> AdminClient::call_broker(std::string where, std::string addr,
                                                                 remoting::RemotingCommand req) {
  const std::int32_t request_code = req.code;
  Result<remoting::RemotingCommand> r = co_await ci_.rpc().invoke(addr, std::move(req), ci_.config().api_timeout);
  if (!r.ok()) co_return with_context(where, std::move(r).error());
  if (r->code != code::SUCCESS) co_return reply_error(where, request_code, *r);
  co_return r;
}

Task<Status> AdminClient::create_topic(std::string broker_addr, body::TopicConfig config) {
  remoting::CreateTopicRequestHeader h;
  h.topic = config.topic_name;
  h.default_topic = std::string(kAutoCreateTopicKey);
  h.read_queue_nums = config.read_queue_nums;
  h.write_queue_nums = config.write_queue_nums;
  h.perm = config.perm;
  h.topic_filter_type = config.topic_filter_type;
  h.topic_sys_flag = config.topic_sys_flag;
  h.order = config.order;
  remoting::RemotingCommand req = remoting::make_request(rc::UPDATE_AND_CREATE_TOPIC, 0);
  req.ext_fields = h.to_fields();
  Task<Result<remoting::RemotingCommand>> t = call_broker(fmt::format("broker {}", broker_addr), broker_addr, std::move(req));
  Result<remoting::RemotingCommand> r = co_await std::move(t);
  if (!r.ok()) co_return with_context(fmt::format("create topic '{}'", config.topic_name), std::move(r).error());
  co_return Status{};
}

Task<Result<std::vector<std::string>>> AdminClient::cluster_masters(std::string cluster, std::string what) {
  Task<Result<body::ClusterInfo>> ct = cluster_info();
  Result<body::ClusterInfo> info = co_await std::move(ct);
  if (!info.ok()) co_return with_context(what, std::move(info).error());
  std::vector<std::string> masters;
  auto names = info->cluster_addr_table.find(cluster);
  if (names != info->cluster_addr_table.end()) {
    std::vector<std::string> sorted = names->second;
    std::sort(sorted.begin(), sorted.end());
    for (const std::string& name : sorted) {
      auto b = info->broker_addr_table.find(name);
      if (b == info->broker_addr_table.end()) continue;
      auto master = b->second.broker_addrs.find(kMasterId);
      if (master != b->second.broker_addrs.end()) masters.push_back(master->second);
    }
  }
  if (masters.empty()) co_return Error(Errc::not_found, fmt::format("{}: no broker in cluster '{}'", what, cluster));
  co_return masters;
}

Task<Status> AdminClient::create_topic_in_cluster(std::string cluster, body::TopicConfig config) {
  Task<Result<std::vector<std::string>>> mt = cluster_masters(cluster, fmt::format("create topic '{}'", config.topic_name));
  Result<std::vector<std::string>> masters = co_await std::move(mt);
  if (!masters.ok()) co_return std::move(masters).error();
  for (const std::string& addr : *masters) {
    Task<Status> t = create_topic(addr, config);
    Status s = co_await std::move(t);
    if (!s.ok()) co_return s;
  }
  co_return Status{};
}

Task<Status> AdminClient::delete_topic_in_broker(std::string broker_addr, std::string topic) {
  remoting::RemotingCommand req = remoting::make_request(rc::DELETE_TOPIC_IN_BROKER, 0);
  req.ext_fields = remoting::DeleteTopicRequestHeader{topic}.to_fields();
  Task<Result<remoting::RemotingCommand>> t = call_broker(fmt::format("broker {}", broker_addr), broker_addr, std::move(req));
  Result<remoting::RemotingCommand> r = co_await std::move(t);
  if (!r.ok()) co_return with_context(fmt::format("delete topic '{}'", topic), std::move(r).error());
  co_return Status{};
}

Task<Status> AdminClient::delete_topic_in_namesrv(std::string topic, std::string cluster) {
  const std::vector<std::string> addrs = ci_.name_servers().addrs();
  for (const std::string& addr : addrs) {
    remoting::RemotingCommand req = remoting::make_request(rc::DELETE_TOPIC_IN_NAMESRV, 0);
    remoting::DeleteTopicFromNamesrvRequestHeader h{topic, std::nullopt};
    if (!cluster.empty()) h.cluster_name = cluster;
    req.ext_fields = h.to_fields();
    Result<remoting::RemotingCommand> r = co_await ci_.rpc().invoke(addr, std::move(req), ci_.config().api_timeout);
    const std::string where = fmt::format("NameServer {}", addr);
    if (!r.ok()) co_return with_context(fmt::format("delete topic '{}' at {}", topic, where), std::move(r).error());
    if (r->code != code::SUCCESS) co_return reply_error(where, rc::DELETE_TOPIC_IN_NAMESRV, *r);
  }
  co_return Status{};
}

Task<Status> AdminClient::delete_topic_in_cluster(std::string cluster, std::string topic) {
  Task<Result<std::vector<std::string>>> mt = cluster_masters(cluster, fmt::format("delete topic '{}'", topic));
  Result<std::vector<std::string>> masters = co_await std::move(mt);
  if (!masters.ok()) co_return std::move(masters).error();
  for (const std::string& addr : *masters) {
    Task<Status> t = delete_topic_in_broker(addr, topic);
    Status s = co_await std::move(t);
    if (!s.ok()) co_return s;
  }
  Task<Status> nt = delete_topic_in_namesrv(topic, cluster);
  co_return co_await std::move(nt);
}

Task<Result<body::TopicRouteData>> AdminClient::topic_route(std::string topic) {
  Status s = co_await ci_.update_topic_route(topic);
  if (!s.ok()) co_return std::move(s).error();
  std::optional<body::TopicRouteData> r = ci_.route(topic);
  if (!r) co_return Error(Errc::not_found, fmt::format("no route for topic '{}'", topic));
  co_return std::move(*r);
}

Task<Result<std::string>> AdminClient::read_address(MessageQueue mq) {
  std::optional<std::string> addr = ci_.any_address(mq.broker_name);
  if (!addr) co_return Error(Errc::not_found, fmt::format("no address for broker '{}'", mq.broker_name));
  co_return std::move(*addr);
}

Task<Result<QueueOffset>> AdminClient::queue_offset(std::string addr, std::int32_t request_code, MessageQueue mq) {
  remoting::RemotingCommand req = remoting::make_request(request_code, 0);
  if (request_code == rc::GET_MAX_OFFSET) {
    req.ext_fields = remoting::GetMaxOffsetRequestHeader{mq.topic, mq.queue_id}.to_fields();
  } else {
    req.ext_fields = remoting::GetMinOffsetRequestHeader{mq.topic, mq.queue_id}.to_fields();
  }
  const std::string where = broker_where(mq.broker_name, addr);
  Task<Result<remoting::RemotingCommand>> t = call_broker(where, addr, std::move(req));
  Result<remoting::RemotingCommand> r = co_await std::move(t);
  if (!r.ok()) co_return std::move(r).error();
  Result<remoting::GetMaxOffsetResponseHeader> h = remoting::GetMaxOffsetResponseHeader::from_fields(r->ext_fields);
  if (!h.ok()) co_return Error(Errc::corrupt, fmt::format("{}: {}", where, h.error().detail));
  co_return h->offset;
}

Task<Result<std::vector<QueueStatus>>> AdminClient::topic_status(std::string topic) {
  Status s = co_await ci_.update_topic_route(topic);
  if (!s.ok()) co_return std::move(s).error();
  std::vector<QueueStatus> out;
  for (const MessageQueue& mq : ci_.subscribe_queues(topic)) {
    Task<Result<std::string>> at = read_address(mq);
    Result<std::string> addr = co_await std::move(at);
    if (!addr.ok()) co_return std::move(addr).error();
    Task<Result<QueueOffset>> mint = queue_offset(*addr, rc::GET_MIN_OFFSET, mq);
    Result<QueueOffset> min = co_await std::move(mint);
    if (!min.ok()) co_return std::move(min).error();
    Task<Result<QueueOffset>> maxt = queue_offset(*addr, rc::GET_MAX_OFFSET, mq);
    Result<QueueOffset> max = co_await std::move(maxt);
    if (!max.ok()) co_return std::move(max).error();
    out.push_back(QueueStatus{mq, *min, *max});
  }
  co_return out;
}

Task<Result<body::ClusterInfo>> AdminClient::cluster_info() {
  remoting::RemotingCommand req = remoting::make_request(rc::GET_BROKER_CLUSTER_INFO, 0);
  Result<remoting::RemotingCommand> r = co_await ci_.name_servers().invoke(std::move(req));
  if (!r.ok()) co_return with_context("cluster info", std::move(r).error());
  if (r->code != code::SUCCESS) co_return reply_error(fmt::format("NameServer {}", ci_.name_servers().current()), rc::GET_BROKER_CLUSTER_INFO, *r);
  co_return body::ClusterInfo::decode(r->body);
}

Task<Result<body::BrokerLiveTable>> AdminClient::broker_live_table() {
  remoting::RemotingCommand req = remoting::make_request(rc::FERRY_GET_BROKER_LIVE_TABLE, 0);
  Result<remoting::RemotingCommand> r = co_await ci_.name_servers().invoke(std::move(req));
  if (!r.ok()) co_return with_context("broker live table", std::move(r).error());
  if (r->code != code::SUCCESS) {
    co_return reply_error(fmt::format("NameServer {}", ci_.name_servers().current()), rc::FERRY_GET_BROKER_LIVE_TABLE, *r);
  }
  co_return body::BrokerLiveTable::decode(r->body);
}

Task<Result<std::vector<std::string>>> AdminClient::topic_list() {
  remoting::RemotingCommand req = remoting::make_request(rc::GET_ALL_TOPIC_LIST_FROM_NAMESERVER, 0);
  Result<remoting::RemotingCommand> r = co_await ci_.name_servers().invoke(std::move(req));
  if (!r.ok()) co_return with_context("topic list", std::move(r).error());
  if (r->code != code::SUCCESS) {
    co_return reply_error(fmt::format("NameServer {}", ci_.name_servers().current()), rc::GET_ALL_TOPIC_LIST_FROM_NAMESERVER, *r);
  }
  Result<body::TopicList> list = body::TopicList::decode(r->body);
  if (!list.ok()) co_return std::move(list).error();
  std::vector<std::string> topics = std::move(list->topic_list);
  std::sort(topics.begin(), topics.end());
  co_return topics;
}

Task<Result<MessageExt>> AdminClient::view_message(std::string offset_msg_id) {
  Result<OffsetMsgId> id = decode_offset_msg_id(offset_msg_id);
  if (!id.ok()) co_return with_context(fmt::format("view message '{}'", offset_msg_id), std::move(id).error());
  const std::string addr = id->store_host.to_string();
  remoting::RemotingCommand req = remoting::make_request(rc::VIEW_MESSAGE_BY_ID, 0);
  req.ext_fields = remoting::ViewMessageRequestHeader{id->offset}.to_fields();
  Task<Result<remoting::RemotingCommand>> t = call_broker(fmt::format("broker {}", addr), addr, std::move(req));
  Result<remoting::RemotingCommand> r = co_await std::move(t);
  if (!r.ok()) co_return with_context(fmt::format("view message '{}'", offset_msg_id), std::move(r).error());
  Result<std::vector<MessageExt>> msgs = decode_messages(Bytes(r->body.data(), r->body.size()), MessagesDecodeOptions{});
  if (!msgs.ok()) co_return with_context(fmt::format("view message '{}'", offset_msg_id), std::move(msgs).error());
  if (msgs->size() != 1) {
    co_return Error(Errc::corrupt, fmt::format("view message '{}': the broker sent {} records", offset_msg_id, msgs->size()));
  }
  co_return std::move(msgs->front());
}

Task<Result<std::vector<MessageExt>>> AdminClient::query_message(std::string topic, std::string key, std::int32_t max_num,
                                                                 WallMs begin_ms, WallMs end_ms, bool unique_key) {
  Status s = co_await ci_.update_topic_route(topic);
  if (!s.ok()) co_return std::move(s).error();
  std::optional<body::TopicRouteData> route = ci_.route(topic);
  std::vector<MessageExt> out;
  if (!route) co_return out;
  for (const auto& b : route->broker_datas) {
    if (b.broker_addrs.empty()) continue;
    const std::string addr = b.broker_addrs.begin()->second;  // the master when present
    remoting::QueryMessageRequestHeader h;
    h.topic = topic;
    h.key = key;
    h.max_num = max_num;
    h.begin_timestamp = begin_ms;
    h.end_timestamp = end_ms;
    h.unique_key_query = unique_key;
    remoting::RemotingCommand req = remoting::make_request(rc::QUERY_MESSAGE, 0);
    req.ext_fields = h.to_fields();
    Result<remoting::RemotingCommand> r = co_await ci_.rpc().invoke(addr, std::move(req), ci_.config().api_timeout);
    if (!r.ok()) co_return with_context(fmt::format("query message by key '{}' at {}", key, broker_where(b.broker_name, addr)), std::move(r).error());
    if (r->code == code::QUERY_NOT_FOUND) continue;
    if (r->code != code::SUCCESS) co_return reply_error(broker_where(b.broker_name, addr), rc::QUERY_MESSAGE, *r);
    Result<std::vector<MessageExt>> msgs = decode_messages(Bytes(r->body.data(), r->body.size()), MessagesDecodeOptions{});
    if (!msgs.ok()) co_return with_context(fmt::format("query reply from {}", broker_where(b.broker_name, addr)), std::move(msgs).error());
    for (MessageExt& m : *msgs) {
      bool match = false;
      if (unique_key) {
        match = m.uniq_key() == std::optional<std::string_view>(key);
      } else {
        for (std::string_view k : m.keys()) match = match || k == key;
      }
      if (match && m.topic == topic && out.size() < static_cast<std::size_t>(std::max(max_num, 0))) out.push_back(std::move(m));
    }
  }
  if (out.empty()) co_return Error(Errc::not_found, fmt::format("no message of topic '{}' with key '{}'", topic, key));
  co_return out;
}

Task<Result<std::vector<QueueProgress>>> AdminClient::consumer_progress(std::string group, std::string topic) {
  Status s = co_await ci_.update_topic_route(topic);
  if (!s.ok()) co_return std::move(s).error();
  std::vector<QueueProgress> out;
  for (const MessageQueue& mq : ci_.subscribe_queues(topic)) {
    Task<Result<std::string>> at = read_address(mq);
    Result<std::string> addr = co_await std::move(at);
    if (!addr.ok()) co_return std::move(addr).error();
    Task<Result<QueueOffset>> maxt = queue_offset(*addr, rc::GET_MAX_OFFSET, mq);
    Result<QueueOffset> max = co_await std::move(maxt);
    if (!max.ok()) co_return std::move(max).error();
    remoting::RemotingCommand req = remoting::make_request(rc::QUERY_CONSUMER_OFFSET, 0);
    req.ext_fields = remoting::QueryConsumerOffsetRequestHeader{group, mq.topic, mq.queue_id}.to_fields();
    Result<remoting::RemotingCommand> r = co_await ci_.rpc().invoke(*addr, std::move(req), ci_.config().api_timeout);
    const std::string where = broker_where(mq.broker_name, *addr);
    if (!r.ok()) co_return with_context(where, std::move(r).error());
    QueueOffset committed(-1);
    if (r->code == code::SUCCESS) {
      Result<remoting::QueryConsumerOffsetResponseHeader> h = remoting::QueryConsumerOffsetResponseHeader::from_fields(r->ext_fields);
      if (!h.ok()) co_return Error(Errc::corrupt, fmt::format("{}: {}", where, h.error().detail));
      committed = h->offset;
    } else if (r->code != code::QUERY_NOT_FOUND) {
      co_return reply_error(where, rc::QUERY_CONSUMER_OFFSET, *r);
    }
    out.push_back(QueueProgress{mq, *max, committed});
  }
  co_return out;
}

Task<Result<body::HaRuntimeInfo>> AdminClient::ha_status(std::string broker_addr) {
  const std::string where = fmt::format("broker {}", broker_addr);
  Task<Result<remoting::RemotingCommand>> t = call_broker(where, broker_addr, remoting::make_request(rc::GET_BROKER_HA_STATUS, 0));
  Result<remoting::RemotingCommand> r = co_await std::move(t);
  if (!r.ok()) co_return std::move(r).error();
  Result<body::HaRuntimeInfo> info = body::HaRuntimeInfo::decode(r->body);
  if (!info.ok()) co_return with_context(where, std::move(info).error());
  co_return info;
}

Task<Result<remoting::GetMetaDataResponseHeader>> AdminClient::controller_metadata(std::string controller_addr) {
  const std::string where = fmt::format("controller {}", controller_addr);
  Task<Result<remoting::RemotingCommand>> t =
      call_broker(where, controller_addr, remoting::make_request(rc::CONTROLLER_GET_METADATA_INFO, 0));
  Result<remoting::RemotingCommand> r = co_await std::move(t);
  if (!r.ok()) co_return std::move(r).error();
  auto h = remoting::GetMetaDataResponseHeader::from_fields(r->ext_fields);
  if (!h.ok()) co_return with_context(where, std::move(h).error());
  co_return h;
}

Task<Result<body::BrokerReplicasInfo>> AdminClient::local_sync_state_data(std::string controller_addr,
                                                                          std::vector<std::string> groups) {
  const std::string where = fmt::format("controller {}", controller_addr);
  remoting::RemotingCommand req = remoting::make_request(rc::FERRY_GET_LOCAL_SYNC_STATE_DATA, 0);
  if (!groups.empty()) req.body = body::write_name_list(groups);
  Task<Result<remoting::RemotingCommand>> t = call_broker(where, controller_addr, std::move(req));
  Result<remoting::RemotingCommand> r = co_await std::move(t);
  if (!r.ok()) co_return std::move(r).error();
  Result<body::BrokerReplicasInfo> info = body::BrokerReplicasInfo::decode(r->body);
  if (!info.ok()) co_return with_context(where, std::move(info).error());
  co_return info;
}

Task<Result<body::EpochAcks>> AdminClient::epoch_acks(std::string broker_addr) {
  const std::string where = fmt::format("broker {}", broker_addr);
  Task<Result<remoting::RemotingCommand>> t = call_broker(where, broker_addr, remoting::make_request(rc::FERRY_GET_EPOCH_ACKS, 0));
  Result<remoting::RemotingCommand> r = co_await std::move(t);
  if (!r.ok()) co_return std::move(r).error();
  Result<body::EpochAcks> acks = body::EpochAcks::decode(r->body);
  if (!acks.ok()) co_return with_context(where, std::move(acks).error());
  co_return acks;
}

Task<Status> AdminClient::promote_slave(std::string broker_addr, std::string role) {
  remoting::RemotingCommand req = remoting::make_request(rc::FERRY_PROMOTE_SLAVE, 0);
  req.ext_fields = remoting::PromoteSlaveRequestHeader{role}.to_fields();
  Task<Result<remoting::RemotingCommand>> t = call_broker(fmt::format("broker {}", broker_addr), broker_addr, std::move(req));
  Result<remoting::RemotingCommand> r = co_await std::move(t);
  if (!r.ok()) co_return with_context(fmt::format("promote to {}", role), std::move(r).error());
  co_return Status{};
}

}  // namespace ferry::client
