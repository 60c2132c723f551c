#include "remoting/header/send_message_header.h"

#include <fmt/format.h>

#include "remoting/request_code.h"

namespace ferry::remoting {

namespace {

// The header version a send request carries: V1 names for SEND_MESSAGE, a..n for the others.
Result<SendMessageRequestHeader::Version> version_of(std::int32_t code) {
  switch (code) {
    case request_code::SEND_MESSAGE:
    case request_code::SEND_REPLY_MESSAGE: return SendMessageRequestHeader::Version::v1;
    case request_code::SEND_MESSAGE_V2:
    case request_code::SEND_REPLY_MESSAGE_V2:
    case request_code::SEND_BATCH_MESSAGE: return SendMessageRequestHeader::Version::v2;
    default:
      return Error(Errc::invalid_argument, fmt::format("request code {} does not carry a send header", code));
  }
}

}  // namespace

Result<SendMessageRequestHeader> SendMessageRequestHeader::from_request(std::int32_t code, const ExtFields& f) {
  Result<Version> v = version_of(code);
  if (!v) return std::move(v).error();
  return fields(*v).decode(f);
}

Result<SendMessageRequestHeader> SendMessageRequestHeader::from_request(std::int32_t code, ExtFields&& f) {
  Result<Version> v = version_of(code);
  if (!v) return std::move(v).error();
  return fields(*v).decode(std::move(f));
}

Result<SendMessageRequestHeader> SendMessageRequestHeader::from_request_binary(std::int32_t code, Bytes entries) {
  Result<Version> v = version_of(code);
  if (!v) return std::move(v).error();
  return fields(*v).decode_binary(entries);
}

}  // namespace ferry::remoting
