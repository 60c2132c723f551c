// TLS for the command-line clients (mqadmin, mqbench):
//   --tls              speak TLS to the NameServers and brokers (RocketMQ's tls.enable=true),
//                      without verifying their certificates (RocketMQ's default too)
//   --tls-config FILE  RocketMQ's tls.properties format (daemon/tls_keys.h): tls.enable and
//                      the tls.client.* keys (authServer, trustCertPath, certPath, keyPath,
//                      keyPassword); implies --tls unless FILE sets tls.enable=false. The
//                      tls.server.* keys are read and not used, so one file can serve a whole cluster.
// Errors name the flag and then the file, key and reason ("--tls-config: tls.client.trustCertPath:
// cannot read trusted certificates 'ca.pem': No such file or directory").
#pragma once

#include "cli/flags.h"
#include "runtime/asio/tls_options.h"

namespace ferry::cli {

inline constexpr FlagSpec kTlsFlag{0, "tls", "", "speak TLS to NameServers and brokers (tls.enable=true)"};
inline constexpr FlagSpec kTlsConfigFlag{0, "tls-config", "FILE",
                                         "tls.enable and tls.client.* keys from FILE (implies --tls unless it says false)"};

// The client's TLS options from --tls / --tls-config, checked (check_tls_options).
Result<TlsOptions> client_tls_from_flags(const ParsedFlags& flags);

}  // namespace ferry::cli
