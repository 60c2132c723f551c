// TlsContexts: the OpenSSL contexts a node's network uses, built once from TlsOptions.
//
// server: present unless the server mode is disabled; holds the certificate chain and key, and
// the client-certificate policy (tls.server.need.client.auth). client: present when
// tls.client.enable; verifies the server's chain against trustCertPath (or the system's CAs)
// when authServer, and offers a client certificate when certPath is set. Minimum protocol TLS 1.2.
// Host names are not checked (RocketMQ addresses are IPs; RocketMQ does not check them either).
// Internal to the Asio runtime; built on the loop thread before any connection exists.
#pragma once

#include <boost/asio/ssl/context.hpp>

#include <memory>
#include <optional>

#include "runtime/asio/tls_options.h"

namespace ferry::asio_rt {

struct TlsContexts {
  TlsServerMode server_mode = TlsServerMode::disabled;
  // The server's handshake bounds (TlsServerOptions; each listener makes a HandshakeGate of them).
  Duration handshake_timeout = std::chrono::seconds(10);
  std::size_t handshakes_max = 1024;
  // The client checks the server's certificate names the host it dialled (TlsClientOptions).
  bool client_verify_hostname = false;
  std::optional<boost::asio::ssl::context> server;
  std::optional<boost::asio::ssl::context> client;

  // Errors: see check_tls_options (tls_options.h).
  static Result<std::shared_ptr<TlsContexts>> load(const TlsOptions& options);
};

// The node's current contexts, shared by its network and listeners: a reload (new certificate
// files) replaces `current`, and every accept and connect from then on uses the new one, while
// connections made before keep the contexts they were made with. Loop thread only.
struct TlsHolder {
  std::shared_ptr<TlsContexts> current;
};

}  // namespace ferry::asio_rt
