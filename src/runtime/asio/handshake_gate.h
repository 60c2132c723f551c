// HandshakeGate: a TLS listener's bounds on connections that have not finished their handshake
// (tls.server.handshakeTimeoutMillis, tls.server.handshakesMax; tls_options.h).
//
// A client can open TLS connections and never finish the handshake (or never send a byte); each
// holds a descriptor and a place under maxConnections, and with serverChannelMaxIdleTimeSeconds=0
// nothing else would close it. So every connection a permissive or enforcing listener accepts is
// counted here from accept until it is known plain, its handshake completes, or it closes; it is
// closed when that takes longer than the timeout, and a connection accepted while `max` are
// counted is closed at once. Shared by the listener and its connections (which may outlive it).
// Loop thread only.
#pragma once

#include <cstddef>

#include "runtime/time.h"

namespace ferry::asio_rt {

class HandshakeGate {
 public:
  HandshakeGate(Duration timeout, std::size_t max) : timeout_(timeout), max_(max) {}

  // Counts a new connection in; false (nothing counted) when `max` are in already.
  bool enter() {
    if (in_ >= max_) return false;
    ++in_;
    return true;
  }
  // A counted connection is done with its handshake (or closed). Once per enter() that
  // returned true.
  void leave() {
    if (in_ > 0) --in_;
  }

  Duration timeout() const { return timeout_; }
  std::size_t max() const { return max_; }
  std::size_t in() const { return in_; }

 private:
  Duration timeout_;
  std::size_t max_;
  std::size_t in_ = 0;
};

}  // namespace ferry::asio_rt
