// Signing and checking requests as RocketMQ 4.x plain ACL does (acl_format.h has the format).
//
// Credentials are an access key, a secret key and an optional security token. sign() adds
// AccessKey (and SecurityToken) to a request and then its Signature, exactly as RocketMQ's
// AclClientRPCHook does, except that _UNIQUE_KEY_QUERY is left out of the content (see
// acl_format.h). Every call is pure: no state, no I/O; HMAC-SHA1 and base64 are OpenSSL's.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "remoting/remoting_command.h"
#include "runtime/bytes.h"

namespace ferry::remoting::acl {

struct Credentials {
  std::string access_key;
  std::string secret_key;  // never logged, never sent
  std::optional<std::string> security_token;

  bool empty() const { return access_key.empty() && secret_key.empty(); }
};

// Which fields the content leaves out besides Signature.
enum class UniqueKeyQuery : std::uint8_t {
  excluded,  // RocketMQ's broker check and Ferry's signer
  included,  // RocketMQ's AclClientRPCHook (Java clients)
};

// The bytes a signature covers: the values of `fields` but Signature (and, when `mode` says so,
// _UNIQUE_KEY_QUERY), sorted by key, then `body`.
std::string signing_content(const ExtFields& fields, Bytes body, UniqueKeyQuery mode = UniqueKeyQuery::excluded);

// base64(HMAC-SHA1(secret, data)), 28 characters.
std::string hmac_sha1_base64(std::string_view data, std::string_view secret);

// RocketMQ 5's gRPC signature: true when `hex` (either case) is HMAC-SHA1(secret, data) in hex, 40
// digits. Constant time. (The clients sign the x-mq-date-time header's value.)
bool hex_hmac_sha1_matches(std::string_view data, std::string_view secret, std::string_view hex);

// Sets AccessKey, SecurityToken (when the credentials have one) and Signature on `request`.
// Signature is computed last, over everything else; call it after the last field is set.
void sign(RemotingCommand& request, const Credentials& credentials);

// True when `signature` is what `secret` signs over `request`'s content in either form of
// UniqueKeyQuery (the included form is tried only when the field is present). Compares in
// constant time.
bool signature_matches(const RemotingCommand& request, std::string_view signature, std::string_view secret);

}  // namespace ferry::remoting::acl
