#include "remoting/header/send_message_header.h"

#include <fmt/format.h>

#include "remoting/request_code.h"

namespace ferry::remoting {

Result<SendMessageRequestHeader> SendMessageRequestHeader::from_request(std::int32_t code,
                                                                        const ExtFields& f) {
  switch (code) {
    case request_code::SEND_MESSAGE: return from_fields(f);
    case request_code::SEND_MESSAGE_V2:
    case request_code::SEND_BATCH_MESSAGE: return from_fields_v2(f);
    default:
      return Error(Errc::invalid_argument,
                   fmt::format("request code {} does not carry a send header", code));
  }
}

Result<SendMessageRequestHeader> SendMessageRequestHeader::from_request(std::int32_t code, ExtFields&& f) {
  switch (code) {
    case request_code::SEND_MESSAGE: return fields(Version::v1).decode(std::move(f));
    case request_code::SEND_MESSAGE_V2:
    case request_code::SEND_BATCH_MESSAGE: return fields(Version::v2).decode(std::move(f));
    default:
      return Error(Errc::invalid_argument,
                   fmt::format("request code {} does not carry a send header", code));
  }
}

}  // namespace ferry::remoting
