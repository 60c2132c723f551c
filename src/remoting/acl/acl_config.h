// AclConfig: the accounts and whitelists of a plain_acl.yml, RocketMQ 4.x's layout:
//
//   globalWhiteRemoteAddresses:        # optional; a match passes without any key
//     - 10.10.103.*
//   accounts:
//     - accessKey: RocketMQ            # longer than 6 characters, unique in the file
//       secretKey: 12345678            # longer than 6 characters
//       whiteRemoteAddress: 192.168.0.*  # optional; a match skips signature and permissions
//       admin: false                   # admin request codes (access_validator.h) need true
//       defaultTopicPerm: DENY         # for topics not in topicPerms (absent = DENY)
//       defaultGroupPerm: SUB          # for groups not in groupPerms (absent = DENY)
//       topicPerms: [topicA=DENY, topicB=PUB|SUB]
//       groupPerms: [groupA=SUB]
//
// Permission words: DENY, PUB, SUB, PUB|SUB, SUB|PUB (trimmed); anything else means DENY, as in
// RocketMQ. Unknown keys are ignored (RocketMQ writes a dataVersion list, for one). Address
// patterns: address_pattern.h.
//
// parse_acl_yaml() refuses a file that is not that shape, with "{file}:{line}: {key}: {what}"
// (line 0 when the place is unknown); the text never contains a secret key. Bounded: a file over
// kAclFileBytesMax is refused before it is parsed.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "remoting/acl/acl_format.h"
#include "remoting/acl/address_pattern.h"
#include "runtime/result.h"

namespace ferry::remoting::acl {

inline constexpr std::size_t kAclFileBytesMax = 1 << 20;

struct Account {
  std::string access_key;
  std::string secret_key;
  AddressPattern white_remote_address;  // blank: matches nothing
  bool admin = false;
  PermBits default_topic_perm = kPermDeny;
  PermBits default_group_perm = kPermDeny;
  // Topics by name, groups by their retry topic ("%RETRY%group"), as RocketMQ keys them; a topic
  // entry overrides a group entry of the same name (topics are read last, as in RocketMQ).
  std::map<std::string, PermBits> resource_perms;
  // False when the account lists no topicPerms and no groupPerms (an admin account then has
  // every permission: RocketMQ's checkPerm).
  bool has_resource_perms = false;
};

struct AclConfig {
  std::vector<AddressPattern> global_white_remote_addresses;
  std::map<std::string, Account, std::less<>> accounts;  // by access key
};

// DENY, PUB, SUB, PUB|SUB, SUB|PUB (after trimming); anything else: DENY.
PermBits parse_perm(std::string_view word);
// "PUB", "SUB", "PUB|SUB", "DENY", "ANY": for refusal remarks.
std::string perm_name(PermBits bits);
// RocketMQ's Permission.checkPermission: DENY in `owned` refuses everything; ANY needs PUB or SUB.
bool permission_allows(PermBits needed, PermBits owned);

// Parses plain_acl.yml text; `file` names it in errors.
Result<AclConfig> parse_acl_yaml(std::string_view text, std::string_view file);

}  // namespace ferry::remoting::acl
