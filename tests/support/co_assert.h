// Assertions for test coroutines.
//
// GoogleTest's ASSERT_* cannot appear in a coroutine (they `return`, STYLE.md item 14), and
// FERRY_ASSERT aborts the whole test binary, so one broken test would hide every test after it.
// These record a GoogleTest failure at the caller's file and line, with the condition and a
// message that says what was seen, then leave the coroutine:
//
//   CO_ASSERT(l.ok(), "listen: {}", l.error().to_string());      // in a Task<void>
//   CO_ASSERT_OR(c.ok(), std::string{}, "connect: {}", c.error().to_string());  // in a Task<T>
//
// The test body goes on after the run and may check what the coroutine left behind; the binary
// goes on with the next test.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>

#define CO_ASSERT(cond, ...)                                                              \
  do {                                                                                    \
    if (!(cond)) {                                                                        \
      ADD_FAILURE_AT(__FILE__, __LINE__)                                                  \
          << "CO_ASSERT(" #cond ") failed: " << ::fmt::format("" __VA_ARGS__);            \
      co_return;                                                                          \
    }                                                                                     \
  } while (0)

#define CO_ASSERT_OR(cond, value, ...)                                                    \
  do {                                                                                    \
    if (!(cond)) {                                                                        \
      ADD_FAILURE_AT(__FILE__, __LINE__)                                                  \
          << "CO_ASSERT(" #cond ") failed: " << ::fmt::format("" __VA_ARGS__);            \
      co_return value;                                                                    \
    }                                                                                     \
  } while (0)
