// Errors as values for the runtime and everything above it.
//
// Expected failures (a refused connection, a missing file, a full disk, a timeout) are returned
// as `Result<T>`; exceptions are kept for bugs and for the outermost edges of a program.
// `Result` is [[nodiscard]]: ignoring one is a compile error under -Werror.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace ferry {

// What went wrong, coarse enough to branch on. `Error::detail` carries the specifics
// (peer address, path, field name) for logs and replies.
enum class Errc : std::uint8_t {
  ok = 0,
  // network
  refused,         // nobody listens at the address (or the node is down)
  reset,           // the connection was broken by the peer or the network
  eof,             // the peer closed its side in order; no more bytes will come
  timed_out,       // an operation's deadline passed
  address_in_use,  // listen() on an address somebody already listens on
  unreachable,     // no route to the host (partitioned, unknown address)
  closed,          // the local side closed the connection / listener / file
  // files
  not_found,
  already_exists,
  no_space,  // the disk is full (ENOSPC); nothing was written
  io_error,  // EIO and friends; what was durable before stays durable
  // general
  invalid_argument,
  corrupt,      // data read back does not pass its own checks
  cancelled,    // the operation was cancelled before it completed
  unsupported,  // the request is understood but not served here
  busy,         // a bounded resource is full; try again later
};

std::string_view errc_name(Errc c);

struct [[nodiscard]] Error {
  Errc code = Errc::ok;
  std::string detail;

  Error() = default;
  Error(Errc c, std::string d = {}) : code(c), detail(std::move(d)) {}

  // "timed_out: connect to 127.0.0.1:10911 after 3000 ms"
  std::string to_string() const;
  bool is(Errc c) const { return code == c; }
};

namespace detail {
[[noreturn]] void result_access_failure(const char* what, const Error* error);
}

// Result<T> holds either a T or an Error. Result<void> holds nothing or an Error.
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  Result(Error error) : v_(std::in_place_index<1>, std::move(error)) {
    if (std::get<1>(v_).code == Errc::ok) [[unlikely]] {
      detail::result_access_failure("Result built from an Error with code ok", &std::get<1>(v_));
    }
  }
  Result(Errc code, std::string detail = {}) : Result(Error(code, std::move(detail))) {}

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { check_value(); return std::get<0>(v_); }
  const T& value() const& { check_value(); return std::get<0>(v_); }
  T&& value() && { check_value(); return std::get<0>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  const Error& error() const& { check_error(); return std::get<1>(v_); }
  Error&& error() && { check_error(); return std::get<1>(std::move(v_)); }

  T value_or(T fallback) const& { return ok() ? std::get<0>(v_) : std::move(fallback); }

 private:
  void check_value() const;
  void check_error() const;
  std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)) {}  // NOLINT: implicit by design
  Result(Errc code, std::string detail = {}) : error_(code, std::move(detail)) {}

  bool ok() const { return error_.code == Errc::ok; }
  explicit operator bool() const { return ok(); }
  void value() const;  // aborts with the error's text when !ok()
  const Error& error() const& { return error_; }
  Error&& error() && { return std::move(error_); }

 private:
  Error error_;
};

using Status = Result<void>;


template <typename T>
void Result<T>::check_value() const {
  if (!ok()) detail::result_access_failure("value() of a failed Result", &std::get<1>(v_));
}
template <typename T>
void Result<T>::check_error() const {
  if (ok()) detail::result_access_failure("error() of a successful Result", nullptr);
}

}  // namespace ferry

// Propagates the error of a Result-returning expression out of a function returning Result/Status.
#define FERRY_TRY(expr)                                 \
  do {                                                  \
    auto&& ferry_try_r_ = (expr);                       \
    if (!ferry_try_r_.ok()) return std::move(ferry_try_r_).error(); \
  } while (0)

// The same for coroutines returning Task<Result<T>> / Task<Status>.
#define FERRY_CO_TRY(expr)                              \
  do {                                                  \
    auto&& ferry_try_r_ = (expr);                       \
    if (!ferry_try_r_.ok()) co_return std::move(ferry_try_r_).error(); \
  } while (0)
