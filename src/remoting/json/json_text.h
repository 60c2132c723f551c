// Parsing JSON text from peers: standard JSON, plus what fastjson (Java RocketMQ) emits that
// standard JSON does not allow: unquoted integer object keys, as in {0:"10.0.0.1:10911"} and
// {"topic@group":{0:12}}, and object keys that are themselves objects, as fastjson writes a
// Map<MessageQueue, V> ({"offsetTable":{{"brokerName":"b","queueId":0,"topic":"T"}:{...}}}).
// Such a key becomes a string holding the key object's source text, which the body's reader
// parses again. Ferry itself writes standard JSON, except where a RocketMQ body needs object keys
// (remoting/body/queue_table.h).
#pragma once

#include <rapidjson/document.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/result.h"

namespace ferry::remoting::json {

// The deepest nesting of objects and arrays accepted. Real bodies nest 5 levels; a limit keeps a
// hostile "[[[[..." from costing memory and stack.
inline constexpr std::size_t kDepthMax = 64;

enum class Numbers {
  typed,    // numbers become int64/uint64/double values
  as_text,  // numbers become strings holding their exact source text (for extFields)
};

// Returns `text` with every unquoted integer object key (-?[0-9]+ followed by ':') put in
// quotes and every object key that is an object ({...} followed by ':') turned into a JSON string
// of its text, or an empty optional when there is none. Errors: nesting deeper than
// kDepthMax, a NUL byte. Other syntax errors are left for the parser to report.
Result<std::optional<std::string>> quote_bare_integer_keys(std::string_view text);

// Parses one JSON document (nothing but whitespace may follow it). `what` names the text in
// errors ("JSON header", "HeartbeatData body"). Errors (Errc::corrupt): the parser's message and
// byte offset, nesting deeper than kDepthMax, a NUL byte.
Result<rapidjson::Document> parse(std::string_view text, Numbers numbers, std::string_view what);

}  // namespace ferry::remoting::json
