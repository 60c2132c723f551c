#include "sim/history/option_value.h"

#include "runtime/assert.h"

namespace ferry::sim {

const char* option_type_name(const OptionValue& v) {
  switch (v.index()) {
    case 0: return "bool";
    case 1: return "integer";
    case 2: return "duration";
    default: return "string";
  }
}

template <typename T>
const T& option(const OptionValues& values, std::string_view name) {
  auto it = values.find(std::string(name));
  FERRY_ASSERT(it != values.end(), "no option {} (the parser fills every option of a spec)", name);
  const T* v = std::get_if<T>(&it->second);
  FERRY_ASSERT(v != nullptr, "option {} is a {}, not the type asked for", name, option_type_name(it->second));
  return *v;
}

template const bool& option<bool>(const OptionValues&, std::string_view);
template const std::int64_t& option<std::int64_t>(const OptionValues&, std::string_view);
template const Duration& option<Duration>(const OptionValues&, std::string_view);
template const std::string& option<std::string>(const OptionValues&, std::string_view);

std::int64_t option_ms(const OptionValues& values, std::string_view name) {
  return to_ms(option<Duration>(values, name));
}

}  // namespace ferry::sim
