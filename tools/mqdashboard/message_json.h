// A stored message as the dashboard's JSON: where it is stored and when, its properties, and
// (with_body) its body — as text when it is valid UTF-8, else base64 ("bodyEncoding" says which).
#pragma once

#include "common/message.h"
#include "tools/mqdashboard/json_out.h"

namespace ferry::dashboard {

void write_message(JsonOut& j, const MessageExt& m, bool with_body);

// Whether `bytes` are well-formed UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF).
bool valid_utf8(std::string_view bytes);
// Standard base64 with padding (OpenSSL's).
std::string base64(std::string_view bytes);

}  // namespace ferry::dashboard
