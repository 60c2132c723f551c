#include "remoting/json/json_reader.h"

#include <fmt/format.h>

#include <limits>

#include "remoting/decimal_text.h"
#include "runtime/assert.h"

namespace ferry::remoting::json {

void JsonErrors::fail(std::string detail) {
  if (!first_) first_.emplace(Errc::invalid_argument, std::move(detail));
}

Error JsonErrors::take() {
  FERRY_ASSERT(first_.has_value(), "take() without a recorded error");
  Error e = std::move(*first_);
  first_.reset();
  return e;
}

std::optional<std::int64_t> as_int64(const rapidjson::Value& v) {
  if (v.IsInt64()) return v.GetInt64();
  if (v.IsString()) return parse_int64(std::string_view(v.GetString(), v.GetStringLength()));
  return std::nullopt;
}

std::optional<bool> as_bool(const rapidjson::Value& v) {
  if (v.IsBool()) return v.GetBool();
  if (v.IsString()) return parse_bool(std::string_view(v.GetString(), v.GetStringLength()));
  return std::nullopt;
}

std::optional<std::string> as_string(const rapidjson::Value& v) {
  if (!v.IsString()) return std::nullopt;
  return std::string(v.GetString(), v.GetStringLength());
}

ObjectReader::ObjectReader(const rapidjson::Value& value, std::string path, JsonErrors& errors)
    : object_(value.IsObject() ? &value : nullptr), path_(std::move(path)), errors_(errors) {
  if (object_ == nullptr) errors_.fail(fmt::format("{}: not a JSON object", path_));
}

std::string ObjectReader::path_of(std::string_view name) const {
  return fmt::format("{}.{}", path_, name);
}

const rapidjson::Value* ObjectReader::member(std::string_view name) const {
  if (object_ == nullptr) return nullptr;
  const rapidjson::Value key(rapidjson::StringRef(name.data(), name.size()));
  const auto it = object_->FindMember(key);
  if (it == object_->MemberEnd() || it->value.IsNull()) return nullptr;
  return &it->value;
}

void ObjectReader::fail(std::string_view name, std::string_view what) {
  errors_.fail(fmt::format("{}: {}", path_of(name), what));
}

std::string ObjectReader::string(std::string_view name) {
  const rapidjson::Value* v = member(name);
  if (v == nullptr) {
    fail(name, "missing");
    return {};
  }
  auto s = as_string(*v);
  if (!s) fail(name, "not a string");
  return s.value_or(std::string());
}

std::optional<std::string> ObjectReader::optional_string(std::string_view name) {
  const rapidjson::Value* v = member(name);
  if (v == nullptr) return std::nullopt;
  auto s = as_string(*v);
  if (!s) fail(name, "not a string");
  return s;
}

std::int64_t ObjectReader::int64(std::string_view name) {
  if (member(name) == nullptr) {
    fail(name, "missing");
    return 0;
  }
  return int64_or(name, 0);
}

std::int64_t ObjectReader::int64_or(std::string_view name, std::int64_t fallback) {
  const rapidjson::Value* v = member(name);
  if (v == nullptr) return fallback;
  const auto n = as_int64(*v);
  if (!n) {
    fail(name, "not an integer (int64)");
    return fallback;
  }
  return *n;
}

double ObjectReader::number(std::string_view name) {
  if (member(name) == nullptr) {
    fail(name, "missing");
    return 0;
  }
  return number_or(name, 0);
}

double ObjectReader::number_or(std::string_view name, double fallback) {
  const rapidjson::Value* v = member(name);
  if (v == nullptr) return fallback;
  if (!v->IsNumber()) {
    fail(name, "not a number");
    return fallback;
  }
  return v->GetDouble();
}

std::int32_t ObjectReader::int32(std::string_view name) {
  if (member(name) == nullptr) {
    fail(name, "missing");
    return 0;
  }
  return int32_or(name, 0);
}

std::int32_t ObjectReader::int32_or(std::string_view name, std::int32_t fallback) {
  const rapidjson::Value* v = member(name);
  if (v == nullptr) return fallback;
  const auto n = as_int64(*v);
  if (!n || *n < std::numeric_limits<std::int32_t>::min() ||
      *n > std::numeric_limits<std::int32_t>::max()) {
    fail(name, "not an integer (int32)");
    return fallback;
  }
  return static_cast<std::int32_t>(*n);
}

bool ObjectReader::boolean(std::string_view name) {
  if (member(name) == nullptr) {
    fail(name, "missing");
    return false;
  }
  return boolean_or(name, false);
}

bool ObjectReader::boolean_or(std::string_view name, bool fallback) {
  const rapidjson::Value* v = member(name);
  if (v == nullptr) return fallback;
  const auto b = as_bool(*v);
  if (!b) {
    fail(name, "not a boolean");
    return fallback;
  }
  return *b;
}

const rapidjson::Value* ObjectReader::optional_array(std::string_view name) {
  const rapidjson::Value* v = member(name);
  if (v == nullptr) return nullptr;
  if (!v->IsArray()) {
    fail(name, "not an array");
    return nullptr;
  }
  return v;
}

const rapidjson::Value* ObjectReader::array(std::string_view name) {
  if (member(name) == nullptr) {
    fail(name, "missing");
    return nullptr;
  }
  return optional_array(name);
}

const rapidjson::Value* ObjectReader::optional_object(std::string_view name) {
  const rapidjson::Value* v = member(name);
  if (v == nullptr) return nullptr;
  if (!v->IsObject()) {
    fail(name, "not an object");
    return nullptr;
  }
  return v;
}

const rapidjson::Value* ObjectReader::object(std::string_view name) {
  if (member(name) == nullptr) {
    fail(name, "missing");
    return nullptr;
  }
  return optional_object(name);
}

std::vector<std::string> ObjectReader::string_array(std::string_view name) {
  std::vector<std::string> out;
  const rapidjson::Value* a = optional_array(name);
  if (a == nullptr) return out;
  out.reserve(a->Size());
  for (rapidjson::SizeType i = 0; i < a->Size(); ++i) {
    auto s = as_string((*a)[i]);
    if (!s) {
      errors_.fail(fmt::format("{}[{}]: not a string", path_of(name), i));
      return out;
    }
    out.push_back(std::move(*s));
  }
  return out;
}

}  // namespace ferry::remoting::json
