// Assertions that are always on and say what they saw.
//
//   FERRY_ASSERT(cond, "fmt {}", value)   -- aborts with file:line, the condition and the message.
//   FERRY_ASSERT_EQ(a, b) / _LE / _LT     -- print both sides.
//
// They guard invariants and arguments (bugs), never expected failures (use Result for those).
#pragma once

#include <fmt/format.h>

#include <string>

namespace ferry::detail {
[[noreturn]] void assert_fail(const char* file, int line, const char* cond, const std::string& msg);
}

#define FERRY_ASSERT(cond, ...)                                                              \
  do {                                                                                       \
    if (!(cond)) [[unlikely]]                                                                \
      ::ferry::detail::assert_fail(__FILE__, __LINE__, #cond, ::fmt::format("" __VA_ARGS__)); \
  } while (0)

#define FERRY_ASSERT_OP_(a, op, b)                                                                \
  do {                                                                                            \
    const auto& ferry_a_ = (a);                                                                   \
    const auto& ferry_b_ = (b);                                                                   \
    if (!(ferry_a_ op ferry_b_)) [[unlikely]]                                                     \
      ::ferry::detail::assert_fail(__FILE__, __LINE__, #a " " #op " " #b,                         \
                                   ::fmt::format("{} {} {} is false", ferry_a_, #op, ferry_b_)); \
  } while (0)

#define FERRY_ASSERT_EQ(a, b) FERRY_ASSERT_OP_(a, ==, b)
#define FERRY_ASSERT_NE(a, b) FERRY_ASSERT_OP_(a, !=, b)
#define FERRY_ASSERT_LE(a, b) FERRY_ASSERT_OP_(a, <=, b)
#define FERRY_ASSERT_LT(a, b) FERRY_ASSERT_OP_(a, <, b)
#define FERRY_ASSERT_GE(a, b) FERRY_ASSERT_OP_(a, >=, b)
#define FERRY_UNREACHABLE(...) ::ferry::detail::assert_fail(__FILE__, __LINE__, "unreachable", ::fmt::format("" __VA_ARGS__))
