// RocketMQ's TLS keys (TlsSystemConfig), read from broker.conf / namesrv.conf, from the file
// `tls.config.file` names, and by mqadmin / mqbench from --tls-config FILE:
//   tls.server.mode              disabled | permissive | enforcing (default disabled)
//   tls.server.need.client.auth  none | optional | require (default none)
//   tls.server.keyPath, tls.server.keyPassword, tls.server.certPath, tls.server.trustCertPath
//   tls.server.handshakeTimeoutMillis   (Ferry's) 100..600,000; default 10,000: from accept until
//                                a connection is known plain or its handshake is done
//   tls.server.handshakesMax     (Ferry's) 1..1,048,576; default 1,024 connections in that window
//   tls.enable                   true: this node's outgoing connections speak TLS (default false)
//   tls.client.authServer        true: verify the server's certificate chain (default false)
//   tls.client.verifyHostname    (Ferry's) true: and that it names the address dialled (default
//                                false; needs tls.client.authServer=true)
//   tls.client.keyPath, tls.client.keyPassword, tls.client.certPath, tls.client.trustCertPath
//   tls.config.file              a properties file with the keys above; its values win over the
//                                main file's (as RocketMQ's file wins over -D properties)
//   tls.test.mode.enable         only "false" is accepted: Ferry has no self-signed test mode
//   tls.server.authClient        accepted with a warning: need.client.auth decides
// Values are checked as config_binder.h says ("{file}:{line}: tls.server.mode: \"strict\" is not
// one of disabled / permissive / enforcing"). Whether the files load is checked by
// check_tls_options (runtime/asio/tls_options.h), at start-up.
#pragma once

#include <string>
#include <vector>

#include "daemon/config_binder.h"
#include "runtime/asio/asio_runtime.h"
#include "runtime/asio/tls_options.h"

namespace ferry::daemon {

// How often a daemon looks at its certificate and key files for a change (watch_tls_files).
inline constexpr Duration kTlsWatchPeriod = std::chrono::seconds(5);

// When `tls` serves or dials TLS: `rt` reloads the files it names when one changes (checked
// every kTlsWatchPeriod) and on SIGHUP, without dropping connections (AsioRuntime::reload_tls).
// Loop thread, after the runtime is made.
void watch_tls_files(AsioRuntime& rt, const TlsOptions& tls);

// Binds every key above onto `tls`, and tls.config.file onto `config_file`. Both must outlive
// `b`'s apply().
void bind_tls_keys(ConfigBinder& b, TlsOptions& tls, std::string& config_file);

// Applies the file `path` (tls.config.file) over `tls`, then checks that everything it names
// loads. Errors: the file cannot be read; a bad value ("{path}:{line}: {key}: {what}"); a
// certificate or key that does not load (check_tls_options). Warnings (unknown keys, ...) are
// appended to `warnings`. An empty `path` only checks.
Status finish_tls(TlsOptions& tls, const std::string& path, std::vector<std::string>& warnings);

}  // namespace ferry::daemon
