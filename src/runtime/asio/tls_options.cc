#include "runtime/asio/tls_options.h"

#include "runtime/asio/tls_contexts.h"
#include "runtime/assert.h"

namespace ferry {

std::string_view tls_server_mode_name(TlsServerMode mode) {
  switch (mode) {
    case TlsServerMode::disabled: return "disabled";
    case TlsServerMode::permissive: return "permissive";
    case TlsServerMode::enforcing: return "enforcing";
  }
  FERRY_ASSERT(false, "TlsServerMode {} has no name", static_cast<int>(mode));
  return {};
}

std::optional<TlsServerMode> parse_tls_server_mode(std::string_view text) {
  for (TlsServerMode m : {TlsServerMode::disabled, TlsServerMode::permissive, TlsServerMode::enforcing}) {
    if (text == tls_server_mode_name(m)) return m;
  }
  return std::nullopt;
}

std::string_view tls_client_auth_name(TlsClientAuth auth) {
  switch (auth) {
    case TlsClientAuth::none: return "none";
    case TlsClientAuth::optional: return "optional";
    case TlsClientAuth::require: return "require";
  }
  FERRY_ASSERT(false, "TlsClientAuth {} has no name", static_cast<int>(auth));
  return {};
}

std::optional<TlsClientAuth> parse_tls_client_auth(std::string_view text) {
  for (TlsClientAuth a : {TlsClientAuth::none, TlsClientAuth::optional, TlsClientAuth::require}) {
    if (text == tls_client_auth_name(a)) return a;
  }
  return std::nullopt;
}

TlsAdmission admit_connection(TlsServerMode mode, std::uint8_t first_byte) {
  const bool hello = first_byte == kTlsHandshakeRecordType;
  switch (mode) {
    case TlsServerMode::disabled: return hello ? TlsAdmission::refuse_tls : TlsAdmission::plain;
    case TlsServerMode::permissive: return hello ? TlsAdmission::tls : TlsAdmission::plain;
    case TlsServerMode::enforcing: return hello ? TlsAdmission::tls : TlsAdmission::refuse_plain;
  }
  FERRY_ASSERT(false, "TlsServerMode {} is not a mode", static_cast<int>(mode));
  return TlsAdmission::refuse_plain;
}

Status check_tls_options(const TlsOptions& options) {
  auto loaded = asio_rt::TlsContexts::load(options);
  if (!loaded) return std::move(loaded).error();
  return Status();
}

}  // namespace ferry
