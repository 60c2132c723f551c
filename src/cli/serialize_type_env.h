// ROCKETMQ_SERIALIZE_TYPE: the header form the command-line tools (mqadmin, mqbench) send their
// requests in, named as RocketMQ's own clients name it (its environment variable and the
// rocketmq.serialize.type property take the same values). Unset: the client library's default,
// the binary form. Useful to compare the two forms (docs/benchmarks.md) or to talk to a server
// that reads only JSON.
#pragma once

#include <optional>

#include "remoting/frame_format.h"
#include "runtime/result.h"

namespace ferry::cli {

inline constexpr const char* kSerializeTypeEnv = "ROCKETMQ_SERIALIZE_TYPE";

// Parses a value of ROCKETMQ_SERIALIZE_TYPE: "JSON" or "ROCKETMQ", any case. Errors
// (invalid_argument) name the variable and the value.
Result<remoting::SerializeType> parse_serialize_type(std::string_view text);

// The form the environment asks for, nullopt when the variable is unset or empty. Errors: as
// parse_serialize_type().
Result<std::optional<remoting::SerializeType>> serialize_type_from_env();

}  // namespace ferry::cli
