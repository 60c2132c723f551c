#include "runtime/assert.h"

#include <cstdio>
#include <cstdlib>

namespace ferry::detail {

void assert_fail(const char* file, int line, const char* cond, const std::string& msg) {
  std::fprintf(stderr, "%s:%d: assertion failed: %s: %s\n", file, line, cond, msg.c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace ferry::detail
