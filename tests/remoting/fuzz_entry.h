// The fuzz entry for the remoting decoders, shared by the libFuzzer target (fuzz_frame.cc, built
// with FERRY_FUZZ=ON under clang) and the replay test that runs in every build.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ferry::remoting::testing {

// Runs `data` through every decoder of the pure remoting layer: whole-frame decode, the stream
// decoder fed in pieces, both header readers, the JSON body readers and the typed headers of
// each decoded command. Whatever decodes must re-encode and decode to an equal value (checked
// with FERRY_ASSERT, so a violation aborts like a crash). Returns how many commands and bodies
// decoded successfully (for coverage checks in the replay test).
int fuzz_one_input(const std::uint8_t* data, std::size_t size);

}  // namespace ferry::remoting::testing
