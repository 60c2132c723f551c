#include "remoting/header/field_codec.h"

#include <fmt/format.h>

#include "remoting/decimal_text.h"

namespace ferry::remoting {

const std::string* FieldReader::require(std::string_view name) {
  const std::string* v = fields_.find(name);
  if (v == nullptr && !error_) {
    error_.emplace(Errc::invalid_argument, fmt::format("{}: missing field {}", header_name_, name));
  }
  return v;
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

std::string FieldReader::string(std::string_view name) {
  const std::string* v = require(name);
  return v ? *v : std::string();
}

std::int32_t FieldReader::int32(std::string_view name) {
  if (require(name) == nullptr) return 0;
  return optional_int32(name).value_or(0);
}

std::int64_t FieldReader::int64(std::string_view name) {
  if (require(name) == nullptr) return 0;
  return optional_int64(name).value_or(0);
}

bool FieldReader::boolean(std::string_view name) {
  if (require(name) == nullptr) return false;
  return boolean_or(name, false);
}

std::optional<std::string> FieldReader::optional_string(std::string_view name) {
  const std::string* v = fields_.find(name);
  if (v == nullptr) return std::nullopt;
  return *v;
}

std::optional<std::int32_t> FieldReader::optional_int32(std::string_view name) {
  const std::string* v = fields_.find(name);
  if (v == nullptr) return std::nullopt;
  auto n = parse_int32(*v);
  if (!n) bad(name, *v, "an int32");
  return n;
}

std::optional<std::int64_t> FieldReader::optional_int64(std::string_view name) {
  const std::string* v = fields_.find(name);
  if (v == nullptr) return std::nullopt;
  auto n = parse_int64(*v);
  if (!n) bad(name, *v, "an int64");
  return n;
}

bool FieldReader::boolean_or(std::string_view name, bool fallback) {
  const std::string* v = fields_.find(name);
  if (v == nullptr) return fallback;
  auto b = parse_bool(*v);
  if (!b) bad(name, *v, "a boolean");
  return b.value_or(fallback);
}

void put_string(ExtFields& f, std::string_view name, std::string value) {
  f.set(std::string(name), std::move(value));
}

void put_int(ExtFields& f, std::string_view name, std::int64_t value) {
  f.set(std::string(name), std::to_string(value));
}

void put_bool(ExtFields& f, std::string_view name, bool value) {
  f.set(std::string(name), value ? "true" : "false");
}

void put_optional_string(ExtFields& f, std::string_view name, const std::optional<std::string>& v) {
  if (v) put_string(f, name, *v);
}

void put_optional_int(ExtFields& f, std::string_view name, std::optional<std::int64_t> v) {
  if (v) put_int(f, name, *v);
}

}  // namespace ferry::remoting
