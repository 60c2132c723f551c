// Plain ACL for RocketMQ 5's gRPC clients (docs/rocketmq5-proxy-facts.md §7): the signature of a
// call's metadata, and what each v2 request needs of the caller's account, checked against the
// accounts of a plain_acl.yml (the brokers' file; remoting/acl/acl_config.h).
//
//   V2Credentials who = parse_authorization(authorization_header, date_time_header);
//   std::optional<std::string> refusal =
//       check_v2_access(acl.config(), "10.0.0.7", who, needed_v2_access(request));
//
// The signature: `authorization: MQv2-HMAC-SHA1 Credential=AK, SignedHeaders=x-mq-date-time,
// Signature=HEX`, HEX the HMAC-SHA1 of the x-mq-date-time value with the account's secret (either
// case). Credential's access key is what precedes its first '/'. No clock-skew check, as in
// RocketMQ 5.3.
//
// What a request needs (RocketMQ 5's PlainAccessValidator for gRPC; a group G is "%RETRY%G"):
//   QueryRoute                       ANY (PUB or SUB) on the topic
//   SendMessage                      PUB on each message's topic
//   EndTransaction                   PUB on the topic
//   ReceiveMessage, AckMessage, ChangeInvisibleDuration, ForwardMessageToDeadLetterQueue,
//   QueryAssignment                  SUB on the topic and on the group
//   Heartbeat, NotifyClientTermination  SUB on the group, when the request names one
//   Telemetry's SETTINGS             PUB on each publishing topic; SUB on the subscription's group
//                                    and each subscribed topic
// The order of the checks and the refusals' words are those of the brokers' (access_check.h):
//   1. the address matches globalWhiteRemoteAddresses     -> allowed, no signature needed
//   2. no authorization            "No accessKey is configured (gRPC call from H)"
//   3. an unknown key              "No acl config for accessKey=K"
//   4. the address matches the account's whiteRemoteAddress -> allowed
//   5. a wrong or missing signature (or no x-mq-date-time)  "Check signature failed for accessKey=K"
//   6. each resource               "No permission SUB for group:G, accessKey=K has PUB"
// Every refusal starts "AclException: " and never holds a secret or a signature.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "apache/rocketmq/v2/service.pb.h"
#include "remoting/acl/access_check.h"
#include "remoting/acl/acl_config.h"

namespace ferry::proxy {

namespace v2 = apache::rocketmq::v2;

struct V2Credentials {
  std::string access_key;  // empty: no (parsable) authorization header
  std::string signature;   // hex as sent
  std::string date_time;   // x-mq-date-time
};

// Reads the authorization header's Credential and Signature; a header without them gives an
// empty access key.
V2Credentials parse_authorization(std::string_view authorization, std::string_view date_time);

// What each request needs (above). Requests of other types need nothing beyond the signature.
remoting::acl::NeededAccess needed_v2_access(const v2::QueryRouteRequest& r);
remoting::acl::NeededAccess needed_v2_access(const v2::SendMessageRequest& r);
remoting::acl::NeededAccess needed_v2_access(const v2::EndTransactionRequest& r);
remoting::acl::NeededAccess needed_v2_access(const v2::ReceiveMessageRequest& r);
remoting::acl::NeededAccess needed_v2_access(const v2::AckMessageRequest& r);
remoting::acl::NeededAccess needed_v2_access(const v2::ChangeInvisibleDurationRequest& r);
remoting::acl::NeededAccess needed_v2_access(const v2::ForwardMessageToDeadLetterQueueRequest& r);
remoting::acl::NeededAccess needed_v2_access(const v2::QueryAssignmentRequest& r);
remoting::acl::NeededAccess needed_v2_access(const v2::HeartbeatRequest& r);
remoting::acl::NeededAccess needed_v2_access(const v2::NotifyClientTerminationRequest& r);
remoting::acl::NeededAccess needed_v2_access(const v2::TelemetryCommand& r);

// nullopt: the caller at `remote_host` (dotted IPv4) may be served; else the refusal (above).
std::optional<std::string> check_v2_access(const remoting::acl::AclConfig& config, std::string_view remote_host,
                                           const V2Credentials& who, const remoting::acl::NeededAccess& needed);

}  // namespace ferry::proxy
