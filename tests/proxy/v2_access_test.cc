// Plain ACL for RocketMQ 5's gRPC clients (src/proxy/v2_access.h): the signature as the Node.js
// and Java clients compute it (HMAC-SHA1 of x-mq-date-time, upper-case hex; the expected values
// below were computed outside Ferry, with Python's hmac), and what each request needs.
#include "proxy/v2_access.h"

#include <gtest/gtest.h>

namespace ferry::proxy {
namespace {

namespace acl = remoting::acl;

constexpr const char* kYaml = R"(globalWhiteRemoteAddresses:
  - 10.9.9.*
accounts:
  - accessKey: interopProducer
    secretKey: interop-producer-secret
    defaultTopicPerm: DENY
    defaultGroupPerm: DENY
    topicPerms:
      - V2Acl=PUB
  - accessKey: interopConsumer
    secretKey: interop-consumer-secret
    whiteRemoteAddress: 10.1.1.1
    topicPerms:
      - V2Acl=SUB
    groupPerms:
      - GID_ACL=SUB
)";

const char* kDate = "20261207T120000Z";
const char* kProducerSig = "6D5F5985C41ACD0B59E03D2A672723C59EB75BD4";  // HMAC-SHA1(producer secret, kDate)

acl::AclConfig config() {
  auto c = acl::parse_acl_yaml(kYaml, "plain_acl.yml");
  EXPECT_TRUE(c.ok()) << c.error().to_string();
  return *c;
}

std::string header(std::string ak, std::string sig) {
  return "MQv2-HMAC-SHA1 Credential=" + ak + ", SignedHeaders=x-mq-date-time, Signature=" + sig;
}

v2::SendMessageRequest send_to(std::string topic) {
  v2::SendMessageRequest r;
  r.add_messages()->mutable_topic()->set_name(topic);
  return r;
}

TEST(V2Access, TheAuthorizationHeaderAsTheClientsWriteIt) {
  const V2Credentials c = parse_authorization(header("AK/extra", "abc"), kDate);
  EXPECT_EQ(c.access_key, "AK") << "the part of Credential before its first '/'";
  EXPECT_EQ(c.signature, "abc");
  EXPECT_EQ(c.date_time, kDate);
  EXPECT_TRUE(parse_authorization("", kDate).access_key.empty());
  EXPECT_TRUE(parse_authorization("garbage", kDate).access_key.empty());
  EXPECT_TRUE(parse_authorization("MQv2-HMAC-SHA1 Signature=abc", kDate).access_key.empty());
}

TEST(V2Access, ARightSignatureWithThePermissionPassesAndEachRefusalSaysWhy) {
  const acl::AclConfig c = config();
  const auto ok = parse_authorization(header("interopProducer", kProducerSig), kDate);
  EXPECT_EQ(check_v2_access(c, "127.0.0.1", ok, needed_v2_access(send_to("V2Acl"))), std::nullopt);
  std::string lower = kProducerSig;
  for (char& ch : lower) ch = static_cast<char>(std::tolower(ch));
  EXPECT_EQ(check_v2_access(c, "127.0.0.1", parse_authorization(header("interopProducer", lower), kDate),
                            needed_v2_access(send_to("V2Acl"))),
            std::nullopt)
      << "hex in either case";

  EXPECT_EQ(check_v2_access(c, "127.0.0.1", ok, needed_v2_access(send_to("Other"))),
            "AclException: No permission PUB for topic:Other, accessKey=interopProducer has DENY");
  v2::ReceiveMessageRequest receive;
  receive.mutable_message_queue()->mutable_topic()->set_name("V2Acl");
  receive.mutable_group()->set_name("GID_ACL");
  EXPECT_EQ(check_v2_access(c, "127.0.0.1", ok, needed_v2_access(receive)),
            "AclException: No permission SUB for group:GID_ACL, accessKey=interopProducer has DENY");

  EXPECT_EQ(check_v2_access(c, "127.0.0.1", parse_authorization(header("interopProducer", "EF5A7A1AA23CD25D90BD04A5A54DC48C358666B3"), kDate),
                            needed_v2_access(send_to("V2Acl"))),
            "AclException: Check signature failed for accessKey=interopProducer")
      << "signed with another secret";
  EXPECT_EQ(check_v2_access(c, "127.0.0.1", parse_authorization(header("interopProducer", kProducerSig), "20261207T120001Z"),
                            needed_v2_access(send_to("V2Acl"))),
            "AclException: Check signature failed for accessKey=interopProducer")
      << "another date signed";
  EXPECT_EQ(check_v2_access(c, "127.0.0.1", parse_authorization(header("interopProducer", kProducerSig), ""),
                            needed_v2_access(send_to("V2Acl"))),
            "AclException: Check signature failed for accessKey=interopProducer")
      << "no x-mq-date-time";
  EXPECT_EQ(check_v2_access(c, "127.0.0.1", parse_authorization(header("nobody", kProducerSig), kDate), needed_v2_access(send_to("V2Acl"))),
            "AclException: No acl config for accessKey=nobody");
  EXPECT_EQ(check_v2_access(c, "127.0.0.1", parse_authorization("", kDate), needed_v2_access(send_to("V2Acl"))),
            "AclException: No accessKey is configured (gRPC call from 127.0.0.1)");
}

TEST(V2Access, WhiteAddressesPassWithoutASignature) {
  const acl::AclConfig c = config();
  EXPECT_EQ(check_v2_access(c, "10.9.9.4", parse_authorization("", ""), needed_v2_access(send_to("Any"))), std::nullopt);
  EXPECT_EQ(check_v2_access(c, "10.1.1.1", parse_authorization(header("interopConsumer", "bad"), kDate),
                            needed_v2_access(send_to("Any"))),
            std::nullopt)
      << "the account's whiteRemoteAddress";
}

TEST(V2Access, WhatEachRequestNeeds) {
  v2::QueryRouteRequest route;
  route.mutable_topic()->set_name("T");
  EXPECT_EQ(needed_v2_access(route).resources, (std::map<std::string, acl::PermBits>{{"T", acl::kPermAny}}));
  v2::SendMessageRequest send = send_to("T");
  send.add_messages()->mutable_topic()->set_name("U");
  EXPECT_EQ(needed_v2_access(send).resources, (std::map<std::string, acl::PermBits>{{"T", acl::kPermPub}, {"U", acl::kPermPub}}));
  v2::AckMessageRequest ack;
  ack.mutable_topic()->set_name("T");
  ack.mutable_group()->set_name("G");
  EXPECT_EQ(needed_v2_access(ack).resources, (std::map<std::string, acl::PermBits>{{"%RETRY%G", acl::kPermSub}, {"T", acl::kPermSub}}));
  v2::TelemetryCommand settings;
  settings.mutable_settings()->mutable_subscription()->mutable_group()->set_name("G");
  settings.mutable_settings()->mutable_subscription()->add_subscriptions()->mutable_topic()->set_name("T");
  EXPECT_EQ(needed_v2_access(settings).resources,
            (std::map<std::string, acl::PermBits>{{"%RETRY%G", acl::kPermSub}, {"T", acl::kPermSub}}));
  v2::TelemetryCommand publishing;
  publishing.mutable_settings()->mutable_publishing()->add_topics()->set_name("P");
  EXPECT_EQ(needed_v2_access(publishing).resources, (std::map<std::string, acl::PermBits>{{"P", acl::kPermPub}}));
  EXPECT_TRUE(needed_v2_access(v2::HeartbeatRequest{}).resources.empty()) << "a producer's heartbeat names no group";
}

}  // namespace
}  // namespace ferry::proxy
