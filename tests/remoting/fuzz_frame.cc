// libFuzzer target for the remoting frame and header decoders (FERRY_FUZZ=ON, clang):
//   build-fuzz/bin/fuzz_frame -max_len=4096 corpus/
#include <cstddef>
#include <cstdint>

#include "tests/remoting/fuzz_entry.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  ferry::remoting::testing::fuzz_one_input(data, size);
  return 0;
}
