// Small helpers every processor uses to build replies.
#pragma once

#include <optional>
#include <string>

#include "remoting/remoting_command.h"
#include "remoting/rpc/rpc_peer.h"
#include "runtime/result.h"

namespace ferry::broker {

using remoting::RemotingCommand;
using remoting::RequestContext;
using Reply = std::optional<RemotingCommand>;

// A reply with `code` and `remark` (no fields, no body).
RemotingCommand reply(const RemotingCommand& request, std::int32_t code, std::string remark = {});
// SYSTEM_ERROR (1) for a request whose header did not decode; the remark is the decoder's
// error text, which names the field ("PullMessageRequestHeader: missing field queueId").
RemotingCommand bad_header(const RemotingCommand& request, const Error& error);

}  // namespace ferry::broker
