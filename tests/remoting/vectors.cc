#include "tests/remoting/vectors.h"

#include <gtest/gtest.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace ferry::remoting::testing {

std::string vectors_dir() {
  std::vector<std::filesystem::path> candidates;
  if (const char* src = std::getenv("FERRY_SOURCE_DIR")) {
    candidates.emplace_back(std::filesystem::path(src) / ".." / "shared" / "vectors");
  }
  for (const char* rel : {"../shared/vectors", "../../shared/vectors", "../../../shared/vectors",
                          "/work/shared/vectors"}) {
    candidates.emplace_back(rel);
  }
  for (const auto& p : candidates) {
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec)) return p.string();
  }
  return {};
}

std::vector<rapidjson::Document> load_jsonl(std::string_view file_name) {
  std::vector<rapidjson::Document> out;
  const std::string dir = vectors_dir();
  if (dir.empty()) {
    ADD_FAILURE() << "test vectors not found: set FERRY_SOURCE_DIR to the project root (the "
                     "vectors live in $FERRY_SOURCE_DIR/../shared/vectors)";
    return out;
  }
  const std::string path = dir + "/" + std::string(file_name);
  std::ifstream in(path);
  if (!in) {
    ADD_FAILURE() << "cannot open test vector file " << path;
    return out;
  }
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty()) continue;
    rapidjson::Document d;
    d.Parse(line.data(), line.size());
    if (d.HasParseError()) {
      ADD_FAILURE() << path << ":" << n << " does not parse";
      return {};
    }
    out.push_back(std::move(d));
  }
  return out;
}

std::vector<std::uint8_t> hex_to_bytes(std::string_view hex) {
  auto nibble = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    ADD_FAILURE() << "bad hex digit " << c;
    return 0;
  };
  std::vector<std::uint8_t> out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<std::uint8_t>(nibble(hex[i]) << 4 | nibble(hex[i + 1])));
  }
  return out;
}

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
