// Hex text of bytes, as RocketMQ writes ids: uppercase, two characters a byte.
#pragma once

#include <string>
#include <string_view>

#include "common/big_endian.h"
#include "runtime/result.h"

namespace ferry {

// Appends 2 * bytes.size() uppercase hex characters to `out`.
void append_hex(std::string& out, Bytes bytes);
std::string to_hex(Bytes bytes);

// Parses exactly out.size() bytes from 2 * out.size() hex characters (either case) into `out`.
// Errors (invalid_argument): wrong length or a non-hex character; `out` is then unspecified.
Status parse_hex(std::string_view text, MutableBytes out);

}  // namespace ferry
