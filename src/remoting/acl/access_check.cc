#include "remoting/acl/access_check.h"

#include <fmt/format.h>

#include "common/names.h"
#include "remoting/acl/signature.h"
#include "remoting/body/batch_ack_body.h"
#include "remoting/body/heartbeat_data.h"
#include "remoting/request_code.h"

namespace ferry::remoting::acl {

namespace rc = request_code;

namespace {

void need(NeededAccess& n, const std::string* resource, PermBits perm) {
  if (resource == nullptr) return;
  n.resources[*resource] = perm;
}

void need_group(NeededAccess& n, const std::string* group) {
  if (group == nullptr) return;
  n.resources[retry_topic(*group)] = kPermSub;
}

void need_send(NeededAccess& n, const ExtFields& f, std::string_view topic_key, std::string_view group_key) {
  const std::string* topic = f.find(topic_key);
  if (topic != nullptr && topic->starts_with(kRetryTopicPrefix)) {
    need_group(n, f.find(group_key));
  } else {
    need(n, topic, kPermPub);
  }
}

std::string describe(std::string_view resource) {
  if (resource.starts_with(kRetryTopicPrefix)) return fmt::format("group:{}", resource.substr(kRetryTopicPrefix.size()));
  return fmt::format("topic:{}", resource);
}

// A send to RMQ_SYS_TRACE_TOPIC (PUB only) passes: message traces.
bool sends_trace(const NeededAccess& n) {
  auto trace = n.resources.find(std::string(kTraceTopic));
  return trace != n.resources.end() && trace->second == kPermPub;
}

std::string refuse(std::string_view what) { return fmt::format("{}{}", kRefusalPrefix, what); }

}  // namespace

AclPolicy broker_policy() {
  return AclPolicy{{rc::UPDATE_AND_CREATE_TOPIC, rc::UPDATE_BROKER_CONFIG, rc::UPDATE_AND_CREATE_SUBSCRIPTIONGROUP,
                    rc::DELETE_SUBSCRIPTIONGROUP, rc::DELETE_TOPIC_IN_BROKER, rc::FERRY_PROMOTE_SLAVE},
                   true};
}

AclPolicy namesrv_policy() {
  return AclPolicy{{rc::PUT_KV_CONFIG, rc::DELETE_KV_CONFIG, rc::REGISTER_BROKER, rc::UNREGISTER_BROKER,
                    rc::WIPE_WRITE_PERM_OF_BROKER, rc::DELETE_TOPIC_IN_NAMESRV, rc::ADD_WRITE_PERM_OF_BROKER, rc::UPDATE_NAMESRV_CONFIG},
                   false};
}

Result<NeededAccess> needed_access(const RemotingCommand& request) {
  NeededAccess n;
  const ExtFields& f = request.ext_fields;
  switch (request.code) {
    case rc::SEND_MESSAGE: need_send(n, f, "topic", "producerGroup"); break;
    case rc::SEND_MESSAGE_V2:
    case rc::SEND_BATCH_MESSAGE: need_send(n, f, "b", "a"); break;
    case rc::CONSUMER_SEND_MSG_BACK: need_group(n, f.find("group")); break;
    case rc::PULL_MESSAGE:
      need(n, f.find("topic"), kPermSub);
      need_group(n, f.find("consumerGroup"));
      break;
    case rc::QUERY_MESSAGE: need(n, f.find("topic"), kPermSub); break;
    case rc::HEART_BEAT: {
      auto hb = body::HeartbeatData::decode(Bytes(request.body.data(), request.body.size()));
      if (!hb) return std::move(hb).error();
      for (const body::ConsumerData& c : hb->consumer_data_set) {
        n.resources[retry_topic(c.group_name)] = kPermSub;
        for (const body::SubscriptionData& s : c.subscription_data_set) n.resources[s.topic] = kPermSub;
      }
      break;
    }
    case rc::UNREGISTER_CLIENT:
    case rc::GET_CONSUMER_LIST_BY_GROUP: need_group(n, f.find("consumerGroup")); break;
    case rc::UPDATE_CONSUMER_OFFSET:
      need_group(n, f.find("consumerGroup"));
      need(n, f.find("topic"), kPermSub);
      break;
    // POP (RocketMQ 5's PlainAccessResource): the topic and the group, SUB. An ack of a retried
    // message names the group's POP retry topic ("%RETRY%{group}_{topic}"): the group's right.
    case rc::POP_MESSAGE:
    case rc::ACK_MESSAGE:
    case rc::CHANGE_MESSAGE_INVISIBLETIME: {
      const std::string* topic = f.find("topic");
      if (topic != nullptr && !topic->starts_with(kRetryTopicPrefix)) need(n, topic, kPermSub);
      need_group(n, f.find("consumerGroup"));
      break;
    }
    case rc::BATCH_ACK_MESSAGE: {
      auto body = body::BatchAckMessageRequestBody::decode(Bytes(request.body.data(), request.body.size()));
      if (!body) return std::move(body).error();
      for (const body::BatchAck& a : body->acks) {
        n.resources[a.topic] = kPermSub;
        n.resources[retry_topic(a.consumer_group)] = kPermSub;
      }
      break;
    }
    default: break;
  }
  return n;
}

std::optional<std::string> check_access(const AclConfig& config, const AclPolicy& policy, std::string_view remote_host,
                                        const RemotingCommand& request) {
  const bool admin_code = policy.admin_codes.contains(request.code);
  if (!policy.guard_all && !admin_code) return std::nullopt;
  for (const AddressPattern& p : config.global_white_remote_addresses) {
    if (p.matches(remote_host)) return std::nullopt;
  }
  const std::string* key = request.ext_fields.find(kAccessKeyField);
  if (key == nullptr) {
    return refuse(fmt::format("No accessKey is configured (request code {} from {})", request.code, remote_host));
  }
  auto account = config.accounts.find(*key);
  if (account == config.accounts.end()) return refuse(fmt::format("No acl config for accessKey={}", *key));
  const Account& owned = account->second;
  if (owned.white_remote_address.matches(remote_host)) return std::nullopt;
  const std::string* signature = request.ext_fields.find(kSignatureField);
  if (signature == nullptr || !signature_matches(request, *signature, owned.secret_key)) {
    return refuse(fmt::format("Check signature failed for accessKey={}", *key));
  }
  auto needed = needed_access(request);
  if (!needed) return refuse(fmt::format("request body does not decode: {}", needed.error().to_string()));
  if (sends_trace(*needed)) return std::nullopt;
  if (admin_code && !owned.admin) {
    return refuse(fmt::format("Need admin permission for request code={}, but accessKey={} is not", request.code, *key));
  }
  return check_resources(owned, *key, *needed);
}

std::optional<std::string> check_resources(const Account& owned, std::string_view key, const NeededAccess& needed) {
  if (sends_trace(needed)) return std::nullopt;
  if (!owned.has_resource_perms && owned.admin) return std::nullopt;
  for (const auto& [resource, perm] : needed.resources) {
    const bool group = resource.starts_with(kRetryTopicPrefix);
    auto listed = owned.resource_perms.find(resource);
    const PermBits has = listed != owned.resource_perms.end() ? listed->second
                         : group                              ? owned.default_group_perm
                                                              : owned.default_topic_perm;
    if (!permission_allows(perm, has)) {
      return refuse(fmt::format("No permission {} for {}, accessKey={} has {}", perm_name(perm), describe(resource), key,
                                perm_name(has)));
    }
  }
  return std::nullopt;
}

}  // namespace ferry::remoting::acl
