#include "tools/bench/hostile_requests.h"

#include <fmt/format.h>

#include <deque>

#include "common/msg_id.h"
#include "remoting/body/topic_route_data.h"
#include "remoting/header/pull_message_header.h"
#include "remoting/header/query_message_header.h"
#include "remoting/header/queue_offset_header.h"
#include "remoting/header/route_header.h"
#include "remoting/header/send_message_header.h"
#include "remoting/header/topic_admin_header.h"
#include "remoting/request_code.h"
#include "remoting/response_code.h"

namespace ferry::bench {

namespace rc = remoting::request_code;
namespace rsp = remoting::response_code;
using remoting::RemotingCommand;

std::string code_text(std::int32_t code) { return fmt::format("{} {}", code, rsp::name(code)); }

namespace {

Error refused(const char* what, const RemotingCommand& reply) {
  return Error(Errc::invalid_argument,
               fmt::format("{}: reply {} {}", what, code_text(reply.code), reply.remark.value_or("")));
}

}  // namespace

RemotingCommand send_request(const std::string& topic, const std::string& body, const std::string& properties) {
  remoting::SendMessageRequestHeader h;
  h.producer_group = "mqbench-hostile";
  h.topic = topic;
  h.default_topic = "TBW102";
  h.default_topic_queue_nums = 1;
  h.queue_id = QueueId(0);
  h.born_timestamp = std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
  if (!properties.empty()) h.properties = properties;
  RemotingCommand r = remoting::make_request(rc::SEND_MESSAGE, 0);
  r.ext_fields = h.to_fields();
  r.body.assign(body.begin(), body.end());
  return r;
}

RemotingCommand pull_request(const std::string& topic, std::int64_t offset, std::int32_t max_msg_nums,
                             const std::string& tags) {
  remoting::PullMessageRequestHeader h;
  h.consumer_group = "mqbench-hostile";
  h.topic = topic;
  h.queue_id = QueueId(0);
  h.queue_offset = QueueOffset(offset);
  h.max_msg_nums = max_msg_nums;
  h.sys_flag = 4;  // the subscription travels with the request; no suspend, no commit
  h.subscription = tags;
  h.expression_type = std::string("TAG");
  RemotingCommand r = remoting::make_request(rc::PULL_MESSAGE, 0);
  r.ext_fields = h.to_fields();
  return r;
}

RemotingCommand view_request(std::int64_t physical_offset) {
  remoting::ViewMessageRequestHeader h;
  h.offset = PhysicalOffset(physical_offset);
  RemotingCommand r = remoting::make_request(rc::VIEW_MESSAGE_BY_ID, 0);
  r.ext_fields = h.to_fields();
  return r;
}

Status create_topic(WireConn& conn, const std::string& topic) {
  remoting::CreateTopicRequestHeader h;
  h.topic = topic;
  h.default_topic = "TBW102";
  h.read_queue_nums = 1;
  h.write_queue_nums = 1;
  h.perm = 6;
  h.topic_filter_type = "SINGLE_TAG";
  RemotingCommand r = remoting::make_request(rc::UPDATE_AND_CREATE_TOPIC, 0);
  r.ext_fields = h.to_fields();
  auto reply = conn.call(std::move(r), kSetupCallTimeout);
  if (!reply.ok()) return std::move(reply).error();
  if (reply->command.code != rsp::SUCCESS) return refused("create topic", reply->command);
  return {};
}

Result<std::int64_t> max_offset(WireConn& conn, const std::string& topic) {
  remoting::GetMaxOffsetRequestHeader h;
  h.topic = topic;
  h.queue_id = QueueId(0);
  RemotingCommand r = remoting::make_request(rc::GET_MAX_OFFSET, 0);
  r.ext_fields = h.to_fields();
  auto reply = conn.call(std::move(r), kSetupCallTimeout);
  if (!reply.ok()) return std::move(reply).error();
  if (reply->command.code != rsp::SUCCESS) return refused("max offset", reply->command);
  auto header = remoting::GetMaxOffsetResponseHeader::from_fields(reply->command.ext_fields);
  if (!header.ok()) return std::move(header).error();
  return header->offset.value();
}

Result<std::int64_t> fill_queue(WireConn& conn, const std::string& topic, std::int64_t count, const std::string& body,
                                const std::string& properties, int window) {
  std::optional<std::int64_t> first_offset;
  std::int64_t sent = 0;
  std::int64_t answered = 0;
  const auto deadline_of = [] { return WireClock::now() + kSetupCallTimeout; };
  while (answered < count) {
    while (sent < count && sent - answered < window) {
      auto opaque = conn.send(send_request(topic, body, properties), deadline_of());
      if (!opaque.ok()) return std::move(opaque).error();
      ++sent;
    }
    auto reply = conn.read(deadline_of());
    if (!reply.ok()) return std::move(reply).error();
    ++answered;
    if (reply->command.code != rsp::SUCCESS) return refused("send", reply->command);
    if (!first_offset) {
      auto header = remoting::SendMessageResponseHeader::from_fields(reply->command.ext_fields);
      if (!header.ok()) return std::move(header).error();
      auto id = decode_offset_msg_id(header->msg_id);
      if (!id.ok()) return std::move(id).error();
      first_offset = id->offset.value();
    }
  }
  return first_offset.value_or(-1);
}

Result<std::string> broker_of(const std::string& namesrv, const std::string& topic) {
  WireConn conn;
  FERRY_TRY(conn.connect(namesrv, kSetupCallTimeout));
  remoting::GetRouteInfoRequestHeader h;
  h.topic = topic;
  RemotingCommand r = remoting::make_request(rc::GET_ROUTEINFO_BY_TOPIC, 0);
  r.ext_fields = h.to_fields();
  auto reply = conn.call(std::move(r), kSetupCallTimeout);
  if (!reply.ok()) return std::move(reply).error();
  if (reply->command.code != rsp::SUCCESS) return refused("route", reply->command);
  auto route = remoting::body::TopicRouteData::decode(Bytes(reply->command.body.data(), reply->command.body.size()));
  if (!route.ok()) return std::move(route).error();
  for (const auto& b : route->broker_datas) {
    auto master = b.broker_addrs.find(0);
    if (master != b.broker_addrs.end()) return master->second;
  }
  return Error(Errc::not_found, fmt::format("no master broker serves {} (NameServer {})", topic, namesrv));
}

}  // namespace ferry::bench
