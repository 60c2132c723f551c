#include "runtime/asio/tls_contexts.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include <openssl/ssl.h>

namespace ferry::asio_rt {

namespace ssl = boost::asio::ssl;
using boost::system::error_code;

namespace {

// "{key}: cannot {what} '{path}': {why}". An unreadable file says so in the OS's words before
// OpenSSL gets to say something vaguer.
Status check_readable(std::string_view key, std::string_view what, const std::string& path) {
  std::ifstream in(path);
  if (!in) return Error(Errc::invalid_argument, fmt::format("{}: cannot {} '{}': {}", key, what, path, std::strerror(errno)));
  return Status();
}

Status loaded(std::string_view key, std::string_view what, const std::string& path, const error_code& ec) {
  if (!ec) return Status();
  return Error(Errc::invalid_argument, fmt::format("{}: cannot {} '{}': {}", key, what, path, ec.message()));
}

Status require(std::string_view key, const std::string& value, std::string_view because) {
  if (!value.empty()) return Status();
  return Error(Errc::invalid_argument, fmt::format("{} is required {}", key, because));
}

struct KeyNames {
  const char* cert;
  const char* key;
  const char* password;
  const char* trust;
};

// The certificate chain and its key (the key decrypted with `password` when one is set), then
// whether they belong together.
Status load_identity(ssl::context& ctx, const KeyNames& names, const std::string& cert, const std::string& key,
                     const std::string& password) {
  FERRY_TRY(check_readable(names.cert, "read certificate chain", cert));
  FERRY_TRY(check_readable(names.key, "read private key", key));
  error_code ec;
  ctx.set_password_callback([password](std::size_t, ssl::context::password_purpose) { return password; }, ec);
  ctx.use_certificate_chain_file(cert, ec);
  FERRY_TRY(loaded(names.cert, "load certificate chain", cert, ec));
  ctx.use_private_key_file(key, ssl::context::pem, ec);
  const std::string why = ec ? ec.message() : std::string();
  if (!ec && ::SSL_CTX_check_private_key(ctx.native_handle()) == 1) return Status();
  if (!ec || why.find("mismatch") != std::string::npos) {
    return Error(Errc::invalid_argument,
                 fmt::format("{}: the private key '{}' does not match the certificate '{}' ({})", names.key, key, cert, names.cert));
  }
  if (why.find("decrypt") != std::string::npos || why.find("password") != std::string::npos) {
    return Error(Errc::invalid_argument, fmt::format("{}: cannot decrypt private key '{}' with {} ({}): {}", names.key, key,
                                                     names.password, password.empty() ? "none given" : "the one given", why));
  }
  return loaded(names.key, "load private key", key, ec);
}

Status load_trust(ssl::context& ctx, const char* name, const std::string& path) {
  FERRY_TRY(check_readable(name, "read trusted certificates", path));
  error_code ec;
  ctx.load_verify_file(path, ec);
  return loaded(name, "load trusted certificates", path, ec);
}

constexpr ssl::context::options kOptions =
    ssl::context::default_workarounds | ssl::context::no_sslv2 | ssl::context::no_sslv3 | ssl::context::no_tlsv1 |
    ssl::context::no_tlsv1_1 | ssl::context::single_dh_use;

Result<ssl::context> server_context(const TlsServerOptions& o) {
  constexpr KeyNames names{"tls.server.certPath", "tls.server.keyPath", "tls.server.keyPassword", "tls.server.trustCertPath"};
  const std::string because = fmt::format("when tls.server.mode is {} (Ferry has no built-in test certificate)",
                                          tls_server_mode_name(o.mode));
  FERRY_TRY(require(names.cert, o.cert_path, because));
  FERRY_TRY(require(names.key, o.key_path, because));
  ssl::context ctx(ssl::context::tls_server);
  ctx.set_options(kOptions);
  FERRY_TRY(load_identity(ctx, names, o.cert_path, o.key_path, o.key_password));
  if (o.need_client_auth == TlsClientAuth::none) {
    ctx.set_verify_mode(ssl::verify_none);
    return ctx;
  }
  FERRY_TRY(require(names.trust, o.trust_cert_path,
                    fmt::format("when tls.server.need.client.auth is {}", tls_client_auth_name(o.need_client_auth))));
  FERRY_TRY(load_trust(ctx, names.trust, o.trust_cert_path));
  ctx.set_verify_mode(o.need_client_auth == TlsClientAuth::require ? ssl::verify_peer | ssl::verify_fail_if_no_peer_cert
                                                                   : ssl::verify_peer);
  return ctx;
}

Result<ssl::context> client_context(const TlsClientOptions& o) {
  constexpr KeyNames names{"tls.client.certPath", "tls.client.keyPath", "tls.client.keyPassword", "tls.client.trustCertPath"};
  ssl::context ctx(ssl::context::tls_client);
  ctx.set_options(kOptions);
  if (!o.cert_path.empty() || !o.key_path.empty()) {
    FERRY_TRY(require(names.cert, o.cert_path, "together with tls.client.keyPath"));
    FERRY_TRY(require(names.key, o.key_path, "together with tls.client.certPath"));
    FERRY_TRY(load_identity(ctx, names, o.cert_path, o.key_path, o.key_password));
  }
  if (!o.auth_server) {
    if (o.verify_hostname) {
      return Error(Errc::invalid_argument,
                   "tls.client.verifyHostname: needs tls.client.authServer=true (a name is only worth checking on a "
                   "verified certificate)");
    }
    ctx.set_verify_mode(ssl::verify_none);
    return ctx;
  }
  if (o.trust_cert_path.empty()) {
    error_code ec;
    ctx.set_default_verify_paths(ec);
    if (ec) return Error(Errc::invalid_argument, "tls.client.authServer: cannot load the system's CA certificates: " + ec.message());
  } else {
    FERRY_TRY(load_trust(ctx, names.trust, o.trust_cert_path));
  }
  ctx.set_verify_mode(ssl::verify_peer);
  return ctx;
}

}  // namespace

Result<std::shared_ptr<TlsContexts>> TlsContexts::load(const TlsOptions& options) {
  auto out = std::make_shared<TlsContexts>();
  out->server_mode = options.server.mode;
  out->handshake_timeout = options.server.handshake_timeout;
  out->handshakes_max = options.server.handshakes_max;
  out->client_verify_hostname = options.client.enable && options.client.verify_hostname;
  if (options.server.mode != TlsServerMode::disabled) {
    auto ctx = server_context(options.server);
    if (!ctx) return std::move(ctx).error();
    out->server.emplace(std::move(*ctx));
  }
  if (options.client.enable) {
    auto ctx = client_context(options.client);
    if (!ctx) return std::move(ctx).error();
    out->client.emplace(std::move(*ctx));
  }
  return out;
}

}  // namespace ferry::asio_rt
