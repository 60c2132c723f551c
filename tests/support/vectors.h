// Test support: read the golden vectors in tests/vectors/ (see its README for what each file holds
// and how it was made independently of Ferry's code).
//
// The folder is compiled in (FERRY_TEST_VECTORS_DIR, set by tests/support/CMakeLists.txt to the
// repository's own tests/vectors), so a test binary finds its fixtures wherever it is run from and
// never looks outside the repository. Every reader fails the calling test with the file's path
// (ADD_FAILURE) when the file is missing, unreadable or empty, and then returns nothing: callers
// ASSERT on the count they expect before indexing.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace ferry::test {

// tests/vectors/<file_name>.
std::filesystem::path vector_path(std::string_view file_name);

// The lines of a vector file (without line ends), skipping empty lines and lines starting with '#'.
std::vector<std::string> read_vector_lines(std::string_view file_name);

// Lowercase or uppercase hex to bytes; a bad digit or an odd length fails the calling test.
std::vector<std::uint8_t> from_hex(std::string_view hex);

// Splits on '\t', keeping empty fields.
std::vector<std::string> split_tabs(std::string_view line);

}  // namespace ferry::test
