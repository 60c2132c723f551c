#include "remoting/remoting_command.h"

namespace ferry::remoting {

RemotingCommand make_request(std::int32_t code, std::int32_t opaque, SerializeType type) {
  RemotingCommand cmd;
  cmd.code = code;
  cmd.opaque = opaque;
  cmd.serialize_type = type;
  return cmd;
}

RemotingCommand make_response(const RemotingCommand& request, std::int32_t code,
                              std::optional<std::string> remark) {
  RemotingCommand cmd;
  cmd.code = code;
  cmd.opaque = request.opaque;
  cmd.flag = kFlagResponse;
  cmd.remark = std::move(remark);
  cmd.serialize_type = request.serialize_type;
  return cmd;
}

}  // namespace ferry::remoting
