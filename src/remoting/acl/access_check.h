// The access check of RocketMQ 4.x plain ACL (PlainAccessValidator.parse + PlainPermissionManager
// .validate), as a pure function of the accounts, the caller's address and the request.
//
// What a request needs (needed_access, RocketMQ's parse; a group G is the resource "%RETRY%G"):
//   SEND_MESSAGE (10), SEND_MESSAGE_V2 (310)  PUB on the topic; a send to %RETRY%G needs SUB on G
//   SEND_BATCH_MESSAGE (320)                  as 310 (RocketMQ 4.9 maps no resource for a batch,
//                                             which lets a batch past a topic's DENY; Ferry does not)
//   CONSUMER_SEND_MSG_BACK (36)               SUB on the group
//   PULL_MESSAGE (11)                         SUB on the topic and on consumerGroup
//   QUERY_MESSAGE (12)                        SUB on the topic
//   HEART_BEAT (34)                           per consumer: SUB on its group and each subscribed topic
//   UNREGISTER_CLIENT (35), GET_CONSUMER_LIST_BY_GROUP (38)  SUB on consumerGroup
//   UPDATE_CONSUMER_OFFSET (15)               SUB on consumerGroup and on the topic
//   POP_MESSAGE (200050), ACK_MESSAGE (200051), CHANGE_MESSAGE_INVISIBLETIME (200053)
//                                             SUB on consumerGroup and on the topic (a POP retry
//                                             topic %RETRY%G_T: the group's SUB only)
//   BATCH_ACK_MESSAGE (200151)                per entry of its body: SUB on its group and topic
//   the policy's admin codes                  an admin account
//   anything else                             a valid signature only
// A field the mapping needs that is missing adds no resource (the processor refuses the request).
//
// The order of the checks (check_access), each refusal's remark after "AclException: ":
//   1. the address matches globalWhiteRemoteAddresses           -> allowed, no key needed
//   2. no AccessKey field            "No accessKey is configured (request code C from H)"
//   3. an unknown key                "No acl config for accessKey=K"
//   4. the address matches the account's whiteRemoteAddress     -> allowed (signature and
//                                                                  permissions are not checked)
//   5. a wrong or missing Signature  "Check signature failed for accessKey=K"
//   6. a send to RMQ_SYS_TRACE_TOPIC (PUB only)                 -> allowed (message traces)
//   7. an admin code, not an admin   "Need admin permission for request code=C, but accessKey=K is not"
//   8. each resource: the account's entry, else its default for topics or groups;
//      refused             "No permission PUB for topic:T, accessKey=K has DENY"
//                          "No permission SUB for group:G, accessKey=K has PUB"
//      An admin account that lists no topicPerms/groupPerms has every permission.
//   A HEART_BEAT or BATCH_ACK_MESSAGE body that does not decode: "request body does not decode:
//   ..." (RocketMQ: the parse exception's text).
// Remarks never contain a secret or a signature.
//
// Policy: a broker guards every request code (guard_all); a NameServer only its write codes,
// which all need an admin account (admin_codes), and serves the rest to anybody.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "remoting/acl/acl_config.h"
#include "remoting/remoting_command.h"

namespace ferry::remoting::acl {

struct AclPolicy {
  std::set<std::int32_t> admin_codes;
  // True: every request is checked. False: only admin_codes are; the others pass.
  bool guard_all = true;
};

// RocketMQ 4.9's admin codes (Permission.ADMIN_CODE): 17, 25, 200, 207, 215; and Ferry's own
// FERRY_PROMOTE_SLAVE (10001), which RocketMQ does not have.
AclPolicy broker_policy();
// Ferry's NameServer (RocketMQ 4.9's has no ACL): PUT_KV_CONFIG (100), DELETE_KV_CONFIG (102),
// REGISTER_BROKER (103), UNREGISTER_BROKER (104), WIPE_WRITE_PERM_OF_BROKER (205),
// DELETE_TOPIC_IN_NAMESRV (216), ADD_WRITE_PERM_OF_BROKER (327); only those are checked.
AclPolicy namesrv_policy();

struct NeededAccess {
  std::map<std::string, PermBits> resources;  // topic or "%RETRY%group" -> permission needed
};
// What `request` needs (see above). Errors: a HEART_BEAT body that does not decode.
Result<NeededAccess> needed_access(const RemotingCommand& request);

// Steps 6 and 8 above (a send to the trace topic; each resource against the account) for an
// account whose key and signature the caller checked: nullopt or the refusal remark.
std::optional<std::string> check_resources(const Account& owned, std::string_view key, const NeededAccess& needed);

// nullopt when `request` from `remote_host` (dotted IPv4) may be served; else the refusal remark,
// starting "AclException: ".
std::optional<std::string> check_access(const AclConfig& config, const AclPolicy& policy, std::string_view remote_host,
                                        const RemotingCommand& request);

}  // namespace ferry::remoting::acl
