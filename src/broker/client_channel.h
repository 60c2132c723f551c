// ClientChannel: one client registration as the broker keeps it (RocketMQ's ClientChannelInfo):
// the connection it heartbeats on, its clientID, and when it was last heard from.
// A registration is keyed by client_key(): its channel's id, tagged with the server that
// accepted it (the broker's main port and its optional VIP port number channels separately).
// One client instance = one connection.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "remoting/language_code.h"
#include "remoting/rpc/channel.h"
#include "runtime/time.h"

namespace ferry::broker {

// Which of the broker's servers accepted a channel.
enum class ServerTag : std::uint8_t { main = 0, vip = 1 };

inline std::uint64_t client_key(ServerTag tag, const remoting::Channel& ch) {
  return (static_cast<std::uint64_t>(tag) << 56) | (ch.id() & ((std::uint64_t{1} << 56) - 1));
}

struct ClientChannel {
  std::shared_ptr<remoting::Channel> channel;
  std::string client_id;
  MonoTime last_update{};
  std::uint64_t key = 0;  // client_key() of the channel
  // What the client's heartbeat said of itself (for GET_*_CONNECTION_LIST).
  remoting::LanguageCode language = remoting::LanguageCode::JAVA;
  std::int32_t version = 0;
};

}  // namespace ferry::broker
