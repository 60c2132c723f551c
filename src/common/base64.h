// Base64 with the standard alphabet and '=' padding (RFC 4648 section 4), as Java's
// Base64.getEncoder() and fastjson write byte arrays: POP's BATCH_ACK_MESSAGE body carries its
// acknowledgement bitsets so (remoting/body/batch_ack_body.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/result.h"

namespace ferry {

std::string base64_encode(const std::vector<std::uint8_t>& bytes);
// Errors (corrupt): a length that is not a multiple of 4, a character outside the alphabet,
// padding anywhere but at the end. No whitespace is skipped.
Result<std::vector<std::uint8_t>> base64_decode(std::string_view text);

}  // namespace ferry
