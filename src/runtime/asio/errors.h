// Mapping OS and Asio errors to ferry::Error values.
//
// Network errors: connection_refused -> refused; reset, broken pipe, aborted -> reset; eof -> eof;
// timed_out -> timed_out; address_in_use -> address_in_use; host/network unreachable ->
// unreachable; operation_aborted / bad descriptor (the socket was closed locally) -> closed;
// out of descriptors or buffers -> busy; anything else -> reset.
// File errors: ENOSPC/EDQUOT -> no_space; ENOENT/ENOTDIR -> not_found; EEXIST -> already_exists;
// EINVAL/ENAMETOOLONG -> invalid_argument; anything else -> io_error.
// The detail is "<what>: <OS message>", where `what` names the operation and the peer or path.
#pragma once

#include <boost/system/error_code.hpp>

#include <string_view>

#include "runtime/result.h"

namespace ferry::asio_rt {

Errc net_errc(const boost::system::error_code& ec);
Error net_error(const boost::system::error_code& ec, std::string_view what);

Errc file_errc(int errno_value);
Error file_error(int errno_value, std::string_view what);

}  // namespace ferry::asio_rt
