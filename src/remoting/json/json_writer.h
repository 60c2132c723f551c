// Writing JSON (always standard JSON, UTF-8 passed through as is) straight into a byte vector,
// so a header or body is built where it will be sent from.
#pragma once

#include <rapidjson/writer.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ferry::remoting::json {

// A rapidjson output stream that appends to a caller-owned byte vector.
class ByteStream {
 public:
  using Ch = char;
  explicit ByteStream(std::vector<std::uint8_t>& out) : out_(out) {}
  void Put(char c) { out_.push_back(static_cast<std::uint8_t>(c)); }
  void Flush() {}

 private:
  std::vector<std::uint8_t>& out_;
};

using Writer = rapidjson::Writer<ByteStream>;

// Writes a string with an explicit length (embedded NULs and non-ASCII bytes survive).
inline void write_string(Writer& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}
inline void write_key(Writer& w, std::string_view s) {
  w.Key(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

}  // namespace ferry::remoting::json
