// The JSON header (serialize type 0):
//
//   {"code":310,"language":"JAVA","version":407,"opaque":26,"flag":0,"remark":null,
//    "extFields":{"a":"PID_X",...}}
//
// Writing uses exactly that key order, no spaces, remark null when absent, and extFields values
// as strings. Reading accepts any key order, unknown keys (Java adds "serializeTypeCurrentRPC"),
// a null or missing remark/extFields, numbers given as strings, the language as a name or a
// number, and raw JSON numbers/booleans as extFields values, kept as their exact text
// ("queueId":0 reads as "0", "k":false as "false"); a null extFields value is dropped.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "remoting/remoting_command.h"
#include "runtime/result.h"

namespace ferry::remoting {

// Appends the JSON header of `cmd` (not its body) to `out`.
void write_json_header(const RemotingCommand& cmd, std::vector<std::uint8_t>& out);

// Decodes a complete JSON header. The result has serialize type json and an empty body.
// Errors (Errc::corrupt, the text says which): malformed JSON (with the parser's reason and
// offset), a root that is not an object, a missing or non-integer code, an out-of-range
// version/opaque/flag, an unknown language, a remark that is not a string, an extFields value
// that is an object or array, more than kExtFieldsMax fields.
Result<RemotingCommand> read_json_header(std::string_view text);

}  // namespace ferry::remoting
