// RocketMQ plain ACL: the signature against vectors Node's crypto made as ali-ons signs
// (tests/vectors/acl_signatures_ali_ons.jsonl), address patterns, plain_acl.yml parsing, the
// permission mapping and the order of the checks, and the file watcher on a simulated disk in
// virtual time (a change is picked up, a bad or missing file keeps the last good accounts).
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <memory>
#include <string>

#include "remoting/acl/access_check.h"
#include "remoting/acl/access_control.h"
#include "remoting/acl/acl_config.h"
#include "remoting/acl/address_pattern.h"
#include "remoting/acl/signature.h"
#include "remoting/body/batch_ack_body.h"
#include "remoting/body/heartbeat_data.h"
#include "remoting/request_code.h"
#include "remoting/response_code.h"
#include "remoting/rpc/rpc_client.h"
#include "remoting/rpc/rpc_server.h"
#include "sim/net/network.h"
#include "sim/node.h"
#include "sim/world.h"
#include "tests/support/vectors.h"

namespace ferry::remoting::acl {
namespace {

namespace rc = request_code;

std::vector<std::uint8_t> from_base64(std::string_view text) {
  static const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::vector<std::uint8_t> out;
  std::uint32_t acc = 0;
  int bits = 0;
  for (char c : text) {
    if (c == '=') break;
    const auto v = alphabet.find(c);
    EXPECT_NE(v, std::string::npos) << "bad base64 character " << c;
    acc = (acc << 6) | static_cast<std::uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<std::uint8_t>((acc >> bits) & 0xFF));
    }
  }
  return out;
}

struct Vector {
  std::string name, secret, signature;
  RemotingCommand request;  // every field as sent, Signature included
};

std::vector<Vector> vectors() {
  std::vector<Vector> out;
  for (const std::string& line : test::read_vector_lines("acl_signatures_ali_ons.jsonl")) {
    rapidjson::Document d;
    d.Parse(line.c_str());
    EXPECT_FALSE(d.HasParseError()) << line;
    Vector v;
    v.name = d["name"].GetString();
    v.secret = d["secretKey"].GetString();
    v.signature = d["signature"].GetString();
    for (auto& m : d["extFields"].GetObject()) v.request.ext_fields.set(m.name.GetString(), m.value.GetString());
    v.request.body = from_base64(d["body_base64"].GetString());
    out.push_back(std::move(v));
  }
  return out;
}

TEST(AclSignature, MatchesWhatAliOnsComputes) {
  const auto vs = vectors();
  ASSERT_EQ(vs.size(), 5u);
  for (const Vector& v : vs) {
    SCOPED_TRACE(v.name);
    const ExtFields& f = v.request.ext_fields;
    // The signer over exactly the fields ali-ons signed (Signature is left out by both).
    EXPECT_EQ(hmac_sha1_base64(signing_content(f, v.request.body, UniqueKeyQuery::included), v.secret), v.signature);
    EXPECT_TRUE(signature_matches(v.request, v.signature, v.secret));
    EXPECT_FALSE(signature_matches(v.request, v.signature, v.secret + "x"));
    // sign() reproduces it from the request without Signature (OnsChannel is a field like any).
    RemotingCommand again = v.request;
    again.ext_fields.erase(kSignatureField);
    sign(again, Credentials{*f.find(kAccessKeyField), v.secret, std::nullopt});
    if (!f.contains(kUniqueKeyQueryField)) {
      EXPECT_EQ(*again.ext_fields.find(kSignatureField), v.signature);
    } else {
      // Ferry's signer leaves _UNIQUE_KEY_QUERY out (as a RocketMQ broker checks); the check
      // accepts both forms.
      EXPECT_NE(*again.ext_fields.find(kSignatureField), v.signature);
      EXPECT_TRUE(signature_matches(again, *again.ext_fields.find(kSignatureField), v.secret));
    }
  }
}

TEST(AclSignature, ATamperedFieldOrBodyFails) {
  for (const Vector& v : vectors()) {
    SCOPED_TRACE(v.name);
    RemotingCommand changed = v.request;
    changed.ext_fields.set("topic", "SomethingElse");
    EXPECT_FALSE(signature_matches(changed, v.signature, v.secret));
    RemotingCommand more_body = v.request;
    more_body.body.push_back('!');
    EXPECT_FALSE(signature_matches(more_body, v.signature, v.secret));
  }
}

TEST(AclSignature, ContentIsSortedValuesThenBody) {
  ExtFields f{{"topic", "T"}, {"queueId", "0"}, {"AccessKey", "RocketMQ"}, {"Signature", "x"}, {"_UNIQUE_KEY_QUERY", "true"}};
  const std::vector<std::uint8_t> body{'h', 'i'};
  EXPECT_EQ(signing_content(f, body), "RocketMQ0Thi");
  // Keys sort bytewise: AccessKey, _UNIQUE_KEY_QUERY, queueId, topic.
  EXPECT_EQ(signing_content(f, body, UniqueKeyQuery::included), "RocketMQtrue0Thi");
}

TEST(AclAddressPattern, RocketMqForms) {
  auto ok = [](std::string_view text) {
    auto p = AddressPattern::parse(text);
    EXPECT_TRUE(p.ok()) << text << ": " << (p.ok() ? "" : p.error().to_string());
    return p.ok() ? *p : AddressPattern();
  };
  EXPECT_FALSE(ok("").matches("1.2.3.4"));
  EXPECT_TRUE(ok("*").matches("1.2.3.4"));
  EXPECT_TRUE(ok("*.*.*.*").matches("10.0.0.1"));
  AddressPattern exact = ok("192.168.1.10");
  EXPECT_TRUE(exact.matches("192.168.1.10"));
  EXPECT_FALSE(exact.matches("192.168.1.100"));
  AddressPattern star = ok("192.168.1.*");
  EXPECT_TRUE(star.matches("192.168.1.0"));
  EXPECT_TRUE(star.matches("192.168.1.255"));
  EXPECT_FALSE(star.matches("192.168.10.1"));
  AddressPattern two = ok("10.10.*.*");
  EXPECT_TRUE(two.matches("10.10.3.4"));
  EXPECT_FALSE(two.matches("10.11.3.4"));
  AddressPattern range = ok("192.168.1.1-100");
  EXPECT_TRUE(range.matches("192.168.1.1"));
  EXPECT_TRUE(range.matches("192.168.1.100"));
  EXPECT_FALSE(range.matches("192.168.1.0"));
  EXPECT_FALSE(range.matches("192.168.1.101"));
  AddressPattern mid = ok("10.1-5.*.*");
  EXPECT_TRUE(mid.matches("10.3.200.7"));
  EXPECT_FALSE(mid.matches("10.6.0.0"));
  AddressPattern braces = ok("192.168.1.{1,5, 9}");
  EXPECT_TRUE(braces.matches("192.168.1.5"));
  EXPECT_TRUE(braces.matches("192.168.1.9"));
  EXPECT_FALSE(braces.matches("192.168.1.2"));
  AddressPattern list = ok("10.0.0.1,10.0.0.2");
  EXPECT_TRUE(list.matches("10.0.0.2"));
  EXPECT_FALSE(list.matches("10.0.0.3"));
  EXPECT_FALSE(star.matches("not-an-address"));
}

TEST(AclAddressPattern, BadPatternsSayWhy) {
  for (std::string_view bad : {"192.168.1", "300.1.1.1", "192.168.01.1", "192.168.1.100-5", "192.168.1-5.7",
                               "*.1.2.3", "192.168.1.{}", "1.2.3.4,x", "fe80::1", "a.b.c.d"}) {
    auto p = AddressPattern::parse(bad);
    ASSERT_FALSE(p.ok()) << bad;
    EXPECT_NE(p.error().detail.find(std::string(bad)), std::string::npos) << p.error().detail;
  }
}

constexpr std::string_view kYaml = R"(globalWhiteRemoteAddresses:
  - 10.10.103.*
accounts:
  - accessKey: RocketMQ
    secretKey: 12345678
    whiteRemoteAddress:
    admin: false
    defaultTopicPerm: DENY
    defaultGroupPerm: SUB
    topicPerms:
      - topicA=DENY
      - topicB=PUB|SUB
      - topicC=SUB
      - topicD=SUB|PUB
      - topicE=WRITE
    groupPerms:
      - groupA=DENY
      - groupB=PUB|SUB
  - accessKey: adminUser1
    secretKey: adminSecret!
    whiteRemoteAddress: 192.168.1.*
    admin: true
  - accessKey: pubOnlyUser
    secretKey: pubOnlySecret
    defaultTopicPerm: PUB
)";

AclConfig config() {
  auto c = parse_acl_yaml(kYaml, "plain_acl.yml");
  EXPECT_TRUE(c.ok()) << (c.ok() ? "" : c.error().to_string());
  return c.ok() ? *c : AclConfig{};
}

TEST(AclYaml, ReadsRocketMqLayout) {
  const AclConfig c = config();
  ASSERT_EQ(c.accounts.size(), 3u);
  ASSERT_EQ(c.global_white_remote_addresses.size(), 1u);
  const Account& a = c.accounts.at("RocketMQ");
  EXPECT_EQ(a.secret_key, "12345678");
  EXPECT_FALSE(a.admin);
  EXPECT_EQ(a.default_topic_perm, kPermDeny);
  EXPECT_EQ(a.default_group_perm, kPermSub);
  EXPECT_EQ(a.resource_perms.at("topicA"), kPermDeny);
  EXPECT_EQ(a.resource_perms.at("topicB"), kPermPub | kPermSub);
  EXPECT_EQ(a.resource_perms.at("topicC"), kPermSub);
  EXPECT_EQ(a.resource_perms.at("topicD"), kPermPub | kPermSub);
  EXPECT_EQ(a.resource_perms.at("topicE"), kPermDeny);  // an unknown word is DENY
  EXPECT_EQ(a.resource_perms.at("%RETRY%groupA"), kPermDeny);
  EXPECT_EQ(a.resource_perms.at("%RETRY%groupB"), kPermPub | kPermSub);
  const Account& admin = c.accounts.at("adminUser1");
  EXPECT_TRUE(admin.admin);
  EXPECT_FALSE(admin.has_resource_perms);
  EXPECT_TRUE(admin.white_remote_address.matches("192.168.1.7"));
  EXPECT_EQ(c.accounts.at("pubOnlyUser").default_group_perm, kPermDeny);  // absent: DENY
}

TEST(AclYaml, BadFilesNameFileLineAndKeyButNoSecret) {
  struct Case {
    std::string text;
    std::string expect;  // in the error
  };
  const std::vector<Case> cases = {
      {"accounts:\n  - accessKey: short\n    secretKey: 12345678\n", "plain_acl.yml:2: accessKey"},
      {"accounts:\n  - accessKey: longEnough\n    secretKey: s3cr\n", "plain_acl.yml:3: secretKey"},
      {"accounts:\n  - accessKey: longEnough\n    secretKey: 12345678\n    whiteRemoteAddress: 1.2.3\n",
       "plain_acl.yml:4: whiteRemoteAddress"},
      {"accounts:\n  - accessKey: longEnough\n    secretKey: 12345678\n    topicPerms:\n      - topicA\n",
       "plain_acl.yml:5: topicPerms"},
      {"accounts:\n  - accessKey: longEnough\n    secretKey: 12345678\n    admin: maybe\n", "plain_acl.yml:4: admin"},
      {"accounts:\n  - accessKey: longEnough\n    secretKey: 12345678\n  - accessKey: longEnough\n    secretKey: 87654321\n",
       "plain_acl.yml:4: accessKey: longEnough is listed twice"},
      {"accounts: [\n", "plain_acl.yml:"},
      {"accounts: 7\n", "plain_acl.yml:1: accounts"},
      {"globalWhiteRemoteAddresses: 1.2.3.4\n", "plain_acl.yml:1: globalWhiteRemoteAddresses"},
  };
  for (const Case& c : cases) {
    auto r = parse_acl_yaml(c.text, "plain_acl.yml");
    ASSERT_FALSE(r.ok()) << c.text;
    EXPECT_NE(r.error().detail.find(c.expect), std::string::npos) << r.error().detail;
    EXPECT_EQ(r.error().detail.find("s3cr"), std::string::npos) << r.error().detail;
  }
  EXPECT_TRUE(parse_acl_yaml("", "f").ok());  // an empty file: no account
  // YAML 1.1 booleans (RocketMQ reads the file with SnakeYAML).
  auto yes = parse_acl_yaml("accounts:\n  - accessKey: longEnough\n    secretKey: 12345678\n    admin: yes\n", "f");
  ASSERT_TRUE(yes.ok()) << yes.error().to_string();
  EXPECT_TRUE(yes->accounts.at("longEnough").admin);
}

RemotingCommand signed_request(std::int32_t code, ExtFields fields, std::string_view ak, std::string_view sk) {
  RemotingCommand r = make_request(code, 1);
  r.ext_fields = std::move(fields);
  sign(r, Credentials{std::string(ak), std::string(sk), std::nullopt});
  return r;
}

std::optional<std::string> check(const RemotingCommand& r, std::string_view host = "172.16.0.5") {
  static const AclConfig c = config();
  return check_access(c, broker_policy(), host, r);
}

TEST(AclCheck, SendNeedsPubOnTheTopic) {
  auto send = [](std::string topic, std::string ak = "RocketMQ", std::string sk = "12345678") {
    return signed_request(rc::SEND_MESSAGE_V2, ExtFields{{"a", "PID"}, {"b", topic}}, ak, sk);
  };
  EXPECT_EQ(check(send("topicB")), std::nullopt);
  auto denied = check(send("topicA"));
  ASSERT_TRUE(denied);
  EXPECT_EQ(*denied, "AclException: No permission PUB for topic:topicA, accessKey=RocketMQ has DENY");
  EXPECT_TRUE(check(send("topicC")));     // SUB only
  EXPECT_TRUE(check(send("unlisted")));   // defaultTopicPerm DENY
  EXPECT_TRUE(check(send("topicE")));     // an unknown word is DENY
  EXPECT_EQ(check(send("anything", "pubOnlyUser", "pubOnlySecret")), std::nullopt);
  // A batch is a send (RocketMQ 4.9 maps none; Ferry does).
  RemotingCommand batch = signed_request(rc::SEND_BATCH_MESSAGE, ExtFields{{"a", "PID"}, {"b", "topicA"}}, "RocketMQ", "12345678");
  EXPECT_TRUE(check(batch));
  // The old header names.
  RemotingCommand v1 = signed_request(rc::SEND_MESSAGE, ExtFields{{"producerGroup", "PID"}, {"topic", "topicA"}}, "RocketMQ", "12345678");
  EXPECT_TRUE(check(v1));
}

TEST(AclCheck, RetrySendAndSendBackNeedSubOnTheGroup) {
  auto retry = [](std::string group) {
    return signed_request(rc::SEND_MESSAGE_V2, ExtFields{{"a", group}, {"b", "%RETRY%" + group}}, "RocketMQ", "12345678");
  };
  EXPECT_EQ(check(retry("groupB")), std::nullopt);
  EXPECT_EQ(check(retry("anyGroup")), std::nullopt);  // defaultGroupPerm SUB
  auto denied = check(retry("groupA"));
  ASSERT_TRUE(denied);
  EXPECT_EQ(*denied, "AclException: No permission SUB for group:groupA, accessKey=RocketMQ has DENY");
  RemotingCommand back = signed_request(rc::CONSUMER_SEND_MSG_BACK, ExtFields{{"group", "groupA"}, {"offset", "1"}}, "RocketMQ", "12345678");
  EXPECT_TRUE(check(back));
}

TEST(AclCheck, PullOffsetsAndHeartbeatNeedSubOnGroupAndTopics) {
  auto pull = [](std::string group, std::string topic) {
    return signed_request(rc::PULL_MESSAGE, ExtFields{{"consumerGroup", group}, {"topic", topic}}, "RocketMQ", "12345678");
  };
  EXPECT_EQ(check(pull("groupB", "topicC")), std::nullopt);
  EXPECT_TRUE(check(pull("groupA", "topicC")));  // group DENY
  EXPECT_TRUE(check(pull("groupB", "topicA")));  // topic DENY
  EXPECT_TRUE(check(pull("groupB", "unlisted")));
  RemotingCommand offset = signed_request(rc::UPDATE_CONSUMER_OFFSET,
                                          ExtFields{{"consumerGroup", "groupB"}, {"topic", "topicA"}, {"queueId", "0"}},
                                          "RocketMQ", "12345678");
  auto refused = check(offset);
  ASSERT_TRUE(refused);
  EXPECT_NE(refused->find("topic:topicA"), std::string::npos);

  body::HeartbeatData hb;
  hb.client_id = "c1";
  body::ConsumerData cd;
  cd.group_name = "groupB";
  body::SubscriptionData sd;
  sd.topic = "topicC";
  sd.sub_string = "*";
  cd.subscription_data_set.push_back(sd);
  hb.consumer_data_set.push_back(cd);
  RemotingCommand beat = make_request(rc::HEART_BEAT, 1);
  beat.body = hb.encode();
  sign(beat, Credentials{"RocketMQ", "12345678", std::nullopt});
  EXPECT_EQ(check(beat), std::nullopt);
  hb.consumer_data_set[0].subscription_data_set[0].topic = "topicA";
  beat.body = hb.encode();
  sign(beat, Credentials{"RocketMQ", "12345678", std::nullopt});
  auto beat_refused = check(beat);
  ASSERT_TRUE(beat_refused);
  EXPECT_NE(beat_refused->find("topic:topicA"), std::string::npos);
  RemotingCommand garbage = make_request(rc::HEART_BEAT, 1);
  garbage.body = {'{', 'x'};
  sign(garbage, Credentials{"RocketMQ", "12345678", std::nullopt});
  ASSERT_TRUE(check(garbage));
}

TEST(AclCheck, PopAndItsAcksNeedSubOnGroupAndTopic) {
  auto pop = [](std::int32_t code, std::string group, std::string topic) {
    return signed_request(code, ExtFields{{"consumerGroup", group}, {"topic", topic}}, "RocketMQ", "12345678");
  };
  for (std::int32_t code : {rc::POP_MESSAGE, rc::ACK_MESSAGE, rc::CHANGE_MESSAGE_INVISIBLETIME}) {
    SCOPED_TRACE(code);
    EXPECT_EQ(check(pop(code, "groupB", "topicC")), std::nullopt);
    EXPECT_TRUE(check(pop(code, "groupA", "topicC")));  // group DENY
    EXPECT_TRUE(check(pop(code, "groupB", "topicA")));  // topic DENY
    // An ack of a retried message names the group's POP retry topic: the group's right decides.
    EXPECT_EQ(check(pop(code, "groupB", "%RETRY%groupB_topicA")), std::nullopt);
    EXPECT_TRUE(check(pop(code, "groupA", "%RETRY%groupA_topicC")));
  }
  body::BatchAckMessageRequestBody acks;
  acks.acks.push_back(body::BatchAck{.consumer_group = "groupB", .topic = "topicC", .retry = PopRetry::none,
                                     .start_offset = 0, .queue_id = 0, .revive_qid = 0, .pop_time = 1, .invisible_time = 1,
                                     .offsets = {0}});
  auto batch = [](const body::BatchAckMessageRequestBody& b) {
    RemotingCommand r = make_request(rc::BATCH_ACK_MESSAGE, 1);
    r.body = b.encode();
    sign(r, Credentials{"RocketMQ", "12345678", std::nullopt});
    return r;
  };
  EXPECT_EQ(check(batch(acks)), std::nullopt);
  acks.acks.back().topic = "topicA";
  auto refused = check(batch(acks));
  ASSERT_TRUE(refused);
  EXPECT_NE(refused->find("topic:topicA"), std::string::npos) << *refused;
  RemotingCommand garbage = make_request(rc::BATCH_ACK_MESSAGE, 1);
  garbage.body = {'{', 'x'};
  sign(garbage, Credentials{"RocketMQ", "12345678", std::nullopt});
  ASSERT_TRUE(check(garbage));
}

TEST(AclCheck, AdminCodesNeedAnAdminAccount) {
  for (std::int32_t code : {17, 25, 200, 207, 215}) {
    RemotingCommand r = signed_request(code, ExtFields{{"topic", "topicB"}}, "RocketMQ", "12345678");
    auto refused = check(r);
    ASSERT_TRUE(refused) << code;
    EXPECT_EQ(*refused, fmt::format("AclException: Need admin permission for request code={}, but accessKey=RocketMQ is not", code));
    RemotingCommand by_admin = signed_request(code, ExtFields{{"topic", "topicB"}}, "adminUser1", "adminSecret!");
    EXPECT_EQ(check(by_admin), std::nullopt) << code;  // an admin listing no perms has them all
  }
  // Any other code needs a valid signature only.
  RemotingCommand other = signed_request(rc::GET_MAX_OFFSET, ExtFields{{"topic", "topicA"}}, "RocketMQ", "12345678");
  EXPECT_EQ(check(other), std::nullopt);
}

TEST(AclCheck, KeysSignaturesAndWhitelistsInRocketMqOrder) {
  RemotingCommand unsigned_request = make_request(rc::UPDATE_AND_CREATE_TOPIC, 1);
  auto no_key = check(unsigned_request);
  ASSERT_TRUE(no_key);
  EXPECT_TRUE(no_key->starts_with("AclException: No accessKey is configured")) << *no_key;
  // The global whitelist passes without a key, admin codes included.
  EXPECT_EQ(check(unsigned_request, "10.10.103.9"), std::nullopt);
  RemotingCommand unknown = signed_request(rc::GET_MAX_OFFSET, {}, "NoSuchUser", "12345678");
  EXPECT_EQ(*check(unknown), "AclException: No acl config for accessKey=NoSuchUser");
  RemotingCommand wrong = signed_request(rc::GET_MAX_OFFSET, {}, "RocketMQ", "wrong-secret");
  EXPECT_EQ(*check(wrong), "AclException: Check signature failed for accessKey=RocketMQ");
  EXPECT_EQ(check(wrong).value().find("wrong-secret"), std::string::npos);
  RemotingCommand no_signature = make_request(rc::GET_MAX_OFFSET, 1);
  no_signature.ext_fields.set("AccessKey", "RocketMQ");
  EXPECT_TRUE(check(no_signature));
  // The account's whitelist skips the signature (and the permissions): only the key is needed.
  RemotingCommand from_white = make_request(rc::UPDATE_AND_CREATE_TOPIC, 1);
  from_white.ext_fields.set("AccessKey", "adminUser1");
  EXPECT_EQ(check(from_white, "192.168.1.44"), std::nullopt);
  EXPECT_TRUE(check(from_white, "192.168.2.44"));
  // Traces: a PUB on RMQ_SYS_TRACE_TOPIC passes whatever the topic's permission.
  RemotingCommand trace = signed_request(rc::SEND_MESSAGE_V2, ExtFields{{"a", "PID"}, {"b", "RMQ_SYS_TRACE_TOPIC"}}, "RocketMQ", "12345678");
  EXPECT_EQ(check(trace), std::nullopt);
}

TEST(AclCheck, NameServerGuardsOnlyItsWriteCodes) {
  const AclConfig c = config();
  const AclPolicy p = namesrv_policy();
  RemotingCommand route = make_request(rc::GET_ROUTEINFO_BY_TOPIC, 1);
  EXPECT_EQ(check_access(c, p, "172.16.0.5", route), std::nullopt);
  for (std::int32_t code : {100, 102, 103, 104, 205, 216, 327}) {
    RemotingCommand raw = make_request(code, 1);
    EXPECT_TRUE(check_access(c, p, "172.16.0.5", raw)) << code;
    RemotingCommand user = signed_request(code, {}, "RocketMQ", "12345678");
    EXPECT_TRUE(check_access(c, p, "172.16.0.5", user)) << code;
    RemotingCommand admin = signed_request(code, {}, "adminUser1", "adminSecret!");
    EXPECT_EQ(check_access(c, p, "172.16.0.5", admin), std::nullopt) << code;
  }
}

TEST(AclSignature, SecurityTokenIsSignedLikeAnyField) {
  RemotingCommand r = make_request(rc::GET_MAX_OFFSET, 1);
  r.ext_fields.set("topic", "T");
  sign(r, Credentials{"RocketMQ", "12345678", std::string("tok-1")});
  EXPECT_EQ(*r.ext_fields.find(kSecurityTokenField), "tok-1");
  EXPECT_EQ(*r.ext_fields.find(kSignatureField), hmac_sha1_base64("RocketMQtok-1T", "12345678"));
  RemotingCommand other_token = r;
  other_token.ext_fields.set(kSecurityTokenField, "tok-2");
  EXPECT_FALSE(signature_matches(other_token, *r.ext_fields.find(kSignatureField), "12345678"));
  // Signing again replaces the old signature instead of signing it.
  const std::string first = *r.ext_fields.find(kSignatureField);
  sign(r, Credentials{"RocketMQ", "12345678", std::string("tok-1")});
  EXPECT_EQ(*r.ext_fields.find(kSignatureField), first);
}

// End to end in the simulator: a server guarding dispatch with AccessControl, clients that sign
// through the outgoing hook (with the right or a wrong secret) and one that does not.
constexpr std::int32_t kAdminEcho = rc::UPDATE_AND_CREATE_TOPIC;

class GuardedServer {
 public:
  explicit GuardedServer(Runtime& rt)
      : acl_(rt, rt.fs(), "plain_acl.yml", "plain_acl.yml", broker_policy()), server_(rt) {
    auto f = rt.fs().open("plain_acl.yml", OpenOptions{.create = true, .truncate = true});
    EXPECT_TRUE(f.ok());
    EXPECT_TRUE((*f)->pwrite(0, as_bytes(kYaml)).ok());
    EXPECT_TRUE(acl_.load().ok());
    server_.set_request_guard([this](const Channel& ch, const RemotingCommand& r) { return acl_.check(ch.peer().host, r); });
    server_.register_processor(kAdminEcho, [this](RequestContext ctx) { return served(this, std::move(ctx)); });
    Status s = server_.start(Endpoint{rt.network().host(), 10911});
    EXPECT_TRUE(s.ok());
  }
  static int served_count;

 private:
  static Task<std::optional<RemotingCommand>> served(GuardedServer*, RequestContext ctx) {
    ++served_count;
    co_return make_response(ctx.request, response_code::SUCCESS);
  }
  AccessControl acl_;
  RpcServer server_;
};
int GuardedServer::served_count = 0;

struct CallOutcome {
  int code = -1;
  std::string remark;
};

Task<CallOutcome> call_admin(RpcClient* client, std::string addr, bool oneway) {
  RemotingCommand r = make_request(kAdminEcho, 0);
  r.ext_fields.set("topic", "T1");
  if (oneway) {
    Status s = co_await client->invoke_oneway(addr, std::move(r));
    co_return CallOutcome{s.ok() ? 0 : -1, ""};
  }
  Result<RemotingCommand> reply = co_await client->invoke(addr, std::move(r), std::chrono::seconds(3));
  if (!reply.ok()) co_return CallOutcome{-1, reply.error().to_string()};
  co_return CallOutcome{reply->code, reply->remark.value_or("")};
}

TEST(AclEndToEnd, SignedClientsAreServedOthersRefusedAtDispatch) {
  GuardedServer::served_count = 0;
  sim::World world(sim::WorldOptions{});
  const sim::NodeId server = world.add_node("broker", [](Runtime& rt) { return sim::hosted(std::make_unique<GuardedServer>(rt)); });
  const sim::NodeId client_node = world.add_node("client");
  world.run_for(std::chrono::milliseconds(10));
  const std::string addr = world.net().host_of(server) + ":10911";
  std::vector<std::unique_ptr<RpcClient>> clients;  // destroyed after the node's tasks (kill below)
  auto run = [&](std::optional<Credentials> creds, bool oneway = false) {
    clients.push_back(std::make_unique<RpcClient>(world.node(client_node)));
    RpcClient& client = *clients.back();
    if (creds) client.set_outgoing_hook([c = *creds](RemotingCommand& r) { sign(r, c); });
    auto r = world.run_task(client_node, call_admin(&client, addr, oneway), std::chrono::minutes(1));
    world.run_for(std::chrono::milliseconds(100));
    client.shutdown();
    EXPECT_TRUE(r.ok()) << r.report.message;
    return r.value.value_or(CallOutcome{});
  };
  const CallOutcome admin = run(Credentials{"adminUser1", "adminSecret!", std::nullopt});
  EXPECT_EQ(admin.code, response_code::SUCCESS) << admin.remark;
  EXPECT_EQ(GuardedServer::served_count, 1);
  const CallOutcome wrong = run(Credentials{"adminUser1", "not-the-secret", std::nullopt});
  EXPECT_EQ(wrong.code, response_code::SYSTEM_ERROR);
  EXPECT_EQ(wrong.remark, "AclException: Check signature failed for accessKey=adminUser1");
  const CallOutcome user = run(Credentials{"RocketMQ", "12345678", std::nullopt});
  EXPECT_EQ(user.code, response_code::SYSTEM_ERROR);
  EXPECT_TRUE(user.remark.starts_with("AclException: Need admin permission for request code=17")) << user.remark;
  const CallOutcome none = run(std::nullopt);
  EXPECT_EQ(none.code, response_code::SYSTEM_ERROR);
  EXPECT_TRUE(none.remark.starts_with("AclException: No accessKey is configured")) << none.remark;
  // A refused oneway request is dropped: its processor never runs.
  (void)run(std::nullopt, /*oneway=*/true);
  EXPECT_EQ(GuardedServer::served_count, 1);
  (void)run(Credentials{"adminUser1", "adminSecret!", std::nullopt}, /*oneway=*/true);
  EXPECT_EQ(GuardedServer::served_count, 2);
  world.kill(client_node);
}

// The watcher on a simulated node: virtual time, the node's simulated disk.
class AclReload : public ::testing::Test {
 protected:
  void SetUp() override {
    world_ = std::make_unique<sim::World>(sim::WorldOptions{});
    node_ = world_->add_node("broker");
  }
  void TearDown() override {
    acl_.reset();
    world_.reset();
  }
  Runtime& rt() { return world_->node(node_); }
  void write(std::string_view text) {
    auto f = rt().fs().open("plain_acl.yml", OpenOptions{.create = true, .truncate = true});
    ASSERT_TRUE(f.ok());
    ASSERT_TRUE((*f)->pwrite(0, as_bytes(text)).ok());
  }
  std::unique_ptr<sim::World> world_;
  sim::NodeId node_{};
  std::unique_ptr<AccessControl> acl_;
};

constexpr std::string_view kOneAccount = "accounts:\n  - accessKey: firstUser\n    secretKey: firstSecret\n    admin: true\n";
constexpr std::string_view kTwoAccounts =
    "accounts:\n  - accessKey: firstUser\n    secretKey: firstSecret\n    admin: true\n"
    "  - accessKey: secondUser\n    secretKey: secondSecret\n    admin: true\n";

TEST_F(AclReload, MissingFileIsAnErrorAtStart) {
  acl_ = std::make_unique<AccessControl>(rt(), rt().fs(), "plain_acl.yml", "conf/plain_acl.yml", broker_policy());
  Status s = acl_->load();
  ASSERT_FALSE(s.ok());
  EXPECT_TRUE(s.error().is(Errc::not_found)) << s.error().to_string();
  EXPECT_NE(s.error().detail.find("conf/plain_acl.yml"), std::string::npos);
}

TEST_F(AclReload, AChangeIsPickedUpAndABadFileKeepsTheLastGood) {
  write(kOneAccount);
  acl_ = std::make_unique<AccessControl>(rt(), rt().fs(), "plain_acl.yml", "plain_acl.yml", broker_policy());
  ASSERT_TRUE(acl_->load().ok());
  acl_->start_watching();
  EXPECT_EQ(acl_->config().accounts.size(), 1u);
  RemotingCommand second = signed_request(rc::UPDATE_AND_CREATE_TOPIC, {}, "secondUser", "secondSecret");
  EXPECT_TRUE(acl_->check("1.2.3.4", second));

  write(kTwoAccounts);
  world_->run_for(std::chrono::seconds(4));
  EXPECT_EQ(acl_->config().accounts.size(), 1u);  // not before the next poll
  world_->run_for(std::chrono::seconds(2));
  EXPECT_EQ(acl_->config().accounts.size(), 2u);
  EXPECT_EQ(acl_->reloads(), 2u);
  EXPECT_EQ(acl_->check("1.2.3.4", second), std::nullopt);

  write("accounts:\n  - accessKey: x\n");  // bad: keeps the two accounts
  world_->run_for(std::chrono::seconds(6));
  EXPECT_EQ(acl_->config().accounts.size(), 2u);
  EXPECT_EQ(acl_->reloads(), 2u);
  EXPECT_EQ(acl_->check("1.2.3.4", second), std::nullopt);

  ASSERT_TRUE(rt().fs().remove("plain_acl.yml").ok());  // missing: keeps them too
  world_->run_for(std::chrono::seconds(6));
  EXPECT_EQ(acl_->config().accounts.size(), 2u);

  write(kOneAccount);  // good again
  world_->run_for(std::chrono::seconds(6));
  EXPECT_EQ(acl_->config().accounts.size(), 1u);
  EXPECT_TRUE(acl_->check("1.2.3.4", second));
  EXPECT_EQ(acl_->reloads(), 3u);

  acl_->stop();
  write(kTwoAccounts);
  world_->run_for(std::chrono::seconds(12));
  EXPECT_EQ(acl_->config().accounts.size(), 1u);  // stopped: no more polls
}

}  // namespace
}  // namespace ferry::remoting::acl
