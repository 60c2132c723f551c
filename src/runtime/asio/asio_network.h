// AsioNetwork: the production Network, TCP over IPv4 on the node's io_context.
//
// connect() runs async_connect on the loop, with a deadline kept by the node's Timers: when it
// passes first, the socket is closed and connect returns Errc::timed_out. Destroying the
// awaiting frame cancels both. Errors: refused, timed_out, unreachable, invalid_argument (the
// host is not a dotted IPv4 address). host() is the advertised host from the runtime options.
// Loop thread only.
#pragma once

#include <boost/asio/io_context.hpp>

#include <string>

#include "runtime/executor.h"
#include "runtime/network.h"

namespace ferry::asio_rt {

class AsioNetwork final : public Network {
 public:
  AsioNetwork(boost::asio::io_context& io, Executor& loop, Timers& timers, std::string advertised_host);

  Result<std::unique_ptr<Listener>> listen(const Endpoint& addr) override;
  Task<Result<std::unique_ptr<Connection>>> connect(Endpoint addr, Duration timeout) override;
  std::string host() const override { return host_; }

 private:
  boost::asio::io_context& io_;
  Executor& loop_;
  Timers& timers_;
  std::string host_;
};

}  // namespace ferry::asio_rt
