#include "daemon/tls_keys.h"

#include <fmt/format.h>

namespace ferry::daemon {

namespace {

void bind_tls_values(ConfigBinder& b, TlsOptions& tls) {
  b.bind("tls.server.mode", [&tls](std::string_view v) -> Status {
    auto mode = parse_tls_server_mode(v);
    if (!mode) return Error(Errc::invalid_argument, fmt::format("\"{}\" is not one of disabled / permissive / enforcing", v));
    tls.server.mode = *mode;
    return Status();
  });
  b.bind("tls.server.need.client.auth", [&tls](std::string_view v) -> Status {
    auto auth = parse_tls_client_auth(v);
    if (!auth) return Error(Errc::invalid_argument, fmt::format("\"{}\" is not one of none / optional / require", v));
    tls.server.need_client_auth = *auth;
    return Status();
  });
  b.bind_string("tls.server.keyPath", tls.server.key_path, true);
  b.bind_string("tls.server.keyPassword", tls.server.key_password, true);
  b.bind_string("tls.server.certPath", tls.server.cert_path, true);
  b.bind_string("tls.server.trustCertPath", tls.server.trust_cert_path, true);
  b.bind_ms("tls.server.handshakeTimeoutMillis", tls.server.handshake_timeout, 100, 600'000);
  b.bind_int("tls.server.handshakesMax", tls.server.handshakes_max, 1, 1 << 20);
  b.bind_bool("tls.enable", tls.client.enable);
  b.bind_bool("tls.client.authServer", tls.client.auth_server);
  b.bind_bool("tls.client.verifyHostname", tls.client.verify_hostname);
  b.bind_string("tls.client.keyPath", tls.client.key_path, true);
  b.bind_string("tls.client.keyPassword", tls.client.key_password, true);
  b.bind_string("tls.client.certPath", tls.client.cert_path, true);
  b.bind_string("tls.client.trustCertPath", tls.client.trust_cert_path, true);
  b.bind("tls.test.mode.enable", [](std::string_view v) -> Status {
    auto on = parse_bool(v);
    if (!on) return std::move(on).error();
    if (*on) {
      return Error(Errc::invalid_argument,
                   "Ferry has no test mode (no self-signed certificate): set it to false and give tls.server.certPath "
                   "and tls.server.keyPath");
    }
    return Status();
  });
  b.ignore("tls.server.authClient",
           "Ferry verifies client certificates exactly when tls.server.need.client.auth is optional or require");
}

}  // namespace

void watch_tls_files(AsioRuntime& rt, const TlsOptions& tls) {
  if (tls.server.mode == TlsServerMode::disabled && !tls.client.enable) return;
  rt.watch_tls(kTlsWatchPeriod);
  rt.on_reload_signal();
}

void bind_tls_keys(ConfigBinder& b, TlsOptions& tls, std::string& config_file) {
  bind_tls_values(b, tls);
  b.bind_string("tls.config.file", config_file, true);
}

Status finish_tls(TlsOptions& tls, const std::string& path, std::vector<std::string>& warnings) {
  if (!path.empty()) {
    auto file = read_properties(path);
    if (!file) return Error(file.error().code, "tls.config.file: " + file.error().detail);
    ConfigBinder b;
    bind_tls_values(b, tls);
    b.ignore("tls.config.file", "a TLS config file cannot name another one");
    auto applied = b.apply(*file);
    if (!applied) return std::move(applied).error();
    warnings.insert(warnings.end(), applied->warnings.begin(), applied->warnings.end());
  }
  return check_tls_options(tls);
}

}  // namespace ferry::daemon
