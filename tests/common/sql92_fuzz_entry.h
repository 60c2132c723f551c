// The fuzz entry for the SQL92 filter (common/sql92), shared by the libFuzzer target
// (sql92_fuzz.cc, built with FERRY_FUZZ=ON under clang) and the replay test that runs in every
// build (sql92_fuzz_replay_test.cc).
#pragma once

#include <cstddef>
#include <cstdint>

namespace ferry::sql92::testing {

// Input: one selector byte, then the expression text; a NUL byte in the text ends the expression
// and starts an encoded properties string (common/properties.h) to evaluate on as well.
//
// Parses the expression. A refusal must say where (sql92_oracle.h's error_problem). An accepted
// expression must round-trip through canonical() and, on the properties the selector picks from
// a fixed set and on those of the input, select exactly what evaluation on properties read by
// hand selects, what its canonical text's expression selects and, when it reads no property,
// its constant answer; of the expression E, "NOT (E)" and "(E) IS NULL", exactly one selects
// unless evaluating E fails (then none does). Violations abort (FERRY_ASSERT), as a crash does.
// Returns 1 when the expression parsed, 0 when it was refused.
int fuzz_sql92_one_input(const std::uint8_t* data, std::size_t size);

}  // namespace ferry::sql92::testing
