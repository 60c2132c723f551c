// The Asio runtime's TLS options (runtime/asio/tls_options.h) without sockets: the server's choice
// by a connection's first byte in each tls.server.mode, and check_tls_options() naming the key of
// a file that is missing or does not load.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "runtime/asio/tls_options.h"

namespace ferry {
namespace {

TEST(TlsAdmissionTest, TheFirstByteDecidesPerMode) {
  constexpr std::uint8_t kHello = kTlsHandshakeRecordType;
  constexpr std::uint8_t kFrame = 0x00;  // a RocketMQ frame: the length's high byte
  EXPECT_EQ(admit_connection(TlsServerMode::disabled, kHello), TlsAdmission::refuse_tls);
  EXPECT_EQ(admit_connection(TlsServerMode::disabled, kFrame), TlsAdmission::plain);
  EXPECT_EQ(admit_connection(TlsServerMode::permissive, kHello), TlsAdmission::tls);
  EXPECT_EQ(admit_connection(TlsServerMode::permissive, kFrame), TlsAdmission::plain);
  EXPECT_EQ(admit_connection(TlsServerMode::enforcing, kHello), TlsAdmission::tls);
  EXPECT_EQ(admit_connection(TlsServerMode::enforcing, kFrame), TlsAdmission::refuse_plain);
  // Any byte other than the handshake record type is plain, e.g. a TLS alert (0x15) or "G" of HTTP.
  EXPECT_EQ(admit_connection(TlsServerMode::enforcing, 0x15), TlsAdmission::refuse_plain);
  EXPECT_EQ(admit_connection(TlsServerMode::permissive, 'G'), TlsAdmission::plain);
}

TEST(TlsOptionsCheckTest, ServingTlsNeedsACertificateAndAKey) {
  TlsOptions tls;
  tls.server.mode = TlsServerMode::permissive;
  Status s = check_tls_options(tls);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().detail,
            "tls.server.certPath is required when tls.server.mode is permissive (Ferry has no built-in test certificate)");
  tls.server.cert_path = "/no/such/dir/server.pem";
  tls.server.key_path = "/no/such/dir/server.key";
  s = check_tls_options(tls);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().detail,
            "tls.server.certPath: cannot read certificate chain '/no/such/dir/server.pem': No such file or directory");
}

TEST(TlsOptionsCheckTest, ClientFilesAreCheckedOnlyWhenTlsIsEnabled) {
  TlsOptions tls;
  tls.client.auth_server = true;
  tls.client.trust_cert_path = "/no/such/ca.pem";
  EXPECT_TRUE(check_tls_options(tls).ok());  // tls.enable is false: nothing is loaded
  tls.client.enable = true;
  Status s = check_tls_options(tls);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().detail,
            "tls.client.trustCertPath: cannot read trusted certificates '/no/such/ca.pem': No such file or directory");
  tls.client.trust_cert_path.clear();
  tls.client.cert_path = "/no/such/client.pem";
  s = check_tls_options(tls);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().detail, "tls.client.keyPath is required together with tls.client.certPath");
}

}  // namespace
}  // namespace ferry
