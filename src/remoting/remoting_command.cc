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

std::vector<std::uint8_t> RemotingCommand::body_bytes() const {
  std::vector<std::uint8_t> out;
  out.reserve(body_size());
  out.insert(out.end(), body.begin(), body.end());
  for (const FileView& v : body_views) out.insert(out.end(), v.bytes().begin(), v.bytes().end());
  return out;
}

}  // namespace ferry::remoting
