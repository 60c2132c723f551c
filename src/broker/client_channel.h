// ClientChannel: one client registration as the broker keeps it (RocketMQ's ClientChannelInfo):
// the connection it heartbeats on, its clientID, and when it was last heard from.
// A registration is keyed by its channel's id (one client instance = one connection).
#pragma once

#include <memory>
#include <string>

#include "remoting/rpc/channel.h"
#include "runtime/time.h"

namespace ferry::broker {

struct ClientChannel {
  std::shared_ptr<remoting::Channel> channel;
  std::string client_id;
  MonoTime last_update{};
};

}  // namespace ferry::broker
