// The ROCKETMQ binary header (serialize type 1), big-endian:
//
//   int16 code | int8 language | int16 version | int32 opaque | int32 flag |
//   int32 remarkLen | remark (UTF-8) | int32 extFieldsLen | extFields entries
//   entry = int16 keyLen | key | int32 valueLen | value
//
// An absent remark is written with remarkLen 0; remarkLen 0 reads back as absent.
#pragma once

#include <cstdint>
#include <vector>

#include "remoting/remoting_command.h"
#include "runtime/bytes.h"
#include "runtime/result.h"

namespace ferry::remoting {

// Appends the binary header of `cmd` (not its body) to `out`. Preconditions (asserted): code and
// version fit int16, every key is shorter than 32768 bytes.
void write_binary_header(const RemotingCommand& cmd, std::vector<std::uint8_t>& out);

// Decodes a complete binary header. The result has serialize type rocketmq and an empty body.
// Errors (Errc::corrupt, the text says which): truncated fixed part, unknown language code,
// negative or overlong remark / extFields / key / value length, extFields length that does not
// match the rest of the header, more than kExtFieldsMax fields. Never reads outside `header`.
Result<RemotingCommand> read_binary_header(Bytes header);

}  // namespace ferry::remoting
