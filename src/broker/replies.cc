#include "broker/replies.h"

#include "remoting/response_code.h"

namespace ferry::broker {

RemotingCommand reply(const RemotingCommand& request, std::int32_t code, std::string remark) {
  if (remark.empty()) return remoting::make_response(request, code);
  return remoting::make_response(request, code, std::move(remark));
}

RemotingCommand bad_header(const RemotingCommand& request, const Error& error) {
  return remoting::make_response(request, remoting::response_code::SYSTEM_ERROR, error.detail.empty() ? error.to_string() : error.detail);
}

}  // namespace ferry::broker
