// The wire facts of RocketMQ 4.x plain ACL (the `acl` module of RocketMQ 4.9): the extFields a
// signed request carries, what the signature covers, and the permission words of plain_acl.yml.
//
// A signed request carries, among its other extFields:
//   AccessKey      the account's access key
//   SecurityToken  optional; signed like any other field
//   Signature      base64(HMAC-SHA1(secretKey, content))
// where content = the VALUES of every other extField, sorted by key (Java's String order, which
// for the ASCII keys of every RocketMQ header is bytewise order), concatenated with no separator,
// followed by the body bytes. Two fields are left out of the content:
//   Signature            (it is what is being computed)
//   _UNIQUE_KEY_QUERY    left out by the broker's check (PlainAccessValidator.parse), but SIGNED by
//                        RocketMQ's own AclClientRPCHook, so a Java client's msgId query never
//                        passes a 4.9 broker. Ferry's signer leaves it out (it passes a RocketMQ
//                        broker); Ferry's check accepts either form (signature.h).
// Worked example (tests/vectors/acl_signatures_ali_ons.jsonl, computed by node's crypto):
//   extFields {AccessKey: "RocketMQ", topic: "T", queueId: "0"}, body "hi", secret "12345678"
//   content = "RocketMQ" + "0" + "T" + "hi" = "RocketMQ0Thi" (keys sorted: AccessKey, queueId, topic)
#pragma once

#include <cstdint>
#include <string_view>

namespace ferry::remoting::acl {

inline constexpr std::string_view kAccessKeyField = "AccessKey";
inline constexpr std::string_view kSignatureField = "Signature";
inline constexpr std::string_view kSecurityTokenField = "SecurityToken";
// MixAll.UNIQUE_MSG_QUERY_FLAG: a QUERY_MESSAGE by msgId sets it to "true".
inline constexpr std::string_view kUniqueKeyQueryField = "_UNIQUE_KEY_QUERY";

// RocketMQ's AclConstants: keys and secrets must be LONGER than 6 characters.
inline constexpr std::size_t kKeyLengthMin = 7;

// Permission bits (RocketMQ's acl Permission; not the topic perm bits of common/permission.h).
using PermBits = std::uint8_t;
inline constexpr PermBits kPermDeny = 1;
inline constexpr PermBits kPermAny = 1 << 1;
inline constexpr PermBits kPermPub = 1 << 2;
inline constexpr PermBits kPermSub = 1 << 3;

// The remark of every refusal starts with this, as RocketMQ's does (its remark is the Java
// exception's text, "org.apache.rocketmq.acl.common.AclException: ...").
inline constexpr std::string_view kRefusalPrefix = "AclException: ";

}  // namespace ferry::remoting::acl
