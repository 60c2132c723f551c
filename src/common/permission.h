// Topic and broker permission bits (RocketMQ's PermName).
#pragma once

#include <cstdint>
#include <string>

namespace ferry::perm {

inline constexpr std::int32_t kPriority = 0x1 << 3;  // 8
inline constexpr std::int32_t kRead = 0x1 << 2;      // 4
inline constexpr std::int32_t kWrite = 0x1 << 1;     // 2
inline constexpr std::int32_t kInherit = 0x1 << 0;   // 1
inline constexpr std::int32_t kReadWrite = kRead | kWrite;  // 6, a new topic's default

static_assert(kReadWrite == 6);

constexpr bool is_readable(std::int32_t p) { return (p & kRead) == kRead; }
constexpr bool is_writeable(std::int32_t p) { return (p & kWrite) == kWrite; }
constexpr bool is_inherited(std::int32_t p) { return (p & kInherit) == kInherit; }
constexpr bool is_priority(std::int32_t p) { return (p & kPriority) == kPriority; }

// "RWX" with '-' for a missing bit (R read, W write, X inherit), as PermName.perm2String.
inline std::string to_string(std::int32_t p) {
  std::string s = "---";
  if (is_readable(p)) s[0] = 'R';
  if (is_writeable(p)) s[1] = 'W';
  if (is_inherited(p)) s[2] = 'X';
  return s;
}

}  // namespace ferry::perm
