#include "remoting/header/field_codec.h"

#include <fmt/format.h>

namespace ferry::remoting {

void FieldReader::missing(std::string_view name) {
  if (error_) return;
  error_.emplace(Errc::invalid_argument, fmt::format("{}: missing field {}", header_name_, name));
}

void FieldReader::bad(std::string_view name, const std::string& value, std::string_view type) {
  if (error_) return;
  constexpr std::size_t kShown = 40;  // keep a hostile value out of the logs
  const std::string shown = value.size() <= kShown ? value : value.substr(0, kShown) + "...";
  error_.emplace(Errc::invalid_argument, fmt::format("{}: field {} = \"{}\" is not {}",
                                                     header_name_, name, shown, type));
}

Status FieldReader::status() const {
  if (error_) return *error_;
  return {};
}

}  // namespace ferry::remoting
