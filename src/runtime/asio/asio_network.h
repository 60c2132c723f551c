// AsioNetwork: the production Network, TCP over IPv4 on the node's io_context.
//
// connect() runs async_connect on the loop, with a deadline kept by the node's Timers: when it
// passes first, the socket is closed and connect returns Errc::timed_out. Destroying the
// awaiting frame cancels both. Errors: refused, timed_out, unreachable, invalid_argument (the
// host is not a dotted IPv4 address). host() is the advertised host from the runtime options.
// TLS (tls_options.h): with a client context every connect() runs the TLS handshake within the
// same deadline (a failed handshake is Errc::reset naming OpenSSL's reason, e.g. "certificate
// verify failed"); listen() hands the server mode to the listener.
// Loop thread only.
#pragma once

#include <boost/asio/io_context.hpp>

#include <memory>
#include <string>

#include <spdlog/logger.h>

#include "runtime/asio/tls_contexts.h"
#include "runtime/executor.h"
#include "runtime/network.h"

namespace ferry::asio_rt {

class AsioNetwork final : public Network {
 public:
  AsioNetwork(boost::asio::io_context& io, Executor& loop, Timers& timers, std::string advertised_host,
              std::shared_ptr<TlsHolder> tls, spdlog::logger& log);

  Result<std::unique_ptr<Listener>> listen(const Endpoint& addr) override;
  Task<Result<std::unique_ptr<Connection>>> connect(Endpoint addr, Duration timeout) override;
  std::string host() const override { return host_; }

 private:
  boost::asio::io_context& io_;
  Executor& loop_;
  Timers& timers_;
  std::string host_;
  std::shared_ptr<TlsHolder> tls_;
  spdlog::logger& log_;
};

}  // namespace ferry::asio_rt
