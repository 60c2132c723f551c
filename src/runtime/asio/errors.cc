#include "runtime/asio/errors.h"

#include <boost/asio/error.hpp>

#include <cerrno>
#include <cstring>
#include <string>

namespace ferry::asio_rt {

Errc net_errc(const boost::system::error_code& ec) {
  namespace err = boost::asio::error;
  if (ec == err::eof) return Errc::eof;
  if (ec.category() != boost::system::system_category()) return Errc::reset;
  switch (ec.value()) {
    case ECONNREFUSED: return Errc::refused;
    case ECONNRESET:
    case EPIPE:
    case ECONNABORTED:
    case ENOTCONN:
    case ESHUTDOWN: return Errc::reset;
    case ETIMEDOUT: return Errc::timed_out;
    case EADDRINUSE: return Errc::address_in_use;
    case EHOSTUNREACH:
    case ENETUNREACH:
    case ENETDOWN:
    case EHOSTDOWN: return Errc::unreachable;
    case ECANCELED:
    case EBADF: return Errc::closed;
    case EMFILE:
    case ENFILE:
    case ENOBUFS:
    case ENOMEM: return Errc::busy;
    case EINVAL:
    case EADDRNOTAVAIL:
    case EAFNOSUPPORT: return Errc::invalid_argument;
    default: return Errc::reset;
  }
}

Error net_error(const boost::system::error_code& ec, std::string_view what) {
  return Error(net_errc(ec), std::string(what) + ": " + ec.message());
}

Errc file_errc(int errno_value) {
  switch (errno_value) {
    case ENOSPC:
    case EDQUOT: return Errc::no_space;
    case ENOENT:
    case ENOTDIR: return Errc::not_found;
    case EEXIST: return Errc::already_exists;
    case EINVAL:
    case ENAMETOOLONG: return Errc::invalid_argument;
    default: return Errc::io_error;
  }
}

Error file_error(int errno_value, std::string_view what) {
  return Error(file_errc(errno_value), std::string(what) + ": " + std::strerror(errno_value));
}

}  // namespace ferry::asio_rt
