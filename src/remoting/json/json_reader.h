// Reading typed fields out of a parsed JSON object, with errors that name the field's path
// ("HeartbeatData.consumerDataSet[0].groupName: missing").
//
// The readers record only the first error (in a shared JsonErrors) and return a default value
// after it, so decoding code reads straight through and checks once at the end:
//
//   json::JsonErrors errs;
//   json::ObjectReader r(doc, "QueueData", errs);
//   q.broker_name = r.string("brokerName");
//   q.perm = r.int32("perm");
//   if (errs.failed()) return errs.take();
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/result.h"

namespace ferry::remoting::json {

class JsonErrors {
 public:
  bool failed() const { return first_.has_value(); }
  // Records `detail` as an Errc::invalid_argument error unless an earlier one is recorded.
  void fail(std::string detail);
  // The first error (the holder must have failed()).
  Error take();

 private:
  std::optional<Error> first_;
};

// Integer and boolean conversions shared by the readers: accept a JSON number (integral, in
// range) or a string holding one, as fastjson peers sometimes quote numbers. nullopt if neither.
std::optional<std::int64_t> as_int64(const rapidjson::Value& v);
std::optional<bool> as_bool(const rapidjson::Value& v);

class ObjectReader {
 public:
  // `value` must be an object, else the error "<path>: not a JSON object" is recorded.
  ObjectReader(const rapidjson::Value& value, std::string path, JsonErrors& errors);

  // Required fields: missing, null or of the wrong type records an error.
  std::string string(std::string_view name);
  std::int64_t int64(std::string_view name);
  std::int32_t int32(std::string_view name);
  bool boolean(std::string_view name);
  double number(std::string_view name);  // any JSON number (Java's double fields)
  // Optional fields: missing or null gives the fallback / nullopt; a wrong type is an error.
  std::optional<std::string> optional_string(std::string_view name);
  std::int64_t int64_or(std::string_view name, std::int64_t fallback);
  std::int32_t int32_or(std::string_view name, std::int32_t fallback);
  bool boolean_or(std::string_view name, bool fallback);
  double number_or(std::string_view name, double fallback);
  // A member that must be an array / object; nullptr (and an error) otherwise.
  const rapidjson::Value* array(std::string_view name);
  const rapidjson::Value* object(std::string_view name);
  // Missing or null gives nullptr without an error; a wrong type records one.
  const rapidjson::Value* optional_array(std::string_view name);
  const rapidjson::Value* optional_object(std::string_view name);
  // An array of strings; missing or null is an empty vector.
  std::vector<std::string> string_array(std::string_view name);

  // "<path>.<name>", for nested readers and errors.
  std::string path_of(std::string_view name) const;
  const std::string& path() const { return path_; }
  JsonErrors& errors() { return errors_; }

 private:
  const rapidjson::Value* member(std::string_view name) const;
  void fail(std::string_view name, std::string_view what);

  const rapidjson::Value* object_;  // nullptr when the value was not an object
  std::string path_;
  JsonErrors& errors_;
};

// A string value, or nullopt.
std::optional<std::string> as_string(const rapidjson::Value& v);

}  // namespace ferry::remoting::json
