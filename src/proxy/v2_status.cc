#include "proxy/v2_status.h"

#include "client/client_errors.h"

namespace ferry::proxy {

v2::Status ok_status() { return status(v2::OK, "OK"); }

v2::Status status(v2::Code code, std::string message) {
  v2::Status s;
  s.set_code(code);
  s.set_message(std::move(message));
  return s;
}

v2::Code code_of_reply(std::int32_t reply_code) {
  switch (reply_code) {
    case 0: return v2::OK;
    case 2: return v2::TOO_MANY_REQUESTS;
    case 3: return v2::NOT_IMPLEMENTED;
    case 17: return v2::TOPIC_NOT_FOUND;
    case 26: return v2::CONSUMER_GROUP_NOT_FOUND;
    default: return v2::INTERNAL_SERVER_ERROR;
  }
}

v2::Status status_of(const Error& e) {
  if (std::optional<std::int32_t> reply = client::reply_code_of(e)) return status(code_of_reply(*reply), e.to_string());
  if (e.is(Errc::timed_out)) return status(v2::PROXY_TIMEOUT, e.to_string());
  return status(v2::INTERNAL_SERVER_ERROR, e.to_string());
}

}  // namespace ferry::proxy
