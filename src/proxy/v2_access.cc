#include "proxy/v2_access.h"

#include <fmt/format.h>

#include "common/names.h"
#include "remoting/acl/acl_format.h"
#include "remoting/acl/signature.h"

namespace ferry::proxy {

namespace acl = remoting::acl;

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// A permission on a topic; several needs of one resource add up (PUB and SUB: both).
void need_topic(acl::NeededAccess& n, const std::string& topic, acl::PermBits perm) {
  if (topic.empty()) return;
  acl::PermBits& p = n.resources[topic];
  p = p == 0 ? perm : static_cast<acl::PermBits>(p | perm);
}
void need_group(acl::NeededAccess& n, const std::string& group) {
  if (group.empty()) return;
  n.resources[retry_topic(group)] = acl::kPermSub;
}
acl::NeededAccess topic_and_group(const std::string& topic, const std::string& group) {
  acl::NeededAccess n;
  need_topic(n, topic, acl::kPermSub);
  need_group(n, group);
  return n;
}

std::string refuse(std::string_view what) { return fmt::format("{}{}", acl::kRefusalPrefix, what); }

}  // namespace

V2Credentials parse_authorization(std::string_view authorization, std::string_view date_time) {
  V2Credentials out;
  out.date_time = std::string(date_time);
  // "SCHEME Credential=AK[/...], SignedHeaders=..., Signature=HEX": the scheme word is skipped.
  const auto space = authorization.find(' ');
  if (space == std::string_view::npos) return out;
  std::string_view rest = authorization.substr(space + 1);
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const std::string_view item = trim(rest.substr(0, comma));
    const auto eq = item.find('=');
    if (eq != std::string_view::npos) {
      const std::string_view key = trim(item.substr(0, eq));
      const std::string_view value = trim(item.substr(eq + 1));
      if (key == "Credential") {
        out.access_key = std::string(value.substr(0, value.find('/')));
      } else if (key == "Signature") {
        out.signature = std::string(value);
      }
    }
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return out;
}

acl::NeededAccess needed_v2_access(const v2::QueryRouteRequest& r) {
  acl::NeededAccess n;
  need_topic(n, r.topic().name(), acl::kPermAny);
  return n;
}
acl::NeededAccess needed_v2_access(const v2::SendMessageRequest& r) {
  acl::NeededAccess n;
  for (const v2::Message& m : r.messages()) need_topic(n, m.topic().name(), acl::kPermPub);
  return n;
}
acl::NeededAccess needed_v2_access(const v2::EndTransactionRequest& r) {
  acl::NeededAccess n;
  need_topic(n, r.topic().name(), acl::kPermPub);
  return n;
}
acl::NeededAccess needed_v2_access(const v2::ReceiveMessageRequest& r) {
  return topic_and_group(r.message_queue().topic().name(), r.group().name());
}
acl::NeededAccess needed_v2_access(const v2::AckMessageRequest& r) { return topic_and_group(r.topic().name(), r.group().name()); }
acl::NeededAccess needed_v2_access(const v2::ChangeInvisibleDurationRequest& r) {
  return topic_and_group(r.topic().name(), r.group().name());
}
acl::NeededAccess needed_v2_access(const v2::ForwardMessageToDeadLetterQueueRequest& r) {
  return topic_and_group(r.topic().name(), r.group().name());
}
acl::NeededAccess needed_v2_access(const v2::QueryAssignmentRequest& r) {
  return topic_and_group(r.topic().name(), r.group().name());
}
acl::NeededAccess needed_v2_access(const v2::HeartbeatRequest& r) {
  acl::NeededAccess n;
  need_group(n, r.group().name());
  return n;
}
acl::NeededAccess needed_v2_access(const v2::NotifyClientTerminationRequest& r) {
  acl::NeededAccess n;
  need_group(n, r.group().name());
  return n;
}
acl::NeededAccess needed_v2_access(const v2::TelemetryCommand& r) {
  acl::NeededAccess n;
  if (!r.has_settings()) return n;
  const v2::Settings& s = r.settings();
  if (s.has_publishing()) {
    for (const v2::Resource& t : s.publishing().topics()) need_topic(n, t.name(), acl::kPermPub);
  }
  if (s.has_subscription()) {
    need_group(n, s.subscription().group().name());
    for (const v2::SubscriptionEntry& e : s.subscription().subscriptions()) need_topic(n, e.topic().name(), acl::kPermSub);
  }
  return n;
}

std::optional<std::string> check_v2_access(const acl::AclConfig& config, std::string_view remote_host, const V2Credentials& who,
                                           const acl::NeededAccess& needed) {
  for (const acl::AddressPattern& p : config.global_white_remote_addresses) {
    if (p.matches(remote_host)) return std::nullopt;
  }
  if (who.access_key.empty()) return refuse(fmt::format("No accessKey is configured (gRPC call from {})", remote_host));
  auto account = config.accounts.find(who.access_key);
  if (account == config.accounts.end()) return refuse(fmt::format("No acl config for accessKey={}", who.access_key));
  const acl::Account& owned = account->second;
  if (owned.white_remote_address.matches(remote_host)) return std::nullopt;
  if (who.date_time.empty() || !acl::hex_hmac_sha1_matches(who.date_time, owned.secret_key, who.signature)) {
    return refuse(fmt::format("Check signature failed for accessKey={}", who.access_key));
  }
  return acl::check_resources(owned, who.access_key, needed);
}

}  // namespace ferry::proxy
