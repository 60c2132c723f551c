// The listening server's bounds, the same two keys in broker.conf and namesrv.conf:
//   maxConnections                    (Ferry's) connections open at once, 1..1,048,576;
//                                     default 16,384 (RpcOptions::connections_max)
//   serverChannelMaxIdleTimeSeconds   (RocketMQ's) seconds without a byte either way before a
//                                     connection is closed, 0..86,400; default 120; 0 means
//                                     never, as in RocketMQ (Netty's idle handler off)
//                                     (RpcOptions::idle_timeout)
// A value out of range is an error "{file}:{line}: {key}: {value} is out of range [min, max]"
// (config_binder.h). With the idle timeout off, connections that never speak stay until
// maxConnections; a TLS handshake that never finishes is closed by its own deadline still.
#pragma once

#include <cstdint>

#include "daemon/config_binder.h"
#include "remoting/rpc/rpc_options.h"

namespace ferry::daemon {

inline constexpr std::int64_t kMaxConnectionsMax = 1 << 20;
inline constexpr std::int64_t kIdleTimeSecondsMax = 86'400;

// Binds both keys onto `rpc`, which must outlive `b`'s apply().
void bind_server_keys(ConfigBinder& b, remoting::RpcOptions& rpc);

}  // namespace ferry::daemon
