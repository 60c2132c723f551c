// parse_acl_yaml over yaml-cpp. yaml-cpp reports errors by throwing; they are caught here and
// turned into values at this edge (STYLE.md 5), with the line yaml-cpp marks.
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <set>

#include "common/names.h"
#include "remoting/acl/acl_config.h"

namespace ferry::remoting::acl {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// yaml-cpp's marks count lines from 0; a mark of -1 means "unknown".
std::size_t line_of(const YAML::Node& n) {
  const YAML::Mark m = n.Mark();
  return m.line < 0 ? 0 : static_cast<std::size_t>(m.line) + 1;
}

Error at(std::string_view file, std::size_t line, std::string_view key, std::string_view what) {
  if (line == 0) return Error(Errc::invalid_argument, fmt::format("{}: {}: {}", file, key, what));
  return Error(Errc::invalid_argument, fmt::format("{}:{}: {}: {}", file, line, key, what));
}

// A scalar as text ("" for null: `whiteRemoteAddress:` with nothing after it).
Result<std::string> scalar(const YAML::Node& n, std::string_view file, std::string_view key) {
  if (n.IsNull()) return std::string();
  if (!n.IsScalar()) return at(file, line_of(n), key, "expected a single value");
  return n.Scalar();
}

Result<std::vector<std::pair<std::string, std::size_t>>> scalar_list(const YAML::Node& n, std::string_view file,
                                                                      std::string_view key) {
  std::vector<std::pair<std::string, std::size_t>> out;
  if (!n || n.IsNull()) return out;
  if (!n.IsSequence()) return at(file, line_of(n), key, "expected a list (lines starting with '- ')");
  for (const YAML::Node& item : n) {
    auto s = scalar(item, file, key);
    if (!s) return std::move(s).error();
    out.emplace_back(std::move(*s), line_of(item));
  }
  return out;
}

Status resource_perms(const YAML::Node& n, std::string_view file, std::string_view key, bool groups, Account& a) {
  auto items = scalar_list(n, file, key);
  if (!items) return std::move(items).error();
  for (const auto& [text, line] : *items) {
    // RocketMQ splits on '=' dropping empty pieces and wants exactly two.
    std::vector<std::string_view> pieces;
    std::string_view rest = text;
    while (true) {
      const auto eq = rest.find('=');
      if (!rest.substr(0, eq).empty()) pieces.push_back(rest.substr(0, eq));
      if (eq == std::string_view::npos) break;
      rest.remove_prefix(eq + 1);
    }
    if (pieces.size() != 2 || trim(pieces[0]).empty()) {
      return at(file, line, key, fmt::format("\"{}\" is not {}=PERM (e.g. {}A=SUB)", text, groups ? "group" : "topic",
                                             groups ? "group" : "topic"));
    }
    const std::string name(trim(pieces[0]));
    a.resource_perms[groups ? retry_topic(name) : name] = parse_perm(pieces[1]);
    a.has_resource_perms = true;
  }
  return Status();
}

Result<Account> account(const YAML::Node& n, std::string_view file) {
  if (!n.IsMap()) return at(file, line_of(n), "accounts", "each account must be a map of accessKey, secretKey, ...");
  Account a;
  auto text = [&](const char* key) -> Result<std::string> {
    const YAML::Node v = n[key];
    if (!v) return std::string();
    return scalar(v, file, key);
  };
  auto ak = text("accessKey");
  if (!ak) return std::move(ak).error();
  a.access_key = std::string(trim(*ak));
  if (a.access_key.size() < kKeyLengthMin) {
    return at(file, line_of(n), "accessKey",
              fmt::format("\"{}\" must be longer than {} characters", a.access_key, kKeyLengthMin - 1));
  }
  auto sk = text("secretKey");
  if (!sk) return std::move(sk).error();
  a.secret_key = std::string(trim(*sk));
  if (a.secret_key.size() < kKeyLengthMin) {  // the value is a secret: never in the text
    return at(file, n["secretKey"] ? line_of(n["secretKey"]) : line_of(n), "secretKey",
              fmt::format("the secret of {} must be longer than {} characters", a.access_key, kKeyLengthMin - 1));
  }
  auto white = text("whiteRemoteAddress");
  if (!white) return std::move(white).error();
  auto pattern = AddressPattern::parse(*white);
  if (!pattern) return at(file, line_of(n["whiteRemoteAddress"]), "whiteRemoteAddress", pattern.error().detail);
  a.white_remote_address = std::move(*pattern);
  auto admin = text("admin");
  if (!admin) return std::move(admin).error();
  // YAML 1.1 booleans, as RocketMQ's SnakeYAML reads them.
  static const std::set<std::string, std::less<>> kTrue = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"};
  static const std::set<std::string, std::less<>> kFalse = {"", "false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"};
  if (kTrue.contains(*admin)) {
    a.admin = true;
  } else if (kFalse.contains(*admin)) {
    a.admin = false;
  } else {
    return at(file, line_of(n["admin"]), "admin", fmt::format("\"{}\" is not true or false", *admin));
  }
  auto topic_default = text("defaultTopicPerm");
  if (!topic_default) return std::move(topic_default).error();
  a.default_topic_perm = parse_perm(*topic_default);
  auto group_default = text("defaultGroupPerm");
  if (!group_default) return std::move(group_default).error();
  a.default_group_perm = parse_perm(*group_default);
  FERRY_TRY(resource_perms(n["groupPerms"], file, "groupPerms", true, a));
  FERRY_TRY(resource_perms(n["topicPerms"], file, "topicPerms", false, a));
  return a;
}

Result<AclConfig> parse_tree(const YAML::Node& root, std::string_view file) {
  AclConfig c;
  if (!root || root.IsNull()) return c;  // an empty file: no whitelist, no account
  if (!root.IsMap()) return at(file, line_of(root), "(top level)", "expected globalWhiteRemoteAddresses and accounts");
  auto white = scalar_list(root["globalWhiteRemoteAddresses"], file, "globalWhiteRemoteAddresses");
  if (!white) return std::move(white).error();
  for (const auto& [text, line] : *white) {
    auto p = AddressPattern::parse(text);
    if (!p) return at(file, line, "globalWhiteRemoteAddresses", p.error().detail);
    if (!p->text().empty()) c.global_white_remote_addresses.push_back(std::move(*p));
  }
  const YAML::Node accounts = root["accounts"];
  if (!accounts || accounts.IsNull()) return c;
  if (!accounts.IsSequence()) return at(file, line_of(accounts), "accounts", "expected a list of accounts");
  for (const YAML::Node& n : accounts) {
    auto a = account(n, file);
    if (!a) return std::move(a).error();
    if (c.accounts.contains(a->access_key)) {
      return at(file, line_of(n), "accessKey", fmt::format("{} is listed twice", a->access_key));
    }
    std::string key = a->access_key;
    c.accounts.emplace(std::move(key), std::move(*a));
  }
  return c;
}

}  // namespace

PermBits parse_perm(std::string_view word) {
  word = trim(word);
  if (word == "PUB") return kPermPub;
  if (word == "SUB") return kPermSub;
  if (word == "PUB|SUB" || word == "SUB|PUB") return kPermPub | kPermSub;
  return kPermDeny;
}

std::string perm_name(PermBits bits) {
  if ((bits & kPermDeny) != 0) return "DENY";
  if ((bits & kPermAny) != 0) return "ANY";
  if ((bits & kPermPub) != 0 && (bits & kPermSub) != 0) return "PUB|SUB";
  if ((bits & kPermPub) != 0) return "PUB";
  if ((bits & kPermSub) != 0) return "SUB";
  return "NONE";
}

bool permission_allows(PermBits needed, PermBits owned) {
  if ((owned & kPermDeny) != 0) return false;
  if ((needed & kPermAny) != 0) return (owned & (kPermPub | kPermSub)) != 0;
  return (needed & owned) != 0;
}

Result<AclConfig> parse_acl_yaml(std::string_view text, std::string_view file) {
  if (text.size() > kAclFileBytesMax) {
    return at(file, 0, "(file)", fmt::format("{} bytes, more than the {} an ACL file may have", text.size(), kAclFileBytesMax));
  }
  YAML::Node root;
  std::string failure;
  std::size_t failure_line = 0;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    failure = e.msg;
    failure_line = e.mark.line < 0 ? 0 : static_cast<std::size_t>(e.mark.line) + 1;
  }
  if (!failure.empty()) return at(file, failure_line, "(yaml)", failure);
  try {
    return parse_tree(root, file);
  } catch (const YAML::Exception& e) {  // a lookup on a node of the wrong kind
    return at(file, e.mark.line < 0 ? 0 : static_cast<std::size_t>(e.mark.line) + 1, "(yaml)", e.msg);
  }
}

}  // namespace ferry::remoting::acl
