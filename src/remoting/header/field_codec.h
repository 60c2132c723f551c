// Reading and writing typed header fields in extFields, for the structs in header/.
//
// Values are text the way Java peers write them: integers in decimal, booleans "true"/"false".
// FieldReader records the first problem only and returns defaults after it, so a decoder reads
// every field straight through and checks once:
//
//   FieldReader r(fields, "PullMessageRequestHeader");
//   h.topic = r.string("topic");
//   h.queue_id = r.int32("queueId");
//   h.subscription = r.optional_string("subscription");
//   FERRY_TRY(r.status());
//
// Errors are Errc::invalid_argument and name the header and field:
//   "PullMessageRequestHeader: missing field queueId"
//   "PullMessageRequestHeader: field queueId = \"x1\" is not an int32"
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "remoting/ext_fields.h"
#include "runtime/result.h"

namespace ferry::remoting {

class FieldReader {
 public:
  FieldReader(const ExtFields& fields, std::string_view header_name)
      : fields_(fields), header_name_(header_name) {}

  // Required: a missing field is an error.
  std::string string(std::string_view name);
  std::int32_t int32(std::string_view name);
  std::int64_t int64(std::string_view name);
  bool boolean(std::string_view name);
  // Optional: a missing field gives nullopt / the fallback; a malformed one is still an error.
  std::optional<std::string> optional_string(std::string_view name);
  std::optional<std::int32_t> optional_int32(std::string_view name);
  std::optional<std::int64_t> optional_int64(std::string_view name);
  bool boolean_or(std::string_view name, bool fallback);

  // OK, or the first error met.
  Status status() const;

 private:
  const std::string* require(std::string_view name);
  void bad(std::string_view name, const std::string& value, std::string_view type);

  const ExtFields& fields_;
  std::string_view header_name_;
  std::optional<Error> error_;
};

// Writers: set `name` to the value's text; the optional_ forms set nothing for nullopt.
void put_string(ExtFields& f, std::string_view name, std::string value);
void put_int(ExtFields& f, std::string_view name, std::int64_t value);
void put_bool(ExtFields& f, std::string_view name, bool value);
void put_optional_string(ExtFields& f, std::string_view name, const std::optional<std::string>& v);
void put_optional_int(ExtFields& f, std::string_view name, std::optional<std::int64_t> v);

}  // namespace ferry::remoting
