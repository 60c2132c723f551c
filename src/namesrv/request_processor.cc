// Dispatch, and the route and topic queries. Broker registration is in broker_requests.cc, the
// KV requests in kv_requests.cc.
#include "namesrv/request_processor.h"

#include <array>
#include <utility>

#include "namesrv/namesrv_codes.h"
#include "remoting/header/route_header.h"
#include "remoting/header/write_perm_header.h"
#include "remoting/request_code.h"
#include "remoting/response_code.h"

namespace ferry::namesrv {

namespace rc = remoting::request_code;
using remoting::RemotingCommand;
using remoting::make_response;
namespace response_code = remoting::response_code;

namespace {

constexpr std::array<std::int32_t, 16> kCodes = {
    rc::PUT_KV_CONFIG,
    rc::GET_KV_CONFIG,
    rc::DELETE_KV_CONFIG,
    rc::REGISTER_BROKER,
    rc::UNREGISTER_BROKER,
    rc::GET_ROUTEINFO_BY_TOPIC,
    rc::GET_BROKER_CLUSTER_INFO,
    rc::GET_ALL_TOPIC_LIST_FROM_NAMESERVER,
    namesrv_code::DELETE_TOPIC_IN_NAMESRV,
    namesrv_code::GET_KVLIST_BY_NAMESPACE,
    namesrv_code::GET_TOPICS_BY_CLUSTER,
    rc::WIPE_WRITE_PERM_OF_BROKER,
    rc::ADD_WRITE_PERM_OF_BROKER,
    rc::UPDATE_NAMESRV_CONFIG,
    rc::GET_NAMESRV_CONFIG,
    rc::FERRY_GET_BROKER_LIVE_TABLE,
};

// RocketMQ's remark for an unknown topic (FAQUrl.suggestTodo(APPLY_TOPIC_URL) in 4.9).
constexpr const char* kFaqSuggestion = "\nSee http://rocketmq.apache.org/docs/faq/ for further details.";

RemotingCommand success(const RemotingCommand& request, std::vector<std::uint8_t> body = {}) {
  RemotingCommand reply = make_response(request, response_code::SUCCESS);
  reply.body = std::move(body);
  return reply;
}

}  // namespace

RemotingCommand error_reply(const RemotingCommand& request, std::string what) {
  return make_response(request, response_code::SYSTEM_ERROR, std::move(what));
}

RequestProcessor::RequestProcessor(Runtime& rt, NameServerConfig& config, RouteTable& routes, KvConfig& kv)
    : rt_(rt), config_(config), routes_(routes), kv_(kv) {}

std::span<const std::int32_t> RequestProcessor::codes() { return kCodes; }

RemotingCommand RequestProcessor::process(ChannelId channel, const RemotingCommand& request) {
  switch (request.code) {
    case rc::PUT_KV_CONFIG: return put_kv(request);
    case rc::GET_KV_CONFIG: return get_kv(request);
    case rc::DELETE_KV_CONFIG: return delete_kv(request);
    case rc::REGISTER_BROKER: return register_broker(channel, request);
    case rc::UNREGISTER_BROKER: return unregister_broker(request);
    case rc::GET_ROUTEINFO_BY_TOPIC: return route_by_topic(request);
    case rc::GET_BROKER_CLUSTER_INFO: return cluster_info(request);
    case rc::GET_ALL_TOPIC_LIST_FROM_NAMESERVER: return all_topics(request);
    case namesrv_code::DELETE_TOPIC_IN_NAMESRV: return delete_topic(request);
    case namesrv_code::GET_KVLIST_BY_NAMESPACE: return kv_list(request);
    case namesrv_code::GET_TOPICS_BY_CLUSTER: return topics_by_cluster(request);
    case rc::WIPE_WRITE_PERM_OF_BROKER:
    case rc::ADD_WRITE_PERM_OF_BROKER: return write_perm(request);
    case rc::UPDATE_NAMESRV_CONFIG: return update_config(request);
    case rc::GET_NAMESRV_CONFIG: return get_config(request);
    case rc::FERRY_GET_BROKER_LIVE_TABLE: return success(request, routes_.live_table(rt_.now()).encode());
    default: break;
  }
  FERRY_UNREACHABLE("the name server's processor got request code {}, which it does not serve", request.code);
}

RemotingCommand RequestProcessor::route_by_topic(const RemotingCommand& request) {
  auto header = remoting::GetRouteInfoRequestHeader::from_fields(request.ext_fields);
  if (!header) return error_reply(request, header.error().detail);
  std::optional<remoting::body::TopicRouteData> route = routes_.route_of(header->topic);
  if (!route) {
    return make_response(request, response_code::TOPIC_NOT_EXIST,
                         "No topic route info in name server for the topic: " + header->topic + kFaqSuggestion);
  }
  if (config_.order_message_enable) route->order_topic_conf = kv_.get(kOrderTopicConfigNamespace, header->topic);
  return success(request, route->encode());
}

RemotingCommand RequestProcessor::cluster_info(const RemotingCommand& request) {
  return success(request, routes_.cluster_info().encode());
}

RemotingCommand RequestProcessor::all_topics(const RemotingCommand& request) {
  return success(request, routes_.all_topics().encode());
}

RemotingCommand RequestProcessor::write_perm(const RemotingCommand& request) {
  auto header = remoting::WritePermOfBrokerRequestHeader::from_fields(request.ext_fields);
  if (!header) return error_reply(request, header.error().detail);
  const bool wipe = request.code == rc::WIPE_WRITE_PERM_OF_BROKER;
  const std::int32_t count =
      routes_.operate_write_perm(header->broker_name, wipe ? RouteTable::WritePerm::wipe : RouteTable::WritePerm::add);
  rt_.log().info("{} write perm of broker[{}]: {} topics", wipe ? "wipe" : "add", header->broker_name, count);
  RemotingCommand reply = success(request);
  reply.ext_fields = wipe ? remoting::WipeWritePermOfBrokerResponseHeader{count}.to_fields()
                          : remoting::AddWritePermOfBrokerResponseHeader{count}.to_fields();
  return reply;
}

RemotingCommand RequestProcessor::delete_topic(const RemotingCommand& request) {
  auto header = remoting::DeleteTopicFromNamesrvRequestHeader::from_fields(request.ext_fields);
  if (!header) return error_reply(request, header.error().detail);
  const std::string& topic = header->topic;
  std::optional<std::string> cluster = header->cluster_name;
  if (cluster && cluster->empty()) cluster.reset();
  const bool removed = routes_.delete_topic(topic, cluster);
  rt_.log().info("DELETE_TOPIC_IN_NAMESRV {}{}: {}", topic, cluster ? " in cluster " + *cluster : "",
                 removed ? "deleted" : "nothing to delete");
  return success(request);
}

RemotingCommand RequestProcessor::topics_by_cluster(const RemotingCommand& request) {
  auto header = remoting::GetTopicsByClusterRequestHeader::from_fields(request.ext_fields);
  if (!header) return error_reply(request, header.error().detail);
  return success(request, routes_.topics_of_cluster(header->cluster).encode());
}

}  // namespace ferry::namesrv
