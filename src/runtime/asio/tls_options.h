// TLS settings of the production runtime (AsioRuntime::Options::tls), with the names of
// RocketMQ's TlsSystemConfig keys beside each field (daemon/tls_keys.h reads them from
// properties files). The simulator has no TLS: its streams stay plain.
//
// Server side, applied to every Listener of the node (the remoting port and the HA port alike),
// decided per connection by the first byte the client sends (a TLS handshake record starts with
// 0x16; a RocketMQ frame starts with the high byte of its length, at most 0x01 for the 16 MiB
// frames Ferry accepts, and an HA slave's first report with the high byte of an 8-byte offset):
//   disabled    plain only; a connection that opens with a TLS handshake is logged and closed.
//   permissive  both: TLS when the first byte is 0x16, plain otherwise.
//   enforcing   TLS only; a plain connection is logged and closed.
// Client side, applied to every Network::connect of the node: plain unless `enable`.
//
// Ferry is stricter than RocketMQ: TLS is off until configured (there is no self-signed test
// certificate: permissive and enforcing need certPath and keyPath), and files that cannot be
// loaded are an error at start-up (check_tls_options), never a silent fallback.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/result.h"
#include "runtime/time.h"

namespace ferry {

enum class TlsServerMode : std::uint8_t { disabled, permissive, enforcing };
enum class TlsClientAuth : std::uint8_t { none, optional, require };

// "disabled" / "permissive" / "enforcing" (RocketMQ's names, lower case).
std::string_view tls_server_mode_name(TlsServerMode mode);
std::optional<TlsServerMode> parse_tls_server_mode(std::string_view text);
// "none" / "optional" / "require".
std::string_view tls_client_auth_name(TlsClientAuth auth);
std::optional<TlsClientAuth> parse_tls_client_auth(std::string_view text);

struct TlsServerOptions {
  TlsServerMode mode = TlsServerMode::disabled;  // tls.server.mode
  TlsClientAuth need_client_auth = TlsClientAuth::none;  // tls.server.need.client.auth
  std::string key_path;         // tls.server.keyPath: PEM private key (required unless disabled)
  std::string key_password;     // tls.server.keyPassword: for an encrypted key; empty: none
  std::string cert_path;        // tls.server.certPath: PEM certificate chain (required unless disabled)
  std::string trust_cert_path;  // tls.server.trustCertPath: PEM CAs that sign client certificates
                                // (required when need_client_auth is not none)
  // (Ferry's keys; RocketMQ has none, and Netty's SslHandler gives up a handshake after 10 s.)
  // From accept until the connection is known plain or its handshake is done: longer closes it.
  Duration handshake_timeout = std::chrono::seconds(10);  // tls.server.handshakeTimeoutMillis
  // Connections counted in that window at once; one accepted beyond is closed at once.
  std::size_t handshakes_max = 1024;  // tls.server.handshakesMax
};

struct TlsClientOptions {
  bool enable = false;          // tls.enable
  bool auth_server = false;     // tls.client.authServer: verify the server's certificate chain
  std::string key_path;         // tls.client.keyPath: client certificate's key (optional, with certPath)
  std::string key_password;     // tls.client.keyPassword
  std::string cert_path;        // tls.client.certPath
  std::string trust_cert_path;  // tls.client.trustCertPath: PEM CAs; empty: the system's CAs
  // (Ferry's key; RocketMQ checks no names.) With authServer: the server's certificate must also
  // name the address dialled (an iPAddress subjectAltName for an IP, a DNS name otherwise), so a
  // certificate the CA signed for another host is refused.
  bool verify_hostname = false;  // tls.client.verifyHostname
};

struct TlsOptions {
  TlsServerOptions server;
  TlsClientOptions client;
};

// What the server does with a new connection, given the mode and the first byte the client sent.
enum class TlsAdmission : std::uint8_t { plain, tls, refuse_tls, refuse_plain };
inline constexpr std::uint8_t kTlsHandshakeRecordType = 0x16;  // TLS record type "handshake"
TlsAdmission admit_connection(TlsServerMode mode, std::uint8_t first_byte);

// Loads every certificate and key the options name, as the runtime will. Errors
// (invalid_argument) name the key and the file: "tls.server.certPath: cannot load certificate
// chain 'x.pem': No such file or directory", or a missing required key. Daemons call this before
// constructing the runtime so that a bad file is a clear start-up failure; AsioRuntime's
// constructor asserts the same check.
Status check_tls_options(const TlsOptions& options);

}  // namespace ferry
