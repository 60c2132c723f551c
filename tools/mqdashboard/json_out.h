// JsonOut: the dashboard API's JSON, written straight into a string (rapidjson's Writer). Keys
// and values in call order; strings pass through byte for byte (the page decodes UTF-8).
#pragma once

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace ferry::dashboard {

class JsonOut {
 public:
  JsonOut& object() { w_.StartObject(); return *this; }
  JsonOut& end_object() { w_.EndObject(); return *this; }
  JsonOut& array() { w_.StartArray(); return *this; }
  JsonOut& end_array() { w_.EndArray(); return *this; }
  JsonOut& key(std::string_view k) { w_.Key(k.data(), static_cast<rapidjson::SizeType>(k.size())); return *this; }
  JsonOut& str(std::string_view v) { w_.String(v.data(), static_cast<rapidjson::SizeType>(v.size())); return *this; }
  JsonOut& num(std::int64_t v) { w_.Int64(v); return *this; }
  JsonOut& real(double v) { w_.Double(v); return *this; }
  JsonOut& boolean(bool v) { w_.Bool(v); return *this; }
  JsonOut& null() { w_.Null(); return *this; }
  // `json` must be one complete JSON value.
  JsonOut& raw(std::string_view json) {
    w_.RawValue(json.data(), json.size(), rapidjson::kObjectType);
    return *this;
  }
  // key + value in one call.
  JsonOut& field(std::string_view k, std::string_view v) { return key(k).str(v); }
  JsonOut& field(std::string_view k, const char* v) { return key(k).str(v); }
  JsonOut& field(std::string_view k, const std::string& v) { return key(k).str(v); }
  JsonOut& field(std::string_view k, std::int64_t v) { return key(k).num(v); }
  JsonOut& field(std::string_view k, std::int32_t v) { return key(k).num(v); }
  JsonOut& field(std::string_view k, double v) { return key(k).real(v); }
  JsonOut& field(std::string_view k, bool v) { return key(k).boolean(v); }

  std::string take() { return std::string(buffer_.GetString(), buffer_.GetSize()); }

 private:
  rapidjson::StringBuffer buffer_;
  rapidjson::Writer<rapidjson::StringBuffer> w_{buffer_};
};

}  // namespace ferry::dashboard
