// REGISTER_BROKER (103) and UNREGISTER_BROKER (104).
#include <fmt/format.h>

#include "common/crc.h"
#include "namesrv/request_processor.h"
#include "remoting/body/register_broker_body.h"
#include "remoting/header/broker_registration_header.h"
#include "remoting/response_code.h"

namespace ferry::namesrv {

using remoting::RemotingCommand;

namespace {

// An empty required name is as bad as a missing one: the tables would key on "".
std::optional<std::string> empty_name(const char* header, const std::string& broker_name,
                                      const std::string& broker_addr, const std::string& cluster_name) {
  if (broker_name.empty()) return fmt::format("{}: field brokerName is empty", header);
  if (broker_addr.empty()) return fmt::format("{}: field brokerAddr is empty", header);
  if (cluster_name.empty()) return fmt::format("{}: field clusterName is empty", header);
  return std::nullopt;
}

}  // namespace

RemotingCommand RequestProcessor::register_broker(ChannelId channel, const RemotingCommand& request) {
  auto header = remoting::RegisterBrokerRequestHeader::from_fields(request.ext_fields);
  if (!header) return error_reply(request, header.error().detail);
  if (auto bad = empty_name("RegisterBrokerRequestHeader", header->broker_name, header->broker_addr,
                            header->cluster_name)) {
    return error_reply(request, *bad);
  }
  // As RocketMQ: bodyCrc32 0 means unchecked.
  if (header->body_crc32 != 0) {
    const std::int32_t crc = body_crc(Bytes(request.body.data(), request.body.size()));
    if (crc != header->body_crc32) {
      if (auto held = register_log_.admit(rt_.now(), 1)) {
        rt_.log().warn("REGISTER_BROKER from {} ({}): body crc32 {} does not match bodyCrc32 {}{}",
                       header->broker_addr, header->broker_name, crc, header->body_crc32, held_back_note(*held));
      }
      return error_reply(request, "crc32 not match");
    }
  }
  if (header->compressed) {
    return error_reply(request, "RegisterBrokerRequestHeader: compressed=true is not supported; send the "
                                "registration body uncompressed");
  }
  remoting::body::RegisterBrokerBody body;  // no body: no topics, dataVersion {0, 0}
  if (!request.body.empty()) {
    auto decoded = remoting::body::RegisterBrokerBody::decode(request.body);
    if (!decoded) return error_reply(request, "Failed to decode RegisterBrokerBody: " + decoded.error().detail);
    body = std::move(*decoded);
  }

  BrokerRegistration reg;
  reg.cluster_name = std::move(header->cluster_name);
  reg.broker_name = std::move(header->broker_name);
  reg.broker_addr = std::move(header->broker_addr);
  reg.broker_id = header->broker_id;
  reg.ha_server_addr = std::move(header->ha_server_addr);
  reg.topic_config = std::move(body.topic_config_serialize_wrapper);
  reg.filter_server_list = std::move(body.filter_server_list);
  reg.channel = channel;
  const std::string who = fmt::format("{} ({}, id {})", reg.broker_addr, reg.broker_name, reg.broker_id);
  // buggify: the registration is applied twice (a broker retrying a registration whose reply
  // was lost); the second one finds the same data version.
  if (FERRY_BUGGIFY(rt_)) (void)routes_.register_broker(reg, rt_.now());
  auto outcome = routes_.register_broker(std::move(reg), rt_.now());
  if (!outcome) {
    if (auto held = register_log_.admit(rt_.now(), 2)) {
      rt_.log().warn("REGISTER_BROKER from {} refused: {}{}", who, outcome.error().detail, held_back_note(*held));
    }
    return error_reply(request, outcome.error().detail);
  }
  if (outcome->ignored) {
    if (auto held = register_log_.admit(rt_.now(), 3)) {
      rt_.log().warn("REGISTER_BROKER from {} ignored: {}{}", who, *outcome->ignored, held_back_note(*held));
    }
  } else {
    rt_.log().debug("REGISTER_BROKER from {}: routes {}", who, outcome->routes_updated ? "updated" : "unchanged");
  }

  RemotingCommand reply = remoting::make_response(request, remoting::response_code::SUCCESS);
  remoting::RegisterBrokerResponseHeader reply_header;
  reply_header.ha_server_addr = std::move(outcome->ha_server_addr);
  reply_header.master_addr = std::move(outcome->master_addr);
  reply.ext_fields = reply_header.to_fields();
  // As RocketMQ: the ordered-topic configs ride along for the broker.
  if (auto order_conf = kv_.encode_namespace(kOrderTopicConfigNamespace)) reply.body = std::move(*order_conf);
  return reply;
}

RemotingCommand RequestProcessor::unregister_broker(const RemotingCommand& request) {
  auto header = remoting::UnregisterBrokerRequestHeader::from_fields(request.ext_fields);
  if (!header) return error_reply(request, header.error().detail);
  if (auto bad = empty_name("UnregisterBrokerRequestHeader", header->broker_name, header->broker_addr,
                            header->cluster_name)) {
    return error_reply(request, *bad);
  }
  routes_.unregister_broker(header->cluster_name, header->broker_addr, header->broker_name, header->broker_id);
  return remoting::make_response(request, remoting::response_code::SUCCESS);
}

}  // namespace ferry::namesrv
