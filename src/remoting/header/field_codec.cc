#include "remoting/header/field_codec.h"

#include <fmt/format.h>

namespace ferry::remoting {

void FieldErrors::missing(std::string_view name) {
  if (error_) return;
  error_.emplace(Errc::invalid_argument, fmt::format("{}: missing field {}", header_name_, name));
}

void FieldErrors::bad(std::string_view name, std::string_view value, std::string_view type) {
  if (error_) return;
  constexpr std::size_t kShown = 40;  // keep a hostile value out of the logs
  const std::string shown = value.size() <= kShown ? std::string(value) : std::string(value.substr(0, kShown)) + "...";
  error_.emplace(Errc::invalid_argument, fmt::format("{}: field {} = \"{}\" is not {}",
                                                     header_name_, name, shown, type));
}

Status FieldErrors::status() const {
  if (error_) return *error_;
  return {};
}

}  // namespace ferry::remoting
