// libFuzzer target for the SQL92 filter's parser and evaluator (FERRY_FUZZ=ON, clang):
//   build-fuzz/bin/fuzz_sql92 -dict=tests/common/sql92.dict build-fuzz/corpus-sql92 tests/common/sql92_corpus
// Each input is a selector byte, then the expression (sql92_fuzz_entry.h).
#include <cstddef>
#include <cstdint>

#include "tests/common/sql92_fuzz_entry.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ferry::sql92::testing::fuzz_sql92_one_input(data, size);
  return 0;
}
