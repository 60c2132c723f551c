#include "tools/bench/hostile_setup.h"

#include <fmt/format.h>

#include <optional>

#include "common/msg_id.h"
#include "remoting/body/topic_route_data.h"
#include "remoting/header/queue_offset_header.h"
#include "remoting/header/send_message_header.h"
#include "remoting/request_code.h"
#include "remoting/response_code.h"
#include "tests/support/requests.h"

namespace ferry::bench {

namespace rc = remoting::request_code;
namespace rsp = remoting::response_code;
using remoting::RemotingCommand;

namespace {

Error refused(const char* what, const RemotingCommand& reply) {
  return Error(Errc::invalid_argument,
               fmt::format("{}: reply {} {}", what, testing::code_text(reply.code), reply.remark.value_or("")));
}

// call() that must be answered SUCCESS. Errors: the call's, or refused(`what`).
Result<RemotingCommand> call_ok(WireConn& conn, RemotingCommand request, const char* what) {
  auto reply = conn.call(std::move(request), kSetupCallTimeout);
  if (!reply.ok()) return std::move(reply).error();
  if (reply->command.code != rsp::SUCCESS) return refused(what, reply->command);
  return std::move(reply->command);
}

}  // namespace

RemotingCommand hostile_send(const std::string& topic, const std::string& body, const std::string& properties) {
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  const testing::Msg m{
      .topic = topic,
      .body = body,
      .producer_group = kHostileGroup,
      .default_topic_queue_nums = 1,
      .born_timestamp_ms = std::chrono::duration_cast<std::chrono::milliseconds>(now).count(),
      .properties_text = properties,
  };
  return testing::send_request(m, rc::SEND_MESSAGE);
}

RemotingCommand hostile_pull(const std::string& topic, std::int64_t offset, std::int32_t max_msg_nums,
                             const std::string& tags) {
  return testing::pull_request(testing::Pull{.group = kHostileGroup,
                                             .topic = topic,
                                             .offset = offset,
                                             .max = max_msg_nums,
                                             .subscription = tags,
                                             .suspend_ms = 0});
}

Status create_topic(WireConn& conn, const std::string& topic) {
  auto reply = call_ok(conn, testing::create_topic_request(testing::topic_header(topic, 1)), "create topic");
  if (!reply.ok()) return std::move(reply).error();
  return {};
}

Result<std::int64_t> max_offset(WireConn& conn, const std::string& topic) {
  auto reply = call_ok(conn, testing::max_offset_request(topic, 0), "max offset");
  if (!reply.ok()) return std::move(reply).error();
  auto header = remoting::GetMaxOffsetResponseHeader::from_fields(reply->ext_fields);
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
      auto opaque = conn.send(hostile_send(topic, body, properties), deadline_of());
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
  auto reply = call_ok(conn, testing::route_request(topic), "route");
  if (!reply.ok()) return std::move(reply).error();
  auto route = remoting::body::TopicRouteData::decode(Bytes(reply->body.data(), reply->body.size()));
  if (!route.ok()) return std::move(route).error();
  for (const auto& b : route->broker_datas) {
    auto master = b.broker_addrs.find(0);
    if (master != b.broker_addrs.end()) return master->second;
  }
  return Error(Errc::not_found, fmt::format("no master broker serves {} (NameServer {})", topic, namesrv));
}

}  // namespace ferry::bench
