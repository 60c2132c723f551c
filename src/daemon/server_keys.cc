#include "daemon/server_keys.h"

namespace ferry::daemon {

void bind_server_keys(ConfigBinder& b, remoting::RpcOptions& rpc) {
  b.bind_int("maxConnections", rpc.connections_max, 1, kMaxConnectionsMax);
  b.bind("serverChannelMaxIdleTimeSeconds", [&rpc](std::string_view v) -> Status {
    auto seconds = parse_int_in(v, 0, kIdleTimeSecondsMax);
    if (!seconds) return std::move(seconds).error();
    rpc.idle_timeout = std::chrono::seconds(*seconds);  // 0: never (RpcServer skips its idle sweep)
    return Status();
  });
}

}  // namespace ferry::daemon
