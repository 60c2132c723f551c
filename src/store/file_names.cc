#include "store/file_names.h"

#include <fmt/format.h>

#include "runtime/assert.h"

namespace ferry::store {

std::string offset_file_name(std::int64_t offset) {
  FERRY_ASSERT(offset >= 0, "file offsets are never negative, got {}", offset);
  std::string name = fmt::format("{:020d}", offset);
  FERRY_ASSERT_EQ(name.size(), kOffsetFileNameDigits);
  return name;
}

std::optional<std::int64_t> parse_offset_file_name(std::string_view name) {
  if (name.size() != kOffsetFileNameDigits) return std::nullopt;
  std::int64_t value = 0;
  for (const char c : name) {
    if (c < '0' || c > '9') return std::nullopt;
    const std::int64_t digit = c - '0';
    if (value > (INT64_MAX - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

std::string join_path(std::string_view dir, std::string_view name) {
  if (dir.empty()) return std::string(name);
  std::string path(dir);
  if (path.back() != '/') path.push_back('/');
  path.append(name);
  return path;
}

}  // namespace ferry::store
