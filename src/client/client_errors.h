// How the client reports failures: Error values whose detail names what was called, where
// (broker name and address, or NameServer), and the reply code with its name and remark.
//
//   broker 'broker-a' (127.0.0.11:10911) answered SEND_MESSAGE_V2 with TOPIC_NOT_EXIST (17): ...
//
// Reply codes map onto Errc so callers can branch: 2 SYSTEM_BUSY and 14 SERVICE_NOT_AVAILABLE →
// busy; 17 TOPIC_NOT_EXIST, 22 QUERY_NOT_FOUND, 24 and 26 → not_found; 13 MESSAGE_ILLEGAL,
// 16 NO_PERMISSION, 23 SUBSCRIPTION_PARSE_FAILED → invalid_argument; 3 → unsupported; any other
// code → io_error. The numeric code is always in the text as "(N)"; reply_code_of() reads it back.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "remoting/remoting_command.h"
#include "runtime/result.h"

namespace ferry::client {

Errc errc_for_reply_code(std::int32_t code);

// An error for a reply whose code the caller does not accept. `where` says whom we called
// ("broker 'broker-a' (127.0.0.11:10911)", "NameServer 127.0.0.10:9876").
Error reply_error(std::string_view where, std::int32_t request_code, const remoting::RemotingCommand& reply);

// The same error with `context` put in front of its detail ("send to topic T: ...").
Error with_context(std::string_view context, Error e);

// The broker reply code an error from reply_error() carries, if any.
std::optional<std::int32_t> reply_code_of(const Error& e);

// "broker 'name' (addr)"
std::string broker_where(std::string_view broker_name, std::string_view addr);

}  // namespace ferry::client
