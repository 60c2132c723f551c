#include "client/client_errors.h"

#include <fmt/format.h>

#include <charconv>

#include "remoting/request_code.h"
#include "remoting/response_code.h"

namespace ferry::client {

namespace code = remoting::response_code;

namespace {
constexpr std::string_view kCodeMarker = " reply code (";
}

Errc errc_for_reply_code(std::int32_t c) {
  switch (c) {
    case code::SYSTEM_BUSY:
    case code::SERVICE_NOT_AVAILABLE: return Errc::busy;
    case code::TOPIC_NOT_EXIST:
    case code::QUERY_NOT_FOUND:
    case code::SUBSCRIPTION_NOT_EXIST:
    case code::SUBSCRIPTION_GROUP_NOT_EXIST: return Errc::not_found;
    case code::MESSAGE_ILLEGAL:
    case code::NO_PERMISSION:
    case code::SUBSCRIPTION_PARSE_FAILED: return Errc::invalid_argument;
    case code::REQUEST_CODE_NOT_SUPPORTED: return Errc::unsupported;
    default: return Errc::io_error;
  }
}

Error reply_error(std::string_view where, std::int32_t request_code, const remoting::RemotingCommand& reply) {
  std::string_view req_name = remoting::request_code::name(request_code);
  std::string_view code_name = code::name(reply.code);
  std::string text = fmt::format("{} answered {} with {}{}{}){}{}", where,
                                 req_name.empty() ? fmt::format("request {}", request_code) : std::string(req_name),
                                 code_name.empty() ? "an unknown" : code_name, kCodeMarker, reply.code,
                                 reply.remark && !reply.remark->empty() ? ": " : "",
                                 reply.remark.value_or(""));
  return Error(errc_for_reply_code(reply.code), std::move(text));
}

Error with_context(std::string_view context, Error e) {
  e.detail = fmt::format("{}: {}", context, e.detail);
  return e;
}

std::optional<std::int32_t> reply_code_of(const Error& e) {
  const std::size_t at = e.detail.find(kCodeMarker);
  if (at == std::string::npos) return std::nullopt;
  const char* begin = e.detail.data() + at + kCodeMarker.size();
  const char* end = e.detail.data() + e.detail.size();
  std::int32_t v = 0;
  auto [ptr, ec] = std::from_chars(begin, end, v);
  if (ec != std::errc() || ptr == end || *ptr != ')') return std::nullopt;
  return v;
}

std::string broker_where(std::string_view broker_name, std::string_view addr) {
  return fmt::format("broker '{}' ({})", broker_name, addr);
}

}  // namespace ferry::client
