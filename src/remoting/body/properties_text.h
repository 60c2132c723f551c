// The properties text bodies of UPDATE_BROKER_CONFIG (25) / GET_BROKER_CONFIG (26) and
// UPDATE_NAMESRV_CONFIG (318) / GET_NAMESRV_CONFIG (319): java.util.Properties as RocketMQ's
// MixAll.properties2String writes it, one "key=value\n" per entry, e.g.
//   autoCreateTopicEnable=true
//   brokerPermission=6
// Ferry writes the entries sorted by key. The reader takes key=value lines, skips blank lines
// and lines starting with '#' or '!', and trims whitespace around key and value.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>

#include "runtime/result.h"

namespace ferry::remoting::body {

inline constexpr std::size_t kPropertiesLinesMax = 1024;

std::string properties_text(const std::map<std::string, std::string>& settings);

// Errors (invalid_argument) name the line: no '=', an empty key, a key given twice, more than
// kPropertiesLinesMax lines.
Result<std::map<std::string, std::string>> parse_properties_text(std::string_view text);

}  // namespace ferry::remoting::body
