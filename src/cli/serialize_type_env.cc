#include "cli/serialize_type_env.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <string>

namespace ferry::cli {

Result<remoting::SerializeType> parse_serialize_type(std::string_view text) {
  std::string upper(text);
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  if (upper == "JSON") return remoting::SerializeType::json;
  if (upper == "ROCKETMQ") return remoting::SerializeType::rocketmq;
  return Error(Errc::invalid_argument,
               fmt::format("{}='{}': expected JSON or ROCKETMQ", kSerializeTypeEnv, text));
}

Result<std::optional<remoting::SerializeType>> serialize_type_from_env() {
  const char* value = std::getenv(kSerializeTypeEnv);
  if (value == nullptr || *value == '\0') return std::optional<remoting::SerializeType>();
  Result<remoting::SerializeType> t = parse_serialize_type(value);
  if (!t.ok()) return std::move(t).error();
  return std::optional<remoting::SerializeType>(*t);
}

}  // namespace ferry::cli
