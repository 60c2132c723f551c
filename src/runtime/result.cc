#include "runtime/result.h"

#include "runtime/assert.h"

namespace ferry {

std::string_view errc_name(Errc c) {
  switch (c) {
    case Errc::ok: return "ok";
    case Errc::refused: return "refused";
    case Errc::reset: return "reset";
    case Errc::eof: return "eof";
    case Errc::timed_out: return "timed_out";
    case Errc::address_in_use: return "address_in_use";
    case Errc::unreachable: return "unreachable";
    case Errc::closed: return "closed";
    case Errc::not_found: return "not_found";
    case Errc::already_exists: return "already_exists";
    case Errc::no_space: return "no_space";
    case Errc::io_error: return "io_error";
    case Errc::invalid_argument: return "invalid_argument";
    case Errc::corrupt: return "corrupt";
    case Errc::cancelled: return "cancelled";
    case Errc::unsupported: return "unsupported";
    case Errc::busy: return "busy";
  }
  return "unknown";
}

std::string Error::to_string() const {
  std::string s(errc_name(code));
  if (!detail.empty()) {
    s += ": ";
    s += detail;
  }
  return s;
}

void Result<void>::value() const {
  if (!ok()) detail::result_access_failure("value() of a failed Status", &error_);
}

namespace detail {
void result_access_failure(const char* what, const Error* error) {
  ferry::detail::assert_fail(__FILE__, __LINE__, what, error ? error->to_string() : std::string("no error"));
}
}  // namespace detail

}  // namespace ferry
