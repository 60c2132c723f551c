// RocketMQ's tls.* keys onto the Asio runtime's TlsOptions (daemon/tls_keys.h), without sockets
// or certificates that load. The options' own checks and the server's choice by first byte are
// tests/runtime/asio/tls_options_test.cc.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "daemon/tls_keys.h"
#include "runtime/asio/tls_options.h"

namespace ferry::daemon {
namespace {

struct Parsed {
  Status status;
  TlsOptions tls;
  std::string config_file;
  std::vector<std::string> warnings;
};

Parsed parse(const std::string& text) {
  Parsed p;
  auto file = parse_properties(text, "tls.conf");
  EXPECT_TRUE(file.ok()) << file.error().detail;
  ConfigBinder b;
  bind_tls_keys(b, p.tls, p.config_file);
  auto applied = b.apply(*file);
  if (!applied) {
    p.status = std::move(applied).error();
  } else {
    p.warnings = applied->warnings;
  }
  return p;
}

TEST(TlsKeysTest, RocketMqKeyNamesMapOntoTheOptions) {
  Parsed p = parse(
      "tls.server.mode=enforcing\n"
      "tls.server.need.client.auth=require\n"
      "tls.server.keyPath=/k/server.key\n"
      "tls.server.keyPassword=secret\n"
      "tls.server.certPath=/k/server.pem\n"
      "tls.server.trustCertPath=/k/ca.pem\n"
      "tls.enable=true\n"
      "tls.client.authServer=true\n"
      "tls.client.keyPath=/k/client.key\n"
      "tls.client.keyPassword=pw\n"
      "tls.client.certPath=/k/client.pem\n"
      "tls.client.trustCertPath=/k/client-ca.pem\n"
      "tls.config.file=/etc/rocketmq/tls.properties\n"
      "tls.test.mode.enable=false\n");
  ASSERT_TRUE(p.status.ok()) << p.status.error().detail;
  EXPECT_EQ(p.tls.server.mode, TlsServerMode::enforcing);
  EXPECT_EQ(p.tls.server.need_client_auth, TlsClientAuth::require);
  EXPECT_EQ(p.tls.server.key_path, "/k/server.key");
  EXPECT_EQ(p.tls.server.key_password, "secret");
  EXPECT_EQ(p.tls.server.cert_path, "/k/server.pem");
  EXPECT_EQ(p.tls.server.trust_cert_path, "/k/ca.pem");
  EXPECT_TRUE(p.tls.client.enable);
  EXPECT_TRUE(p.tls.client.auth_server);
  EXPECT_EQ(p.tls.client.key_path, "/k/client.key");
  EXPECT_EQ(p.tls.client.key_password, "pw");
  EXPECT_EQ(p.tls.client.cert_path, "/k/client.pem");
  EXPECT_EQ(p.tls.client.trust_cert_path, "/k/client-ca.pem");
  EXPECT_EQ(p.config_file, "/etc/rocketmq/tls.properties");
  EXPECT_TRUE(p.warnings.empty()) << p.warnings.front();
}

TEST(TlsKeysTest, DefaultsAreOff) {
  Parsed p = parse("");
  ASSERT_TRUE(p.status.ok());
  EXPECT_EQ(p.tls.server.mode, TlsServerMode::disabled);
  EXPECT_EQ(p.tls.server.need_client_auth, TlsClientAuth::none);
  EXPECT_FALSE(p.tls.client.enable);
  EXPECT_FALSE(p.tls.client.auth_server);
  EXPECT_TRUE(check_tls_options(p.tls).ok());  // nothing to load
}

TEST(TlsKeysTest, BadValuesNameFileLineAndKey) {
  Parsed p = parse("listenPort=1\ntls.server.mode=strict\n");
  ASSERT_FALSE(p.status.ok());
  EXPECT_EQ(p.status.error().detail,
            "tls.conf:2: tls.server.mode: \"strict\" is not one of disabled / permissive / enforcing");
  p = parse("tls.server.need.client.auth=REQUIRE\n");
  ASSERT_FALSE(p.status.ok());
  EXPECT_EQ(p.status.error().detail,
            "tls.conf:1: tls.server.need.client.auth: \"REQUIRE\" is not one of none / optional / require");
  p = parse("tls.enable=yes\n");
  ASSERT_FALSE(p.status.ok());
  EXPECT_NE(p.status.error().detail.find("tls.conf:1: tls.enable:"), std::string::npos) << p.status.error().detail;
  p = parse("tls.test.mode.enable=true\n");
  ASSERT_FALSE(p.status.ok());
  EXPECT_NE(p.status.error().detail.find("Ferry has no test mode"), std::string::npos) << p.status.error().detail;
}

TEST(TlsKeysTest, AuthClientIsAcceptedWithAWarning) {
  Parsed p = parse("tls.server.authClient=true\n");
  ASSERT_TRUE(p.status.ok()) << p.status.error().detail;
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_NE(p.warnings[0].find("tls.server.authClient"), std::string::npos) << p.warnings[0];
}

TEST(TlsKeysTest, FinishTlsNamesAMissingConfigFile) {
  TlsOptions tls;
  std::vector<std::string> warnings;
  Status s = finish_tls(tls, "/no/such/tls.properties", warnings);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().detail.find("tls.config.file: "), std::string::npos) << s.error().detail;
  EXPECT_NE(s.error().detail.find("/no/such/tls.properties"), std::string::npos) << s.error().detail;
}

}  // namespace
}  // namespace ferry::daemon
