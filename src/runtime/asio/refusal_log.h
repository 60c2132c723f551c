// RefusalLog: the lines a listener's connections write when they turn a client away at the door
// (a TLS handshake where tls.server.mode is disabled, a plain client where it is enforcing, a
// failed, slow or one-too-many handshake). Each connection is new, but a client can come back at will, so all the
// connections of one listener share one LogLimiter: a line per cause per LogLimiter::kPeriod,
// the next one saying how many were held back. The listener and the connections it made own it
// (a connection may outlive its listener). Loop thread only, like them.
#pragma once

#include <cstdint>
#include <string>

#include <spdlog/logger.h>

#include "runtime/asio/system_clock.h"
#include "runtime/log_limiter.h"

namespace ferry::asio_rt {

class RefusalLog {
 public:
  // Why a connection was turned away: the limiter's kind.
  enum class Cause : std::int64_t {
    tls_on_plain_listener = 1,
    plain_refused = 2,
    tls_refused = 3,
    handshake_failed = 4,
    handshake_timed_out = 5,  // HandshakeGate's timeout
    handshakes_full = 6,      // HandshakeGate's max
  };

  // `log` must outlive this (the node's logger does).
  explicit RefusalLog(spdlog::logger& log) : log_(log) {}

  void warn(Cause cause, const std::string& why) {
    if (auto held = limiter_.admit(clock_.now(), static_cast<std::int64_t>(cause))) {
      log_.warn("{}{}", why, held_back_note(*held));
    }
  }

 private:
  spdlog::logger& log_;
  SystemClock clock_;
  LogLimiter limiter_;
};

}  // namespace ferry::asio_rt
