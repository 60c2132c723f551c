#include "tests/remoting/vectors.h"

#include <gtest/gtest.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "tests/support/vectors.h"

namespace ferry::remoting::testing {

std::vector<rapidjson::Document> load_jsonl(std::string_view file_name) {
  std::vector<rapidjson::Document> out;
  int n = 0;
  for (const std::string& line : test::read_vector_lines(file_name)) {
    ++n;
    rapidjson::Document d;
    d.Parse(line.data(), line.size());
    if (d.HasParseError()) {
      ADD_FAILURE() << test::vector_path(file_name) << ": JSON line " << n << " does not parse";
      return {};
    }
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<std::uint8_t> hex_to_bytes(std::string_view hex) { return test::from_hex(hex); }

std::string bytes_to_hex(const std::vector<std::uint8_t>& bytes) {
  static const char* kDigits = "0123456789abcdef";
  std::string s;
  for (std::uint8_t b : bytes) {
    s.push_back(kDigits[b >> 4]);
    s.push_back(kDigits[b & 15]);
  }
  return s;
}

std::vector<std::uint8_t> to_bytes(std::string_view s) { return {s.begin(), s.end()}; }
std::string to_string(const std::vector<std::uint8_t>& b) { return {b.begin(), b.end()}; }

std::string write_json(const rapidjson::Value& v) {
  rapidjson::StringBuffer sb;
  rapidjson::Writer<rapidjson::StringBuffer> w(sb);
  v.Accept(w);
  return std::string(sb.GetString(), sb.GetSize());
}

std::vector<std::uint8_t> json_frame_from_fields(const rapidjson::Value& line,
                                                 const std::vector<std::uint8_t>& body) {
  rapidjson::Document header(rapidjson::kObjectType);
  auto& a = header.GetAllocator();
  for (const char* key : {"code", "language", "version", "opaque", "flag", "extFields"}) {
    if (line.HasMember(key)) {
      header.AddMember(rapidjson::StringRef(key), rapidjson::Value(line[key], a), a);
    }
  }
  const std::string text = write_json(header);
  std::vector<std::uint8_t> frame;
  auto be32 = [&frame](std::uint32_t v) {
    for (int s = 24; s >= 0; s -= 8) frame.push_back(static_cast<std::uint8_t>(v >> s));
  };
  be32(static_cast<std::uint32_t>(4 + text.size() + body.size()));
  be32(static_cast<std::uint32_t>(text.size()));  // serialize type 0 (JSON)
  frame.insert(frame.end(), text.begin(), text.end());
  frame.insert(frame.end(), body.begin(), body.end());
  return frame;
}

}  // namespace ferry::remoting::testing
